"""Label bias (seed 001): how far a judge's verdict labels lean, and calibration against it.

Label bias over another run's stored verdicts (``label_bias_of_run``) reads run folders of any
study, so it sits above the registry and is exported by ``fairpanel.studies``.

Names load from their modules on first use, so estimating a study's file loads neither its
statistics nor its report's figures.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairpanel.studies.label_bias._config import LabelBiasConfig, LabelJudge
    from fairpanel.studies.label_bias._report import label_bias_report
    from fairpanel.studies.label_bias._stats import (
        LabelOutcome,
        bias_score,
        calibrate,
        class_accuracies,
        label_aware_mean,
        label_bias_view,
        label_metrics,
        leave_one_out_priors,
        rsd,
        smoothed,
    )
    from fairpanel.studies.label_bias._study import LabelBias, LabelBiasItem
    from fairpanel.studies.label_bias._views import (
        LEVELS,
        PROBABILITY_METHOD,
        label_bias_tables,
        shares,
        verdict_outcome,
    )

__all__ = [
    "LEVELS",
    "PROBABILITY_METHOD",
    "LabelBias",
    "LabelBiasConfig",
    "LabelBiasItem",
    "LabelJudge",
    "LabelOutcome",
    "bias_score",
    "calibrate",
    "class_accuracies",
    "label_aware_mean",
    "label_bias_report",
    "label_bias_tables",
    "label_bias_view",
    "label_metrics",
    "leave_one_out_priors",
    "rsd",
    "shares",
    "smoothed",
    "verdict_outcome",
]

_HOME: dict[str, str] = {
    **dict.fromkeys(
        (
            "LabelBiasConfig",
            "LabelJudge",
        ),
        "fairpanel.studies.label_bias._config",
    ),
    **dict.fromkeys(("label_bias_report",), "fairpanel.studies.label_bias._report"),
    **dict.fromkeys(
        (
            "LabelOutcome",
            "bias_score",
            "calibrate",
            "class_accuracies",
            "label_aware_mean",
            "label_bias_view",
            "label_metrics",
            "leave_one_out_priors",
            "rsd",
            "smoothed",
        ),
        "fairpanel.studies.label_bias._stats",
    ),
    **dict.fromkeys(
        (
            "LabelBias",
            "LabelBiasItem",
        ),
        "fairpanel.studies.label_bias._study",
    ),
    **dict.fromkeys(
        (
            "LEVELS",
            "PROBABILITY_METHOD",
            "label_bias_tables",
            "shares",
            "verdict_outcome",
        ),
        "fairpanel.studies.label_bias._views",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
