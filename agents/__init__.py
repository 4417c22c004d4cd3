"""Model clients and the agents built on them.

The provider registry, the call cache front, the AutoGen judge panel and the embedded local
model. Only ``_autogen_panel`` imports AutoGen; ``providers`` holds fairpanel's own clients;
``_plugins`` finds every provider, fairpanel's own and other packages', through entry points.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairpanel.agents._attempts import FailedAttempt, FailureLog
    from fairpanel.agents._autogen_panel import (
        AnswerRules,
        DebateError,
        DebateRound,
        Seat,
        TurnOutcome,
        run_debate,
        run_single_turn,
    )
    from fairpanel.agents._batch_api import (
        BatchApi,
        BatchIntent,
        BatchItemResult,
        BatchSettings,
        BatchStatus,
        Execution,
        FindVerdict,
        openai_batch_line,
    )
    from fairpanel.agents._batch_ledger import BATCH_PENDING, BatchPendingError
    from fairpanel.agents._batching import (
        BatchCollector,
        BatchDispatcher,
        BatchLedger,
        BatchStats,
        OpenBatch,
    )
    from fairpanel.agents._calls import CachingCaller, CallCache, CallLedger, RoleAwareClient
    from fairpanel.agents._limits import (
        EndpointLimits,
        EndpointState,
        LimitedClient,
        LimitStats,
        estimate_tokens,
        retry_after_from_headers,
    )
    from fairpanel.agents._plugins import (
        ENTRY_POINT_GROUP,
        PluginError,
        find_provider,
        plugin_providers,
    )
    from fairpanel.agents._provider import Provider, ProviderRun, SharedService
    from fairpanel.agents._quota import QuotaReading, QuotaWindow, quota_from_headers
    from fairpanel.agents._registry import (
        MissingApiKeyError,
        ModelRegistry,
        endpoint_key,
        endpoint_of,
    )
    from fairpanel.agents._replicas import (
        Replica,
        ReplicaClient,
        ReplicaHealth,
        ReplicaOutError,
        ReplicaSet,
    )
    from fairpanel.agents._secrets import REDACTED, credential_free_url, redact, register_secret
    from fairpanel.agents._spec import PROVIDERS, ChoiceRule, MockBias, ModelSpec
    from fairpanel.agents._types import (
        Message,
        ModelCallError,
        ModelClient,
        ModelReply,
        ModelRequest,
        Sampling,
        SamplingReport,
        Usage,
        canonical_json,
    )
    from fairpanel.agents.providers import (
        AnthropicClient,
        LocalModelServer,
        LocalModelUnavailableError,
        MockClient,
        SdkTarget,
        local_threads,
        mock_reply,
        smollm2_weights,
    )


__all__ = [
    "BATCH_PENDING",
    "ENTRY_POINT_GROUP",
    "PROVIDERS",
    "REDACTED",
    "AnswerRules",
    "AnthropicClient",
    "BatchApi",
    "BatchCollector",
    "BatchDispatcher",
    "BatchIntent",
    "BatchItemResult",
    "BatchLedger",
    "BatchPendingError",
    "BatchSettings",
    "BatchStats",
    "BatchStatus",
    "CachingCaller",
    "CallCache",
    "CallLedger",
    "ChoiceRule",
    "DebateError",
    "DebateRound",
    "EndpointLimits",
    "EndpointState",
    "Execution",
    "FailedAttempt",
    "FailureLog",
    "FindVerdict",
    "LimitStats",
    "LimitedClient",
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
    "OpenBatch",
    "PluginError",
    "Provider",
    "ProviderRun",
    "QuotaReading",
    "QuotaWindow",
    "Replica",
    "ReplicaClient",
    "ReplicaHealth",
    "ReplicaOutError",
    "ReplicaSet",
    "RoleAwareClient",
    "Sampling",
    "SamplingReport",
    "SdkTarget",
    "Seat",
    "SharedService",
    "TurnOutcome",
    "Usage",
    "canonical_json",
    "credential_free_url",
    "endpoint_key",
    "endpoint_of",
    "estimate_tokens",
    "find_provider",
    "local_threads",
    "mock_reply",
    "openai_batch_line",
    "plugin_providers",
    "quota_from_headers",
    "redact",
    "register_secret",
    "retry_after_from_headers",
    "run_debate",
    "run_single_turn",
    "smollm2_weights",
]

_HOME: dict[str, str] = {
    **dict.fromkeys(
        (
            "AnswerRules",
            "DebateError",
            "DebateRound",
            "Seat",
            "TurnOutcome",
            "run_debate",
            "run_single_turn",
        ),
        "fairpanel.agents._autogen_panel",
    ),
    **dict.fromkeys(
        (
            "BatchApi",
            "BatchItemResult",
            "BatchSettings",
            "BatchStatus",
            "Execution",
            "openai_batch_line",
        ),
        "fairpanel.agents._batch_api",
    ),
    **dict.fromkeys(
        (
            "BatchCollector",
            "BatchDispatcher",
            "BatchLedger",
            "BatchStats",
            "OpenBatch",
        ),
        "fairpanel.agents._batching",
    ),
    **dict.fromkeys(
        (
            "CachingCaller",
            "CallCache",
            "CallLedger",
            "RoleAwareClient",
        ),
        "fairpanel.agents._calls",
    ),
    **dict.fromkeys(
        (
            "EndpointLimits",
            "EndpointState",
            "LimitedClient",
            "LimitStats",
            "estimate_tokens",
            "retry_after_from_headers",
        ),
        "fairpanel.agents._limits",
    ),
    **dict.fromkeys(
        (
            "ENTRY_POINT_GROUP",
            "PluginError",
            "find_provider",
            "plugin_providers",
        ),
        "fairpanel.agents._plugins",
    ),
    **dict.fromkeys(
        (
            "Provider",
            "ProviderRun",
            "SharedService",
        ),
        "fairpanel.agents._provider",
    ),
    **dict.fromkeys(
        (
            "QuotaReading",
            "QuotaWindow",
            "quota_from_headers",
        ),
        "fairpanel.agents._quota",
    ),
    **dict.fromkeys(
        (
            "MissingApiKeyError",
            "ModelRegistry",
            "endpoint_key",
            "endpoint_of",
        ),
        "fairpanel.agents._registry",
    ),
    **dict.fromkeys(
        (
            "Replica",
            "ReplicaClient",
            "ReplicaHealth",
            "ReplicaOutError",
            "ReplicaSet",
        ),
        "fairpanel.agents._replicas",
    ),
    **dict.fromkeys(
        (
            "REDACTED",
            "redact",
            "register_secret",
        ),
        "fairpanel.agents._secrets",
    ),
    **dict.fromkeys(
        (
            "PROVIDERS",
            "ChoiceRule",
            "MockBias",
            "ModelSpec",
        ),
        "fairpanel.agents._spec",
    ),
    **dict.fromkeys(
        (
            "Message",
            "ModelCallError",
            "ModelClient",
            "ModelReply",
            "ModelRequest",
            "Sampling",
            "SamplingReport",
            "Usage",
            "canonical_json",
        ),
        "fairpanel.agents._types",
    ),
    **dict.fromkeys(
        (
            "AnthropicClient",
            "LocalModelServer",
            "LocalModelUnavailableError",
            "MockClient",
            "SdkTarget",
            "local_threads",
            "mock_reply",
            "smollm2_weights",
        ),
        "fairpanel.agents.providers",
    ),
    "credential_free_url": "fairpanel.agents._secrets",
    "FailureLog": "fairpanel.agents._attempts",
    "BATCH_PENDING": "fairpanel.agents._batch_ledger",
    "BatchPendingError": "fairpanel.agents._batch_ledger",
    "FailedAttempt": "fairpanel.agents._attempts",
    "BatchIntent": "fairpanel.agents._batch_api",
    "FindVerdict": "fairpanel.agents._batch_api",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
