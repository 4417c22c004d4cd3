"""How often is a verdict wrong? Simulated false-call rates and power of the identity
headline and of the panel comparison, with the design size that reaches a target power, and
where a primary contrast's noise comes from (between or within base scenarios) for planning one.
"""

from fairpanel.analysis.calibration._components import (
    POOLED,
    AnovaSums,
    VarianceComponents,
    anova_sums,
    contrast_components,
    pooled,
)
from fairpanel.analysis.calibration._identity import (
    RECOMMEND_SIZE,
    TARGET_POWER,
    calibration_tables,
    identity_test_outcomes,
)
from fairpanel.analysis.calibration._panels import panel_calibration_tables, panel_test_outcomes

__all__ = [
    "POOLED",
    "RECOMMEND_SIZE",
    "TARGET_POWER",
    "AnovaSums",
    "VarianceComponents",
    "anova_sums",
    "calibration_tables",
    "contrast_components",
    "identity_test_outcomes",
    "panel_calibration_tables",
    "panel_test_outcomes",
    "pooled",
]
