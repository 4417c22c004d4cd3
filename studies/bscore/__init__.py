"""B-score (seed 000): a judge's answers alone versus with its own history."""

from fairpanel.studies.bscore._analysis import analyze_bscore
from fairpanel.studies.bscore._config import (
    BscoreConfig,
    BscoreModel,
    QuestionSet,
    VerificationConfig,
)
from fairpanel.studies.bscore._data import (
    Annotations,
    AnswerNote,
    Question,
    builtin_answers_path,
    builtin_questions_path,
    files_digest,
    listed_options,
    load_questions,
)
from fairpanel.studies.bscore._design import (
    PROMPT_VERSION,
    BscoreItem,
    Phase,
    call_replicate,
    iter_bscore_items,
    option_order,
    shown_arrangement,
)
from fairpanel.studies.bscore._prompts import (
    CHOICE_SUFFIX,
    CONFIDENCE_QUESTION,
    Extraction,
    extract_choice,
    parse_confidence,
    seeded_rng,
    shown_question,
)
from fairpanel.studies.bscore._report import bscore_report
from fairpanel.studies.bscore._stats import (
    VerificationSample,
    answer_distribution,
    b_scores,
    mean_of_means_interval,
    run_statistics,
    search_cascade,
    search_threshold,
    should_accept,
    threshold_grid,
    top_choice,
    verification_accuracy,
)
from fairpanel.studies.bscore._study import Bscore
from fairpanel.studies.bscore._tables import bscore_tables

__all__ = [
    "CHOICE_SUFFIX",
    "CONFIDENCE_QUESTION",
    "PROMPT_VERSION",
    "Annotations",
    "AnswerNote",
    "Bscore",
    "BscoreConfig",
    "BscoreItem",
    "BscoreModel",
    "Extraction",
    "Phase",
    "Question",
    "QuestionSet",
    "VerificationConfig",
    "VerificationSample",
    "analyze_bscore",
    "answer_distribution",
    "b_scores",
    "bscore_report",
    "bscore_tables",
    "builtin_answers_path",
    "builtin_questions_path",
    "call_replicate",
    "extract_choice",
    "files_digest",
    "iter_bscore_items",
    "listed_options",
    "load_questions",
    "mean_of_means_interval",
    "option_order",
    "parse_confidence",
    "run_statistics",
    "search_cascade",
    "search_threshold",
    "seeded_rng",
    "should_accept",
    "shown_arrangement",
    "shown_question",
    "threshold_grid",
    "top_choice",
    "verification_accuracy",
]
