"""fairpanel's own model providers: OpenAI(-compatible), Anthropic, the embedded local model
and the mock.

Each module defines its clients and one ``Provider`` per provider name; pyproject.toml
registers those as ``fairpanel.providers`` entry points, the way a plugin package registers
its own (docs/plugins.md), so the registry never names a provider."""

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
