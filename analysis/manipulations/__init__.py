"""What moves the panel besides identity: manipulations of one answer (the bias profile),
the judges' preference for their own model's answers, and instructions injected into an answer.
"""

from fairpanel.analysis.manipulations._injection import (
    INJECTION_COLUMNS,
    InjectionShift,
    injection_shifts,
    moved_by_injection,
)
from fairpanel.analysis.manipulations._profile import MANIPULATION_COLUMNS, bias_profile
from fairpanel.analysis.manipulations._self_preference import self_preference

__all__ = [
    "INJECTION_COLUMNS",
    "MANIPULATION_COLUMNS",
    "InjectionShift",
    "bias_profile",
    "injection_shifts",
    "moved_by_injection",
    "self_preference",
]
