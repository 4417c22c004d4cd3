"""fairpanel's own model providers: OpenAI(-compatible), Anthropic, the embedded local model
and the mock.

Each module defines its clients and one ``Provider`` per provider name; pyproject.toml
registers those as ``fairpanel.providers`` entry points, the way a plugin package registers
its own (docs/plugins.md), so the registry never names a provider.
"""

from fairpanel.agents.providers._anthropic import (
    ANTHROPIC_URL,
    DEFAULT_MAX_TOKENS,
    AnthropicClient,
    anthropic_provider,
    anthropic_unsupported,
)
from fairpanel.agents.providers._local import (
    LocalModelServer,
    LocalModelUnavailableError,
    local_provider,
    smollm2_weights,
)
from fairpanel.agents.providers._mock import MockClient, mock_provider, mock_reply, offered_options
from fairpanel.agents.providers._openai import (
    OPENAI_URL,
    OpenAIClient,
    cached_tokens_of,
    openai_compatible_provider,
    openai_provider,
)

__all__ = [
    "ANTHROPIC_URL",
    "DEFAULT_MAX_TOKENS",
    "OPENAI_URL",
    "AnthropicClient",
    "LocalModelServer",
    "LocalModelUnavailableError",
    "MockClient",
    "OpenAIClient",
    "anthropic_provider",
    "anthropic_unsupported",
    "cached_tokens_of",
    "local_provider",
    "mock_provider",
    "mock_reply",
    "offered_options",
    "openai_compatible_provider",
    "openai_provider",
    "smollm2_weights",
]
