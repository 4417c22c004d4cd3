"""How the panel's judges behaved: their agreement (Krippendorff's alpha), what the debate
did to their scores, and how often their answers failed to parse.
"""

from fairpanel.analysis.judges._agreement import agreement, krippendorff_alpha
from fairpanel.analysis.judges._debate import conformity, debate, debate_shift
from fairpanel.analysis.judges._failures import (
    FailureRate,
    failure_rates,
    failure_rates_by_identity,
    parse_flags,
)

__all__ = [
    "FailureRate",
    "agreement",
    "conformity",
    "debate",
    "debate_shift",
    "failure_rates",
    "failure_rates_by_identity",
    "krippendorff_alpha",
    "parse_flags",
]
