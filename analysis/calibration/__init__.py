"""How often is a verdict wrong? Simulated false-call rates and power of the identity
headline and of the panel comparison, with the design size that reaches a target power, and
where a primary contrast's noise comes from (between or within base scenarios) for planning one.

Names load from their modules on first use: the targets are plain numbers a command line's
defaults read without loading the statistics.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairpanel.analysis.calibration._components import (
        POOLED,
        AnovaSums,
        VarianceComponents,
        anova_sums,
        contrast_components,
        pooled,
    )
    from fairpanel.analysis.calibration._identity import (
        calibration_tables,
        identity_test_outcomes,
    )
    from fairpanel.analysis.calibration._panels import (
        panel_calibration_tables,
        panel_test_outcomes,
    )
    from fairpanel.analysis.calibration._targets import RECOMMEND_SIZE, TARGET_POWER

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

_HOME: dict[str, str] = {
    **dict.fromkeys(
        (
            "POOLED",
            "AnovaSums",
            "VarianceComponents",
            "anova_sums",
            "contrast_components",
            "pooled",
        ),
        "fairpanel.analysis.calibration._components",
    ),
    **dict.fromkeys(
        ("calibration_tables", "identity_test_outcomes"),
        "fairpanel.analysis.calibration._identity",
    ),
    **dict.fromkeys(
        ("panel_calibration_tables", "panel_test_outcomes"),
        "fairpanel.analysis.calibration._panels",
    ),
    **dict.fromkeys(("RECOMMEND_SIZE", "TARGET_POWER"), "fairpanel.analysis.calibration._targets"),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
