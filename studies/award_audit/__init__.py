"""The two-student award audit (seed 002): who gets the award when two answers are equally good.

Names load from their modules on first use, so estimating a study's file loads neither its
statistics nor its report's figures.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairpanel.studies.award_audit._bank import (
        LETTERS,
        BankItem,
        ItemBank,
        bank_digest,
        builtin_bank_path,
        load_bank,
    )
    from fairpanel.studies.award_audit._config import (
        AwardAuditConfig,
        AwardGroups,
        AwardResponder,
        FollowupConfig,
        distinct_vectors,
    )
    from fairpanel.studies.award_audit._design import (
        PROMPT_VERSION,
        AwardItem,
        Student,
        answer_vectors,
        iter_award_items,
    )
    from fairpanel.studies.award_audit._prompts import (
        FOLLOWUP_CLASSES,
        Reading,
        award_prompt,
        coder_messages,
        coder_schema,
        followup_question,
        parse_coding,
        read_choice,
    )
    from fairpanel.studies.award_audit._report import award_report
    from fairpanel.studies.award_audit._stats import (
        MIN_CELL,
        binomial_split,
        bonferroni,
        equivocal_spread,
        followup_independence,
    )
    from fairpanel.studies.award_audit._study import AwardAudit
    from fairpanel.studies.award_audit._tables import award_tables

__all__ = [
    "FOLLOWUP_CLASSES",
    "LETTERS",
    "MIN_CELL",
    "PROMPT_VERSION",
    "AwardAudit",
    "AwardAuditConfig",
    "AwardGroups",
    "AwardItem",
    "AwardResponder",
    "BankItem",
    "FollowupConfig",
    "ItemBank",
    "Reading",
    "Student",
    "answer_vectors",
    "award_prompt",
    "award_report",
    "award_tables",
    "bank_digest",
    "binomial_split",
    "bonferroni",
    "builtin_bank_path",
    "coder_messages",
    "coder_schema",
    "distinct_vectors",
    "equivocal_spread",
    "followup_independence",
    "followup_question",
    "iter_award_items",
    "load_bank",
    "parse_coding",
    "read_choice",
]

_HOME: dict[str, str] = {
    **dict.fromkeys(
        (
            "LETTERS",
            "BankItem",
            "ItemBank",
            "bank_digest",
            "builtin_bank_path",
            "load_bank",
        ),
        "fairpanel.studies.award_audit._bank",
    ),
    **dict.fromkeys(
        (
            "AwardAuditConfig",
            "AwardGroups",
            "AwardResponder",
            "FollowupConfig",
            "distinct_vectors",
        ),
        "fairpanel.studies.award_audit._config",
    ),
    **dict.fromkeys(
        (
            "PROMPT_VERSION",
            "AwardItem",
            "Student",
            "answer_vectors",
            "iter_award_items",
        ),
        "fairpanel.studies.award_audit._design",
    ),
    **dict.fromkeys(
        (
            "FOLLOWUP_CLASSES",
            "Reading",
            "award_prompt",
            "coder_messages",
            "coder_schema",
            "followup_question",
            "parse_coding",
            "read_choice",
        ),
        "fairpanel.studies.award_audit._prompts",
    ),
    **dict.fromkeys(("award_report",), "fairpanel.studies.award_audit._report"),
    **dict.fromkeys(
        (
            "MIN_CELL",
            "binomial_split",
            "bonferroni",
            "equivocal_spread",
            "followup_independence",
        ),
        "fairpanel.studies.award_audit._stats",
    ),
    **dict.fromkeys(("AwardAudit",), "fairpanel.studies.award_audit._study"),
    **dict.fromkeys(("award_tables",), "fairpanel.studies.award_audit._tables"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
