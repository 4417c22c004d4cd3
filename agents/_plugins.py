"""Judge model clients from other packages, found through Python entry points.

A package registers a provider under the entry-point group ``fairpanel.providers``: the
entry point's name is the provider prefix of model ids (``myplugin`` for ``myplugin/echo``)
and its value is ``module:factory``, called as ``factory(spec) -> client``. Entry points are
read when they are needed, never cached, so a package installed after import is seen.
Built-in provider names always win over a plugin of the same name.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING

from fairpanel.agents._types import ModelClient, SamplingReport

if TYPE_CHECKING:
    from fairpanel.agents._spec import ModelSpec

__all__ = ["ENTRY_POINT_GROUP", "PluginError", "create_plugin_client", "plugin_providers"]

ENTRY_POINT_GROUP = "fairpanel.providers"


class PluginError(RuntimeError):
    """A provider plugin is missing, fails to load, or returns something that is not a client."""


def _entry_points(exclude: Collection[str] = ()) -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name not in exclude and "/" not in point.name:
            found.setdefault(point.name, point)
    return found


def plugin_providers(exclude: Collection[str] = ()) -> list[str]:
    """Provider prefixes registered by installed packages (sorted, ``exclude`` left out)."""
    return sorted(_entry_points(exclude))


def create_plugin_client(spec: ModelSpec) -> ModelClient:
    """Load the provider's factory and build ``spec``'s client with it.

    The result is checked to be a client that can also report unsupported sampling, so a
    plugin cannot silently ignore settings.
    """
    point = _entry_points().get(spec.provider)
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
