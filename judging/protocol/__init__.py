"""The judging protocol: prompts, what judges answer, fences around untrusted text, one trial."""

from fairpanel.judging.protocol._fencing import FENCE_TAGS, attribute, defuse, with_injection
from fairpanel.judging.protocol._judgment import (
    METRICS,
    MetricScores,
    PairJudgment,
    SingleJudgment,
    output_schema,
    parse_judgment,
)
from fairpanel.judging.protocol._prompts import (
    METRIC_DEFINITIONS,
    blind_final_prompt,
    discussion_prompt,
    final_prompt,
    judge_ask,
    judge_context,
    moderator_prompt,
    reask_prompt,
    responder_messages,
    rewrite_messages,
)
from fairpanel.judging.protocol._records import TrialRecord, TurnRecord
from fairpanel.judging.protocol._trial import consensus_of, run_trial

__all__ = [
    "FENCE_TAGS",
    "METRICS",
    "METRIC_DEFINITIONS",
    "MetricScores",
    "PairJudgment",
    "SingleJudgment",
    "TrialRecord",
    "TurnRecord",
    "attribute",
    "blind_final_prompt",
    "consensus_of",
    "defuse",
    "discussion_prompt",
    "final_prompt",
    "judge_ask",
    "judge_context",
    "moderator_prompt",
    "output_schema",
    "parse_judgment",
    "reask_prompt",
    "responder_messages",
    "rewrite_messages",
    "run_trial",
    "with_injection",
]
