"""JudgeBiasBench's bias-sensitive rate on BBQ ambiguous items: does a manipulation of the
wrong answer turn a judge's right verdict wrong?

Names load from their modules on first use, so estimating a study's file loads neither its
statistics nor its report's figures.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairpanel.studies.judge_bias._analysis import analyze_judge_bias
    from fairpanel.studies.judge_bias._config import BiasJudge, JudgeBiasConfig
    from fairpanel.studies.judge_bias._design import (
        ORDERS,
        UNTOUCHED,
        JudgeBiasItem,
        Order,
        iter_judge_bias_items,
    )
    from fairpanel.studies.judge_bias._prompts import (
        ANSWERER,
        CORRECT_ANSWER,
        PROMPT_VERSION,
        bbq_task,
        wrong_answer,
    )
    from fairpanel.studies.judge_bias._report import judge_bias_report
    from fairpanel.studies.judge_bias._stats import (
        OUTCOME_COLUMNS,
        PAIR_KEYS,
        bias_sensitivity,
        holm,
        paired_outcomes,
    )
    from fairpanel.studies.judge_bias._study import JudgeBias, judge_prompt
    from fairpanel.studies.judge_bias._tables import judge_bias_tables

__all__ = [
    "ANSWERER",
    "CORRECT_ANSWER",
    "ORDERS",
    "OUTCOME_COLUMNS",
    "PAIR_KEYS",
    "PROMPT_VERSION",
    "UNTOUCHED",
    "BiasJudge",
    "JudgeBias",
    "JudgeBiasConfig",
    "JudgeBiasItem",
    "Order",
    "analyze_judge_bias",
    "bbq_task",
    "bias_sensitivity",
    "holm",
    "iter_judge_bias_items",
    "judge_bias_report",
    "judge_bias_tables",
    "judge_prompt",
    "paired_outcomes",
    "wrong_answer",
]

_HOME: dict[str, str] = {
    "analyze_judge_bias": "fairpanel.studies.judge_bias._analysis",
    **dict.fromkeys(
        (
            "BiasJudge",
            "JudgeBiasConfig",
        ),
        "fairpanel.studies.judge_bias._config",
    ),
    **dict.fromkeys(
        (
            "ORDERS",
            "UNTOUCHED",
            "JudgeBiasItem",
            "Order",
            "iter_judge_bias_items",
        ),
        "fairpanel.studies.judge_bias._design",
    ),
    **dict.fromkeys(
        (
            "ANSWERER",
            "CORRECT_ANSWER",
            "PROMPT_VERSION",
            "bbq_task",
            "wrong_answer",
        ),
        "fairpanel.studies.judge_bias._prompts",
    ),
    **dict.fromkeys(("judge_bias_report",), "fairpanel.studies.judge_bias._report"),
    **dict.fromkeys(
        (
            "OUTCOME_COLUMNS",
            "PAIR_KEYS",
            "bias_sensitivity",
            "holm",
            "paired_outcomes",
        ),
        "fairpanel.studies.judge_bias._stats",
    ),
    **dict.fromkeys(
        (
            "JudgeBias",
            "judge_prompt",
        ),
        "fairpanel.studies.judge_bias._study",
    ),
    **dict.fromkeys(("judge_bias_tables",), "fairpanel.studies.judge_bias._tables"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
