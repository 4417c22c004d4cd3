"""Power of the cluster t test over base scenarios: the smallest shift a design finds in 80% of
runs, and the number of base scenarios a shift needs.

The headline tests each contrast with a one-sample t test on base-scenario means, so its power
is the noncentral t's: statsmodels' ``TTestPower`` solves it in units of the spread of those
means (Cohen's d). A verdict that says "no effect" is only as useful as the shift it could have
found, and a design is only worth paying for if its bases can find the shift that matters.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from statsmodels.stats.power import TTestPower

from fairpanel.analysis.tools._cluster import MIN_BASES

__all__ = ["DEFAULT_POWER", "bases_for_power", "minimum_detectable_effect"]

DEFAULT_POWER = 0.8


def minimum_detectable_effect(
    spread: float, bases: int, *, alpha: float, power: float = DEFAULT_POWER
) -> float | None:
    """The shift (in the contrast's own units) a two-sided t test at ``alpha`` over ``bases``
    base-scenario means of sd ``spread`` finds with probability ``power``; None when no test
    is run (fewer than ``MIN_BASES`` bases) or the spread is unknown."""
    if bases < MIN_BASES or not math.isfinite(spread) or spread < 0:
        return None
    if spread == 0:
        return 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels warns on its own root-finder fallbacks
        effect_size = TTestPower().solve_power(
            effect_size=None, nobs=bases, alpha=alpha, power=power, alternative="two-sided"
        )
    # A one-element array when statsmodels fell back to its second root finder.
    return float(np.asarray(effect_size).item()) * spread


def bases_for_power(
    shift: float, spread: float, *, alpha: float, power: float = DEFAULT_POWER
) -> int | None:
    """How many base scenarios a two-sided t test at ``alpha`` needs to find ``shift`` with
    probability ``power`` when base means spread with sd ``spread``; never fewer than
    ``MIN_BASES``; None when the shift is not positive or the spread unknown."""
    if shift <= 0 or not math.isfinite(spread) or spread < 0:
        return None
    if spread == 0:
        return MIN_BASES
    effect_size = shift / spread
    test = TTestPower()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels warns when its root finder fails
        needed = float(
            test.solve_power(
                effect_size=effect_size,
                nobs=None,
                alpha=alpha,
                power=power,
                alternative="two-sided",
            )
        )
        if not math.isfinite(needed):
            # The root finder fails (NaN) when the answer lies near or below a few bases:
            # count up from the fewest bases tested instead.
            needed = MIN_BASES
            while (
                test.power(
                    effect_size=effect_size, nobs=needed, alpha=alpha, alternative="two-sided"
                )
                < power
            ):
                needed += 1
    return max(MIN_BASES, math.ceil(needed))
