"""Label bias (seed 001): how far a judge's verdict labels lean, and calibration against it.

Label bias over another run's stored verdicts (``label_bias_of_run``) reads run folders of any
study, so it sits above the registry and is exported by ``fairpanel.studies``.
"""

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
