"""Studies other than the judge panel, run on the same engine from a YAML file.

A study file has a ``study:`` field naming one of ``STUDIES``. The framework every study shares
(``Study``, ``StudyConfig``, ``ItemSpec``, ``StudyContext``, the runner, identity-labelled pairs)
lives here; each study is a subpackage with the same module names in each
(``_config``, ``_design``, ``_prompts``, ``_stats``, ``_study``, ``_tables``, and the study's
own page in ``_readers``, ``_report``, ``_figures``):
``award_audit``, ``bscore``, ``label_bias``, ``biasfreebench`` and ``judge_bias``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from fairpanel.studies._context import ModelPool, StudyContext
    from fairpanel.studies._estimate import StudyEstimate, estimate_study
    from fairpanel.studies._load import config_from_run, load_study, study_name
    from fairpanel.studies._pairs import Arrangement, PairSource, pair_prompt, read_verdict
    from fairpanel.studies._registry import STUDIES, build_study
    from fairpanel.studies._results import study_results, write_study_results
    from fairpanel.studies._runner import StudySummary, run_study
    from fairpanel.studies.label_bias._runs import (
        LABEL_BIAS_FILE,
        LABEL_BIAS_REPORT,
        Calibration,
        label_bias_of_run,
        write_label_bias,
        write_label_bias_report,
    )


__all__ = [
    "LABEL_BIAS_FILE",
    "LABEL_BIAS_REPORT",
    "STUDIES",
    "Arrangement",
    "Calibration",
    "ItemFailedError",
    "ItemSpec",
    "ModelPool",
    "ModelUse",
    "PairSource",
    "PlannedCall",
    "ResolvedModel",
    "Role",
    "Study",
    "StudyConfig",
    "StudyContext",
    "StudyEstimate",
    "StudySummary",
    "build_study",
    "config_from_run",
    "estimate_study",
    "label_bias_of_run",
    "load_study",
    "pair_prompt",
    "read_verdict",
    "result_table",
    "run_study",
    "study_name",
    "study_results",
    "write_label_bias",
    "write_label_bias_report",
    "write_study_results",
]

_HOME: dict[str, str] = {
    **dict.fromkeys(
        (
            "ItemFailedError",
            "ItemSpec",
            "ModelUse",
            "PlannedCall",
            "ResolvedModel",
            "Role",
            "Study",
            "StudyConfig",
            "result_table",
        ),
        "fairpanel.studies._base",
    ),
    **dict.fromkeys(
        (
            "ModelPool",
            "StudyContext",
        ),
        "fairpanel.studies._context",
    ),
    **dict.fromkeys(
        (
            "StudyEstimate",
            "estimate_study",
        ),
        "fairpanel.studies._estimate",
    ),
    **dict.fromkeys(
        (
            "config_from_run",
            "load_study",
            "study_name",
        ),
        "fairpanel.studies._load",
    ),
    **dict.fromkeys(
        (
            "Arrangement",
            "PairSource",
            "pair_prompt",
            "read_verdict",
        ),
        "fairpanel.studies._pairs",
    ),
    **dict.fromkeys(
        (
            "STUDIES",
            "build_study",
        ),
        "fairpanel.studies._registry",
    ),
    **dict.fromkeys(
        (
            "study_results",
            "write_study_results",
        ),
        "fairpanel.studies._results",
    ),
    **dict.fromkeys(
        (
            "StudySummary",
            "run_study",
        ),
        "fairpanel.studies._runner",
    ),
    **dict.fromkeys(
        (
            "LABEL_BIAS_FILE",
            "LABEL_BIAS_REPORT",
            "Calibration",
            "label_bias_of_run",
            "write_label_bias",
            "write_label_bias_report",
        ),
        "fairpanel.studies.label_bias._runs",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
