"""The judging protocol: prompts, what judges answer, fences around untrusted text, one trial."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from fairpanel.judging.protocol._fencing import FENCE_TAGS, defuse
from fairpanel.judging.protocol._judgment import (
    METRICS,
    MetricScores,
    PairJudgment,
    SingleJudgment,
    output_schema,
    parse_judgment,
    parse_text_judgment,
)
from fairpanel.judging.protocol._prompts import (
    judge_ask,
    judge_context,
    manipulation_rewrite_messages,
    responder_messages,
    rewrite_messages,
)
from fairpanel.judging.protocol._records import TrialRecord, TurnRecord

if TYPE_CHECKING:
    from fairpanel.judging.protocol._trial import consensus_of, run_trial

__all__ = [
    "FENCE_TAGS",
    "METRICS",
    "MetricScores",
    "PairJudgment",
    "SingleJudgment",
    "TrialRecord",
    "TurnRecord",
    "consensus_of",
    "defuse",
    "judge_ask",
    "judge_context",
    "manipulation_rewrite_messages",
    "output_schema",
    "parse_judgment",
    "parse_text_judgment",
    "responder_messages",
    "rewrite_messages",
    "run_trial",
]


def __getattr__(name: str) -> Any:
    """A trial's runner, loaded on first use: it brings in the AutoGen panel, which reading a
    stored run (``_records``, the store) does not need."""
    if name in ("consensus_of", "run_trial"):
        return getattr(importlib.import_module("fairpanel.judging.protocol._trial"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
