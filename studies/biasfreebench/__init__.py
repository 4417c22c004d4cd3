"""BiasFreeBench (seed 003): the Bias-Free Score on BBQ ambiguous items, and mitigations."""

from fairpanel.studies.biasfreebench._config import (
    MITIGATIONS,
    BfbJudge,
    BfbResponder,
    BfbTreatment,
    BiasFreeBenchConfig,
    Mitigation,
)
from fairpanel.studies.biasfreebench._data import (
    BBQ_CATEGORIES,
    BbqItem,
    BbqSet,
    builtin_bbq_dir,
    label_item,
    load_bbq,
    stratified_subset,
)
from fairpanel.studies.biasfreebench._design import (
    BfbItem,
    call_replicate,
    iter_bfb_items,
    seeded_rng,
)
from fairpanel.studies.biasfreebench._prompts import (
    CLASSES,
    PROMPT_VERSION,
    TOPICS,
    JudgeCall,
    Reference,
    answer_text,
    judge_call,
    judge_instruction,
    judge_schema,
    parse_judgment,
    query,
    read_rewrite,
    reflection_turn,
    self_help_request,
)
from fairpanel.studies.biasfreebench._report import biasfreebench_report
from fairpanel.studies.biasfreebench._stats import (
    COUNTED,
    bias_free_score,
    majority,
    paired_difference,
)
from fairpanel.studies.biasfreebench._study import NO_MAJORITY, BiasFreeBench
from fairpanel.studies.biasfreebench._tables import bfb_tables

__all__ = [
    "BBQ_CATEGORIES",
    "CLASSES",
    "COUNTED",
    "MITIGATIONS",
    "NO_MAJORITY",
    "PROMPT_VERSION",
    "TOPICS",
    "BbqItem",
    "BbqSet",
    "BfbItem",
    "BfbJudge",
    "BfbResponder",
    "BfbTreatment",
    "BiasFreeBench",
    "BiasFreeBenchConfig",
    "JudgeCall",
    "Mitigation",
    "Reference",
    "answer_text",
    "bfb_tables",
    "bias_free_score",
    "biasfreebench_report",
    "builtin_bbq_dir",
    "call_replicate",
    "iter_bfb_items",
    "judge_call",
    "judge_instruction",
    "judge_schema",
    "label_item",
    "load_bbq",
    "majority",
    "paired_difference",
    "parse_judgment",
    "query",
    "read_rewrite",
    "reflection_turn",
    "seeded_rng",
    "self_help_request",
    "stratified_subset",
]
