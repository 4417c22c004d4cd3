"""B-score (seed 000): a judge's answers alone versus with its own history.

Names load from their modules on first use, so estimating a study's file loads neither its
statistics nor its report's figures.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_HOME: dict[str, str] = {
    **dict.fromkeys(("analyze_bscore",), "fairpanel.studies.bscore._analysis"),
    **dict.fromkeys(
        (
            "BscoreConfig",
            "BscoreModel",
            "QuestionSet",
            "VerificationConfig",
        ),
        "fairpanel.studies.bscore._config",
    ),
    **dict.fromkeys(
        (
            "Annotations",
            "AnswerNote",
            "Question",
            "builtin_answers_path",
            "builtin_questions_path",
            "files_digest",
            "listed_options",
            "load_questions",
        ),
        "fairpanel.studies.bscore._data",
    ),
    **dict.fromkeys(
        (
            "PROMPT_VERSION",
            "BscoreItem",
            "Phase",
            "call_replicate",
            "iter_bscore_items",
            "option_order",
            "shown_arrangement",
        ),
        "fairpanel.studies.bscore._design",
    ),
    **dict.fromkeys(
        (
            "CHOICE_SUFFIX",
            "CONFIDENCE_QUESTION",
            "Extraction",
            "extract_choice",
            "parse_confidence",
            "seeded_rng",
            "shown_question",
        ),
        "fairpanel.studies.bscore._prompts",
    ),
    **dict.fromkeys(("bscore_report",), "fairpanel.studies.bscore._report"),
    **dict.fromkeys(
        (
            "VerificationSample",
            "answer_distribution",
            "b_scores",
            "mean_of_means_interval",
            "run_statistics",
            "search_cascade",
            "search_threshold",
            "should_accept",
            "threshold_grid",
            "top_choice",
            "verification_accuracy",
        ),
        "fairpanel.studies.bscore._stats",
    ),
    **dict.fromkeys(("Bscore",), "fairpanel.studies.bscore._study"),
    **dict.fromkeys(("bscore_tables",), "fairpanel.studies.bscore._tables"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
