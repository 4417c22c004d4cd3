"""JudgeBiasBench's bias-sensitive rate on BBQ ambiguous items: does a manipulation of the
wrong answer turn a judge's right verdict wrong?"""

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
