"""Intervals for a binomial proportion, the two every rate in fairpanel is shown with.

Wilson's score interval (statsmodels) for rates read off a run, where the Wald interval
undercovers at the small counts and extreme rates a short run produces; the exact
Clopper-Pearson interval (scipy) for simulated error rates, whose coverage must hold at any count
because a calibration claim rests on it.
"""

from __future__ import annotations

from typing import Any

from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint

__all__ = ["clopper_pearson", "exact_rate", "wilson_interval"]


def wilson_interval(successes: int, trials: int, confidence: float) -> tuple[float, float]:
    """Wilson score interval for ``successes / trials`` as plain floats."""
    low, high = proportion_confint(successes, trials, alpha=1.0 - confidence, method="wilson")
    return float(low), float(high)


def clopper_pearson(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact binomial interval (scipy's binomtest, method 'exact'); (0, 1) without trials."""
    if trials == 0:
        return (0.0, 1.0)
    interval = binomtest(successes, trials).proportion_ci(
        confidence_level=confidence, method="exact"
    )
    return float(interval.low), float(interval.high)


def exact_rate(successes: int, trials: int, confidence: float = 0.95) -> dict[str, Any]:
    """A simulated rate as the calibration tables report it: the share, its Clopper-Pearson
    interval and the counts it rests on (``rate`` None without trials)."""
    low, high = clopper_pearson(successes, trials, confidence)
    return {
        "rate": successes / trials if trials else None,
        "ci_low": low,
        "ci_high": high,
        "k": successes,
        "n": trials,
    }
