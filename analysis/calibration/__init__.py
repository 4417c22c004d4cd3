"""How often is a verdict wrong? Simulated false-call rates and power of the identity
headline and of the panel comparison, with the design size that reaches a target power.
"""

from fairpanel.analysis.calibration._identity import (
    TARGET_POWER,
    calibration_tables,
    identity_test_outcomes,
)
from fairpanel.analysis.calibration._panels import panel_calibration_tables, panel_test_outcomes

__all__ = [
    "TARGET_POWER",
    "calibration_tables",
    "identity_test_outcomes",
    "panel_calibration_tables",
    "panel_test_outcomes",
]
