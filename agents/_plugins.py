"""Every provider is found through the Python entry-point group ``fairpanel.providers``.

fairpanel registers its own providers there (``[project.entry-points]`` in its
pyproject.toml), each naming a ``Provider``; other packages register theirs the same way.
A plugin entry point's name is the provider prefix of model ids (``myplugin`` for
``myplugin/echo``) and its value is ``module:factory``, called as ``factory(spec) -> client``.
A provider's module is imported only when one of its models is used, so an unused provider's
SDK is never imported. Plugin entry points are read when they are needed, never cached, so a
package installed after import is seen; fairpanel's own names always win over a plugin's.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from functools import cache
from importlib.metadata import EntryPoint, PackageNotFoundError, distribution, entry_points
from typing import TYPE_CHECKING

from fairpanel.agents._provider import Provider, ProviderRun
from fairpanel.agents._types import ModelClient, SamplingReport

if TYPE_CHECKING:
    from fairpanel.agents._spec import ModelSpec

__all__ = [
    "ENTRY_POINT_GROUP",
    "PluginError",
    "built_in_providers",
    "create_plugin_client",
    "find_provider",
    "plugin_providers",
]

ENTRY_POINT_GROUP = "fairpanel.providers"
_DISTRIBUTION = "fairpanel"


class PluginError(RuntimeError):
    """A provider plugin is missing, fails to load, or returns something that is not a client."""


@cache
def _own_entry_points() -> dict[str, EntryPoint]:
    """fairpanel's own providers, as its installed metadata declares them (in that order)."""
    try:
        points = distribution(_DISTRIBUTION).entry_points.select(group=ENTRY_POINT_GROUP)
        found = {point.name: point for point in points}
    except PackageNotFoundError:
        found = {}
    if not found:
        raise PluginError(
            f"fairpanel's own providers are not registered ({ENTRY_POINT_GROUP} entry points "
            "of the fairpanel distribution): reinstall it, e.g. pip install -e ."
        )
    return found


def built_in_providers() -> tuple[str, ...]:
    """The names of fairpanel's own providers."""
    return tuple(_own_entry_points())


@cache
def _built_in(name: str) -> Provider:
    point = _own_entry_points()[name]
    provider = point.load()
    if not isinstance(provider, Provider):
        raise PluginError(
            f"{ENTRY_POINT_GROUP} entry point {name!r} ({point.value}) is not a Provider"
        )
    return provider


def _entry_points(exclude: Collection[str] = ()) -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name not in exclude and "/" not in point.name:
            found.setdefault(point.name, point)
    return found


def plugin_providers(exclude: Collection[str] = ()) -> list[str]:
    """Provider prefixes registered by installed packages (sorted, ``exclude`` left out)."""
    return sorted(_entry_points(exclude))


def find_provider(name: str) -> Provider:
    """The provider of ``name/...`` ids: one of fairpanel's own, else a plugin's.

    A plugin's factory is loaded only when a client is created, so naming endpoints and keys
    never imports (or fails on) plugin code.
    """
    if name in _own_entry_points():
        return _built_in(name)
    return _plugin(name)


def _plugin(name: str) -> Provider:
    def endpoint(spec: ModelSpec) -> str:
        return spec.base_url.rstrip("/") if spec.base_url else f"plugin:{name}"

    def create(spec: ModelSpec, run: ProviderRun) -> ModelClient:
        return create_plugin_client(spec)

    return Provider(create=create, endpoint=endpoint)


def create_plugin_client(spec: ModelSpec) -> ModelClient:
    """Load the provider's factory and build ``spec``'s client with it.

    The result is checked to be a client that can also report unsupported sampling, so a
    plugin cannot silently ignore settings.
    """
    point = _entry_points(exclude=built_in_providers()).get(spec.provider)
    if point is None:
        raise PluginError(f"no installed package provides {spec.provider!r} models")
    where = f"{ENTRY_POINT_GROUP} entry point {point.name!r} ({point.value})"
    try:
        factory: Callable[[ModelSpec], object] = point.load()
    except Exception as exc:
        raise PluginError(f"cannot load {where}: {type(exc).__name__}: {exc}") from exc
    if not callable(factory):
        raise PluginError(f"{where} is not callable")
    client = factory(spec)
    missing = [
        name
        for name, protocol in (
            ("model_id, endpoint, complete() and aclose()", ModelClient),
            ("unsupported(sampling)", SamplingReport),
        )
        if not isinstance(client, protocol)
    ]
    if missing:
        raise PluginError(
            f"{where} returned a {type(client).__name__}, which lacks {'; '.join(missing)}"
        )
    assert isinstance(client, ModelClient)
    return client
