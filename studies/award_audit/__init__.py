"""The two-student award audit (seed 002): who gets the award when two answers are equally good."""

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
