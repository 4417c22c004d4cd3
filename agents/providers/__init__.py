"""The model providers: OpenAI(-compatible), Anthropic, the embedded local model, the mock."""

from fairpanel.agents.providers._anthropic import (
    ANTHROPIC_URL,
    DEFAULT_MAX_TOKENS,
    AnthropicClient,
    anthropic_unsupported,
)
from fairpanel.agents.providers._local import (
    LocalModelServer,
    LocalModelUnavailableError,
    smollm2_weights,
)
from fairpanel.agents.providers._mock import MockClient, mock_reply, offered_options
from fairpanel.agents.providers._openai import OpenAIClient, cached_tokens_of

__all__ = [
    "ANTHROPIC_URL",
    "DEFAULT_MAX_TOKENS",
    "AnthropicClient",
    "LocalModelServer",
    "LocalModelUnavailableError",
    "MockClient",
    "OpenAIClient",
    "anthropic_unsupported",
    "cached_tokens_of",
    "mock_reply",
    "offered_options",
    "smollm2_weights",
]
