"""Model clients and the agents built on them.

The provider registry, the call cache front, the AutoGen judge panel and the embedded local
model. Only ``_autogen_openai`` and ``_autogen_panel`` import AutoGen.
"""

from fairpanel.agents._autogen_panel import DebateRound, Seat, TurnOutcome, run_debate
from fairpanel.agents._calls import CachingCaller, CallCache, CallLedger
from fairpanel.agents._local import LocalModelServer, LocalModelUnavailableError, smollm2_weights
from fairpanel.agents._mock import MockClient, mock_reply
from fairpanel.agents._registry import MissingApiKeyError, ModelRegistry, endpoint_of
from fairpanel.agents._spec import PROVIDERS, MockBias, ModelSpec
from fairpanel.agents._types import (
    Message,
    ModelCallError,
    ModelClient,
    ModelReply,
    ModelRequest,
    Sampling,
    Usage,
    canonical_json,
)

__all__ = [
    "PROVIDERS",
    "CachingCaller",
    "CallCache",
    "CallLedger",
    "DebateRound",
    "LocalModelServer",
    "LocalModelUnavailableError",
    "Message",
    "MissingApiKeyError",
    "MockBias",
    "MockClient",
    "ModelCallError",
    "ModelClient",
    "ModelRegistry",
    "ModelReply",
    "ModelRequest",
    "ModelSpec",
    "Sampling",
    "Seat",
    "TurnOutcome",
    "Usage",
    "canonical_json",
    "endpoint_of",
    "mock_reply",
    "run_debate",
    "smollm2_weights",
]
