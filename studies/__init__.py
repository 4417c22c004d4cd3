"""Studies other than the judge panel, run on the same engine from a YAML file.

A study file has a ``study:`` field naming one of ``STUDIES``; ``fairpanel run``, ``estimate``
and ``report`` hand such files (and their run folders) to this package. The framework
(``Study``, ``StudyConfig``, ``ItemSpec``, ``StudyContext``, the runner) is in the underscore
modules without a study prefix; each study lives in its own ``_<study>_*.py`` modules.
"""

from fairpanel.studies._award_bank import BankItem, ItemBank, load_bank
from fairpanel.studies._award_config import AwardAuditConfig, AwardGroups, FollowupConfig
from fairpanel.studies._award_design import AwardItem, answer_vectors
from fairpanel.studies._award_prompts import award_prompt, parse_coding, read_choice
from fairpanel.studies._award_stats import (
    binomial_split,
    bonferroni,
    equivocal_spread,
    followup_independence,
)
from fairpanel.studies._award_study import AwardAudit
from fairpanel.studies._base import (
    ItemFailedError,
    ItemSpec,
    ModelUse,
    PlannedCall,
    ResolvedModel,
    Role,
    Study,
    StudyConfig,
    result_table,
)
from fairpanel.studies._bfb_config import (
    BfbJudge,
    BfbResponder,
    BfbTreatment,
    BiasFreeBenchConfig,
)
from fairpanel.studies._bfb_data import BbqItem, BbqSet, load_bbq, stratified_subset
from fairpanel.studies._bfb_design import BfbItem
from fairpanel.studies._bfb_prompts import judge_instruction, parse_judgment
from fairpanel.studies._bfb_stats import bias_free_score, majority, paired_difference
from fairpanel.studies._bfb_study import BiasFreeBench
from fairpanel.studies._cli import estimate_command, report_command, run_command
from fairpanel.studies._context import ModelPool, StudyContext
from fairpanel.studies._estimate import StudyEstimate, estimate_study
from fairpanel.studies._load import config_from_run, load_study, study_name
from fairpanel.studies._registry import STUDIES, build_study
from fairpanel.studies._results import render_study_tables, write_study_results
from fairpanel.studies._runner import StudySummary, run_study

__all__ = [
    "STUDIES",
    "AwardAudit",
    "AwardAuditConfig",
    "AwardGroups",
    "AwardItem",
    "BankItem",
    "BbqItem",
    "BbqSet",
    "BfbItem",
    "BfbJudge",
    "BfbResponder",
    "BfbTreatment",
    "BiasFreeBench",
    "BiasFreeBenchConfig",
    "FollowupConfig",
    "ItemBank",
    "ItemFailedError",
    "ItemSpec",
    "ModelPool",
    "ModelUse",
    "PlannedCall",
    "ResolvedModel",
    "Role",
    "Study",
    "StudyConfig",
    "StudyContext",
    "StudyEstimate",
    "StudySummary",
    "answer_vectors",
    "award_prompt",
    "bias_free_score",
    "binomial_split",
    "bonferroni",
    "build_study",
    "config_from_run",
    "equivocal_spread",
    "estimate_command",
    "estimate_study",
    "followup_independence",
    "judge_instruction",
    "load_bank",
    "load_bbq",
    "load_study",
    "majority",
    "paired_difference",
    "parse_coding",
    "parse_judgment",
    "read_choice",
    "render_study_tables",
    "report_command",
    "result_table",
    "run_command",
    "run_study",
    "stratified_subset",
    "study_name",
    "write_study_results",
]
