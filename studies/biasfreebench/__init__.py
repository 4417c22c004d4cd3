"""BiasFreeBench (seed 003): the Bias-Free Score on BBQ ambiguous items, and mitigations.

Names load from their modules on first use, so estimating a study's file loads neither its
statistics nor its report's figures.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairpanel.studies.biasfreebench._bbq_study import (
        BbqItemSpec,
        BbqSource,
        bbq_dir_from,
        bbq_file_problems,
        bbq_manifest,
        category_problems,
        chosen_items,
        load_configured_bbq,
    )
    from fairpanel.studies.biasfreebench._config import (
        MITIGATIONS,
        BfbJudge,
        BfbResponder,
        BfbTreatment,
        BiasFreeBenchConfig,
        Mitigation,
    )
    from fairpanel.studies.biasfreebench._data import (
        AGE_TARGETS,
        BBQ_CATEGORIES,
        AgeTarget,
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
    "AGE_TARGETS",
    "BBQ_CATEGORIES",
    "CLASSES",
    "COUNTED",
    "MITIGATIONS",
    "NO_MAJORITY",
    "PROMPT_VERSION",
    "TOPICS",
    "AgeTarget",
    "BbqItem",
    "BbqItemSpec",
    "BbqSet",
    "BbqSource",
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
    "bbq_dir_from",
    "bbq_file_problems",
    "bbq_manifest",
    "bfb_tables",
    "bias_free_score",
    "biasfreebench_report",
    "builtin_bbq_dir",
    "call_replicate",
    "category_problems",
    "chosen_items",
    "iter_bfb_items",
    "judge_call",
    "judge_instruction",
    "judge_schema",
    "label_item",
    "load_bbq",
    "load_configured_bbq",
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

_HOME: dict[str, str] = {
    **dict.fromkeys(
        (
            "BbqItemSpec",
            "BbqSource",
            "bbq_dir_from",
            "bbq_file_problems",
            "bbq_manifest",
            "category_problems",
            "chosen_items",
            "load_configured_bbq",
        ),
        "fairpanel.studies.biasfreebench._bbq_study",
    ),
    **dict.fromkeys(
        (
            "MITIGATIONS",
            "BfbJudge",
            "BfbResponder",
            "BfbTreatment",
            "BiasFreeBenchConfig",
            "Mitigation",
        ),
        "fairpanel.studies.biasfreebench._config",
    ),
    **dict.fromkeys(
        (
            "AGE_TARGETS",
            "BBQ_CATEGORIES",
            "AgeTarget",
            "BbqItem",
            "BbqSet",
            "builtin_bbq_dir",
            "label_item",
            "load_bbq",
            "stratified_subset",
        ),
        "fairpanel.studies.biasfreebench._data",
    ),
    **dict.fromkeys(
        (
            "BfbItem",
            "call_replicate",
            "iter_bfb_items",
            "seeded_rng",
        ),
        "fairpanel.studies.biasfreebench._design",
    ),
    **dict.fromkeys(
        (
            "CLASSES",
            "PROMPT_VERSION",
            "TOPICS",
            "JudgeCall",
            "Reference",
            "answer_text",
            "judge_call",
            "judge_instruction",
            "judge_schema",
            "parse_judgment",
            "query",
            "read_rewrite",
            "reflection_turn",
            "self_help_request",
        ),
        "fairpanel.studies.biasfreebench._prompts",
    ),
    **dict.fromkeys(("biasfreebench_report",), "fairpanel.studies.biasfreebench._report"),
    **dict.fromkeys(
        (
            "COUNTED",
            "bias_free_score",
            "majority",
            "paired_difference",
        ),
        "fairpanel.studies.biasfreebench._stats",
    ),
    **dict.fromkeys(
        (
            "NO_MAJORITY",
            "BiasFreeBench",
        ),
        "fairpanel.studies.biasfreebench._study",
    ),
    **dict.fromkeys(("bfb_tables",), "fairpanel.studies.biasfreebench._tables"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
