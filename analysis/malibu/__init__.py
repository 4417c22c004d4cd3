"""MALIBU's own tables, replicated: mean scores and their difference matrix, chi-square of
score levels by identity, win rates among decided pairs, and Bradley-Terry abilities.
"""

from fairpanel.analysis.malibu._bradley_terry import DEFAULT_BT_BOOTSTRAP, bradley_terry
from fairpanel.analysis.malibu._chisq import ChiSquareResult, chi_square_tests
from fairpanel.analysis.malibu._distribution import (
    MIN_INTERVAL_N,
    ScoreDistributionCell,
    baseline_scores,
    mean_interval,
    score_distribution,
)
from fairpanel.analysis.malibu._scores import (
    ScoreDifferenceMatrix,
    mean_scores,
    mean_scores_records,
    score_difference_matrix,
)
from fairpanel.analysis.malibu._win_rates import WinRate, no_preference_level, win_rates

__all__ = [
    "DEFAULT_BT_BOOTSTRAP",
    "MIN_INTERVAL_N",
    "ChiSquareResult",
    "ScoreDifferenceMatrix",
    "ScoreDistributionCell",
    "WinRate",
    "baseline_scores",
    "bradley_terry",
    "chi_square_tests",
    "mean_interval",
    "mean_scores",
    "mean_scores_records",
    "no_preference_level",
    "score_difference_matrix",
    "score_distribution",
    "win_rates",
]
