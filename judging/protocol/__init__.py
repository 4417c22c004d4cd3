"""The judging protocol: prompts, what judges answer, fences around untrusted text, one trial."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairpanel.judging.protocol._consensus import consensus_of
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
    from fairpanel.judging.protocol._trial import run_trial


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

_HOME: dict[str, str] = {
    **dict.fromkeys(
        (
            "FENCE_TAGS",
            "defuse",
        ),
        "fairpanel.judging.protocol._fencing",
    ),
    **dict.fromkeys(
        (
            "METRICS",
            "MetricScores",
            "PairJudgment",
            "SingleJudgment",
            "output_schema",
            "parse_judgment",
            "parse_text_judgment",
        ),
        "fairpanel.judging.protocol._judgment",
    ),
    **dict.fromkeys(
        (
            "judge_ask",
            "judge_context",
            "manipulation_rewrite_messages",
            "responder_messages",
            "rewrite_messages",
        ),
        "fairpanel.judging.protocol._prompts",
    ),
    **dict.fromkeys(
        (
            "TrialRecord",
            "TurnRecord",
        ),
        "fairpanel.judging.protocol._records",
    ),
    **dict.fromkeys(("consensus_of",), "fairpanel.judging.protocol._consensus"),
    **dict.fromkeys(("run_trial",), "fairpanel.judging.protocol._trial"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
