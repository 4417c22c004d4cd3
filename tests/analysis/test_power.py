"""The cluster t test's power, checked against the noncentral t computed from its definition
and against the planning rule of thumb (n = 7.85 s^2 / D^2 + 2)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from fairpanel.analysis.tools import MIN_BASES, bases_for_power, minimum_detectable_effect


def _power(shift: float, spread: float, bases: int, alpha: float) -> float:
    """Two-sided one-sample t test's power, from the noncentral t distribution."""
    df = bases - 1
    critical = stats.t.ppf(1 - alpha / 2, df)
    noncentrality = shift / spread * np.sqrt(bases)
    return float(
        stats.nct.sf(critical, df, noncentrality) + stats.nct.cdf(-critical, df, noncentrality)
    )


@pytest.mark.parametrize(
    ("spread", "bases", "alpha"),
    [(0.45, 15, 0.05), (0.7, 29, 0.05), (0.3, 85, 0.025), (1.0, 5, 0.05)],
)
def test_the_stated_shift_is_found_in_80_percent_of_runs(
    spread: float, bases: int, alpha: float
) -> None:
    shift = minimum_detectable_effect(spread, bases, alpha=alpha)
    assert shift is not None
    assert _power(shift, spread, bases, alpha) == pytest.approx(0.8, abs=1e-4)


def test_mde_scales_with_the_spread_and_shrinks_with_bases() -> None:
    one = minimum_detectable_effect(0.5, 20, alpha=0.05)
    assert one is not None
    assert minimum_detectable_effect(1.0, 20, alpha=0.05) == pytest.approx(2 * one)
    more = minimum_detectable_effect(0.5, 80, alpha=0.05)
    assert more is not None and more < one
    assert minimum_detectable_effect(0.5, 20, alpha=0.01) > one  # type: ignore[operator]


def test_the_rule_of_thumb_and_the_exact_answer_agree() -> None:
    # n = 7.85 s^2 / D^2 + 2 is the normal approximation plus two for the t's heavier tails.
    for spread in (0.45, 0.6, 0.8):
        rule = 7.85 * spread**2 / 0.25**2 + 2
        exact = bases_for_power(0.25, spread, alpha=0.05)
        assert exact is not None
        assert abs(exact - rule) <= 1.5
        assert _power(0.25, spread, exact, 0.05) >= 0.8 > _power(0.25, spread, exact - 1, 0.05)


def test_no_test_means_no_mde() -> None:
    assert minimum_detectable_effect(0.5, MIN_BASES - 1, alpha=0.05) is None
    assert minimum_detectable_effect(float("nan"), 20, alpha=0.05) is None
    assert bases_for_power(0.0, 0.5, alpha=0.05) is None
    assert bases_for_power(0.25, 0.0, alpha=0.05) == MIN_BASES


def test_a_shift_far_above_the_spread_needs_the_fewest_bases() -> None:
    # statsmodels' root finder returns NaN for a sample size far below MIN_BASES.
    assert bases_for_power(0.25, 0.04, alpha=0.025) == MIN_BASES
    assert bases_for_power(0.25, 0.12, alpha=0.025) == MIN_BASES  # 81% at 5
    assert bases_for_power(0.25, 0.125, alpha=0.025) == MIN_BASES + 1  # 78% at 5


@pytest.mark.parametrize(("bases", "alpha"), [(38, 0.002), (73, 0.05)])
def test_the_mde_is_a_number_when_statsmodels_falls_back(bases: int, alpha: float) -> None:
    # statsmodels' fallback root finder returns a one-element array at these sizes.
    found = minimum_detectable_effect(1.0, bases, alpha=alpha)
    assert isinstance(found, float)
    assert _power(found, 1.0, bases, alpha) == pytest.approx(0.8, abs=1e-6)
