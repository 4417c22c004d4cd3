"""The pieces under the panel comparison's bootstrap: Krippendorff's alpha as a sum over base
scenarios (against the krippendorff package), and the expanded percentile interval and p."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairpanel.analysis.panels._agreement import AGREEMENT_MEASURES, Coincidences, Level, alpha_of
from fairpanel.analysis.tools._resample import (
    bootstrap_cluster_means,
    cluster_draws,
    expanded_interval,
    expanded_p_value,
)


def _ratings(seed: int, levels: list[float]) -> pd.DataFrame:
    """Three judges rate units of six bases; a tenth of the ratings are missing."""
    rng = np.random.default_rng(seed)
    rows = []
    for base in range(6):
        for unit in range(25):
            truth = rng.integers(0, len(levels))
            for judge in ("x", "y", "z"):
                if rng.random() < 0.1:
                    continue
                level = int(np.clip(truth + rng.integers(-1, 2), 0, len(levels) - 1))
                rows.append(
                    {
                        "base_id": f"b{base}",
                        "trial_key": f"t{base}-{unit}",
                        "position": 0,
                        "metric": "accuracy",
                        "judge": judge,
                        "score": levels[level],
                    }
                )
    return pd.DataFrame(rows)


@pytest.mark.parametrize("level", ["ordinal", "nominal"])
def test_alpha_summed_over_bases_is_the_krippendorff_package(level: Level) -> None:
    levels = [0.0, 2.0, 3.0, 7.0, 10.0]  # gaps in the scale, as real scores have
    ratings = _ratings(1, levels)
    wide = ratings.pivot_table(index="judge", columns="trial_key", values="score")
    expected = krippendorff.alpha(wide.to_numpy(dtype=float), level_of_measurement=level)
    # A wider domain than the values used (another panel's values) changes nothing.
    coincidences = Coincidences.of(ratings, AGREEMENT_MEASURES[0], [*levels, 11.0])
    assert coincidences.bases == tuple(f"b{i}" for i in range(6))
    total = coincidences.matrices.sum(axis=0)
    assert float(alpha_of(total, level)) == pytest.approx(expected, abs=1e-12)
    # Any resample of bases is the alpha of the rows of the drawn bases, duplicates included.
    counts = cluster_draws(6, 3, np.random.default_rng(2))
    for draw in counts:
        parts = []
        for base in range(6):
            mine = ratings.loc[ratings["base_id"] == f"b{base}"]
            for copy in range(draw[base]):
                parts.append(mine.assign(trial_key=mine["trial_key"] + f"#{copy}"))
        rows = pd.concat(parts)
        wide = rows.pivot_table(index="judge", columns="trial_key", values="score")
        expected = krippendorff.alpha(wide.to_numpy(dtype=float), level_of_measurement=level)
        resampled = np.tensordot(draw.astype(float), coincidences.matrices, axes=1)
        assert float(alpha_of(resampled, level)) == pytest.approx(expected, abs=1e-12)


def test_the_expanded_interval_and_p_are_the_t_test_for_normal_replicates() -> None:
    """Replicates drawn N(0.3, 0.1) from k = 10 bases: the interval is 0.3 +- sqrt(10 / 9)
    t_9 x 0.1, and p reads the share below 0 as z = 3, t = 3 sqrt(9 / 10), on 9 df."""
    replicates = np.random.default_rng(3).normal(0.3, 0.1, 400_000)
    interval = expanded_interval(replicates, 0.95, 10)
    half = np.sqrt(10 / 9) * stats.t.ppf(0.975, 9) * 0.1
    assert (interval.low, interval.high) == pytest.approx((0.3 - half, 0.3 + half), abs=3e-3)
    expected = 2 * stats.t.sf(3 * np.sqrt(9 / 10), 9)
    assert expanded_p_value(replicates, 10) == pytest.approx(expected, rel=0.05)
    assert expanded_p_value(-replicates, 10) == pytest.approx(expected, rel=0.05)
    assert expanded_p_value(np.zeros(100), 10) == 1.0


def test_beyond_the_resamples_the_p_value_reads_their_mean_and_spread() -> None:
    """2,000 replicates N(0.5, 0.1): none lies below 0, so their share only bounds p (about
    0.007 on 15 bases); the p read from z = 5 goes on falling with the distance to 0, and
    agrees with the share's reading where both are defined (z = 2.5: about 12 of 2,000 below
    0 is under TAIL_RESAMPLES, so read parametrically; z = 2: about 46, read from the share)."""
    rng = np.random.default_rng(5)
    far = rng.normal(0.5, 0.1, 2000)
    expected = 2 * stats.t.sf(5 * np.sqrt(14 / 15), 14)
    # (z itself is estimated from 2,000 draws: within about 2%, so p within about 35%.)
    assert expanded_p_value(far, 15) == pytest.approx(expected, rel=0.35)
    floor = 2 * stats.t.sf(stats.norm.isf(1 / 2001) * np.sqrt(14 / 15), 14)
    assert floor == pytest.approx(0.0067, abs=0.0005)
    assert expanded_p_value(far, 15) < floor / 10
    for z in (2.5, 2.0):
        draws = rng.normal(z * 0.1, 0.1, 2000)
        reference = 2 * stats.t.sf(z * np.sqrt(14 / 15), 14)
        assert expanded_p_value(draws, 15) == pytest.approx(reference, rel=0.35)


def test_the_bootstrap_beside_the_t_interval_has_its_width_for_normal_base_means() -> None:
    means = np.random.default_rng(4).normal(0.2, 0.5, 12)
    reference = stats.ttest_1samp(means, 0.0).confidence_interval(0.95)
    interval = bootstrap_cluster_means(means, seed=5, n_boot=20_000)
    assert interval.low is not None and interval.high is not None
    width, t_width = interval.high - interval.low, reference.high - reference.low
    assert width == pytest.approx(t_width, rel=0.1)
    assert interval.low < means.mean() < interval.high
