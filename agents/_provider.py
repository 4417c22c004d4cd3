"""What a provider registers: how its models become clients, and what a run must know first.

Every provider, fairpanel's own included, is an entry point of the ``fairpanel.providers``
group (see ``_plugins``). fairpanel's own entry points name a ``Provider``; a plugin's name a
bare factory, which ``_plugins`` wraps in one. The registry asks the provider, never the
provider's name, for endpoints, keys, unsupported settings and clients.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

from fairpanel.agents._types import ModelClient, Sampling

if TYPE_CHECKING:
    from fairpanel.agents._batch_api import BatchApi
    from fairpanel.agents._spec import ModelSpec

__all__ = ["Provider", "ProviderRun", "SharedService", "nothing_unsupported"]


class SharedService(Protocol):
    """A resource started once per run and shared by every client that needs it."""

    def start(self) -> object: ...

    def stop(self) -> None: ...


Service = TypeVar("Service", bound=SharedService)


class ProviderRun(Protocol):
    """What the run's registry lends a provider while it builds a client."""

    def api_key(self, spec: ModelSpec) -> str:
        """The key from the environment (``"unused"`` when the provider takes none)."""
        ...

    def service(self, kind: type[Service]) -> Service:
        """The run's started instance of ``kind`` (one of the provider's ``services``)."""
        ...


def nothing_unsupported(sampling: Sampling) -> list[str]:
    """For providers that send every sampling setting as asked (or, like the mock, take the
    settings only as part of the request)."""
    return []


@dataclass(frozen=True)
class Provider:
    """One provider of ``provider/model`` ids.

    ``create`` builds a client for a spec; ``endpoint`` names where its requests go (part of
    every trial and cache key, so it must not change between runs); ``key_variable`` is the
    environment variable read when the spec names none, and ``uses_key`` is false for
    providers that never take one. ``unsupported`` lists the settings the provider will not
    send as asked; when it is None the client itself is asked. ``limited`` clients go through
    the endpoint limiter, and ``services`` are started (off the event loop) before ``create``.
    ``models`` is the set of model names it serves when that set is fixed, and
    ``needs_base_url`` marks providers that have no default server; both are checked when a
    config is loaded. ``batch`` builds the model's batch API client, for providers that have
    one (``execution: batch``).
    """

    create: Callable[[ModelSpec, ProviderRun], ModelClient]
    endpoint: Callable[[ModelSpec], str]
    key_variable: str | None = None
    uses_key: bool = True
    unsupported: Callable[[Sampling], list[str]] | None = None
    limited: bool = True
    services: tuple[type[SharedService], ...] = ()
    models: tuple[str, ...] | None = None
    needs_base_url: bool = False
    batch: Callable[[ModelSpec, ProviderRun], BatchApi] | None = None
