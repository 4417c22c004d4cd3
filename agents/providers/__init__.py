"""fairpanel's own model providers: OpenAI(-compatible), Anthropic, the embedded local model
and the mock.

Each module defines its clients and one ``Provider`` per provider name; pyproject.toml
registers those as ``fairpanel.providers`` entry points, the way a plugin package registers
its own (docs/plugins.md), so the registry never names a provider."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairpanel.agents.providers._anthropic import AnthropicClient
    from fairpanel.agents.providers._local import (
        LocalModelServer,
        LocalModelUnavailableError,
        local_threads,
        smollm2_weights,
    )
    from fairpanel.agents.providers._mock import MockClient, mock_reply
    from fairpanel.agents.providers._sdk import SdkTarget


__all__ = [
    "AnthropicClient",
    "LocalModelServer",
    "LocalModelUnavailableError",
    "MockClient",
    "SdkTarget",
    "local_threads",
    "mock_reply",
    "smollm2_weights",
]

_HOME: dict[str, str] = {
    **dict.fromkeys(
        ("AnthropicClient",),
        "fairpanel.agents.providers._anthropic",
    ),
    **dict.fromkeys(
        (
            "LocalModelServer",
            "LocalModelUnavailableError",
            "local_threads",
            "smollm2_weights",
        ),
        "fairpanel.agents.providers._local",
    ),
    **dict.fromkeys(
        (
            "MockClient",
            "mock_reply",
        ),
        "fairpanel.agents.providers._mock",
    ),
    **dict.fromkeys(
        ("SdkTarget",),
        "fairpanel.agents.providers._sdk",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
