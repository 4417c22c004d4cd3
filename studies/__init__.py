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
from fairpanel.studies._bscore_config import BscoreConfig, QuestionSet, VerificationConfig
from fairpanel.studies._bscore_data import Question, listed_options, load_questions
from fairpanel.studies._bscore_design import BscoreItem, call_replicate, option_order
from fairpanel.studies._bscore_prompts import extract_choice, parse_confidence, shown_question
from fairpanel.studies._bscore_stats import (
    VerificationSample,
    answer_distribution,
    b_scores,
    run_statistics,
    search_cascade,
    search_threshold,
    should_accept,
    threshold_grid,
    top_choice,
    verification_accuracy,
)
from fairpanel.studies._bscore_study import Bscore
from fairpanel.studies._cli import estimate_command, report_command, run_command
from fairpanel.studies._context import ModelPool, StudyContext
from fairpanel.studies._estimate import StudyEstimate, estimate_study
from fairpanel.studies._labelbias_config import LabelBiasConfig
from fairpanel.studies._labelbias_runs import label_bias_command, label_bias_of_run
from fairpanel.studies._labelbias_stats import (
    LabelOutcome,
    bias_score,
    calibrate,
    class_accuracies,
    label_aware_mean,
    label_bias_view,
    leave_one_out_priors,
    rsd,
)
from fairpanel.studies._labelbias_study import LabelBias, LabelBiasItem
from fairpanel.studies._load import config_from_run, load_study, study_name
from fairpanel.studies._pairs import Arrangement, PairSource, pair_prompt, read_verdict
from fairpanel.studies._registry import STUDIES, build_study
from fairpanel.studies._results import render_study_tables, write_study_results
from fairpanel.studies._runner import StudySummary, run_study

__all__ = [
    "STUDIES",
    "Arrangement",
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
    "Bscore",
    "BscoreConfig",
    "BscoreItem",
    "FollowupConfig",
    "ItemBank",
    "ItemFailedError",
    "ItemSpec",
    "LabelBias",
    "LabelBiasConfig",
    "LabelBiasItem",
    "LabelOutcome",
    "ModelPool",
    "ModelUse",
    "PairSource",
    "PlannedCall",
    "Question",
    "QuestionSet",
    "ResolvedModel",
    "Role",
    "Study",
    "StudyConfig",
    "StudyContext",
    "StudyEstimate",
    "StudySummary",
    "VerificationConfig",
    "VerificationSample",
    "answer_distribution",
    "answer_vectors",
    "award_prompt",
    "b_scores",
    "bias_free_score",
    "bias_score",
    "binomial_split",
    "bonferroni",
    "build_study",
    "calibrate",
    "call_replicate",
    "class_accuracies",
    "config_from_run",
    "equivocal_spread",
    "estimate_command",
    "estimate_study",
    "extract_choice",
    "followup_independence",
    "judge_instruction",
    "label_aware_mean",
    "label_bias_command",
    "label_bias_of_run",
    "label_bias_view",
    "leave_one_out_priors",
    "listed_options",
    "load_bank",
    "load_bbq",
    "load_questions",
    "load_study",
    "majority",
    "option_order",
    "pair_prompt",
    "paired_difference",
    "parse_coding",
    "parse_confidence",
    "parse_judgment",
    "read_choice",
    "read_verdict",
    "render_study_tables",
    "report_command",
    "result_table",
    "rsd",
    "run_command",
    "run_statistics",
    "run_study",
    "search_cascade",
    "search_threshold",
    "should_accept",
    "shown_question",
    "stratified_subset",
    "study_name",
    "threshold_grid",
    "top_choice",
    "verification_accuracy",
    "write_study_results",
]
