"""Variance components of the primary contrasts: the method-of-moments ANOVA checked against
statsmodels' REML fit of the same one-way random-effects model (equal on balanced data), against
the n0 of an unbalanced design computed by hand, and against the sds planted in frames."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from helpers.panel_data import Design, PanelSpec, panel_frames

from fairpanel.analysis import VarianceComponents, contrast_components
from fairpanel.analysis.calibration import POOLED, anova_sums
from fairpanel.analysis.tools import cluster_means
from fairpanel.analysis.verdict import contrast_units


def _reml(values: np.ndarray, clusters: np.ndarray) -> tuple[float, float]:
    """sigma_b and sigma_w of the one-way random-effects model, fitted by REML."""
    data = pd.DataFrame({"y": values, "base": clusters})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = smf.mixedlm("y ~ 1", data, groups=data["base"]).fit(reml=True)
    return math.sqrt(float(fit.cov_re.iloc[0, 0])), math.sqrt(float(fit.scale))


def _components(values: np.ndarray, clusters: np.ndarray) -> VarianceComponents:
    return VarianceComponents.from_sums([anova_sums(values, clusters)], protocol="single")


@pytest.mark.parametrize(
    ("between", "within", "bases", "per_base"), [(0.5, 1.0, 30, 5), (0.3, 1.0, 60, 2)]
)
def test_balanced_anova_equals_reml(
    between: float, within: float, bases: int, per_base: int
) -> None:
    rng = np.random.default_rng(7)
    clusters = np.repeat(np.arange(bases), per_base).astype(str)
    values = np.repeat(rng.normal(0, between, bases), per_base) + rng.normal(
        0, within, bases * per_base
    )
    found = _components(values, clusters)
    sigma_b, sigma_w = _reml(values, clusters)
    assert found.between_sd > 0  # untruncated, where the two estimators coincide
    assert found.between_sd == pytest.approx(sigma_b, rel=1e-3)
    assert found.within_sd == pytest.approx(sigma_w, rel=1e-3)
    assert found.units_per_base == per_base
    assert found.base_means_sd == pytest.approx(
        float(np.std(cluster_means(values, clusters), ddof=1))
    )
    # s_D^2 = sigma_b^2 + sigma_w^2 / k is the expected variance of a base mean: on balanced
    # data the ANOVA's estimate of it is exactly the observed one.
    assert found.spread(per_base) == pytest.approx(found.base_means_sd)


def test_the_truth_is_recovered_from_a_large_sample() -> None:
    rng = np.random.default_rng(3)
    bases, per_base = 2000, 4
    clusters = np.repeat(np.arange(bases), per_base)
    values = np.repeat(rng.normal(0, 0.3, bases), per_base) + rng.normal(0, 1.2, bases * per_base)
    found = _components(values, clusters)
    assert found.between_sd == pytest.approx(0.3, abs=0.03)
    assert found.within_sd == pytest.approx(1.2, abs=0.02)


def test_unbalanced_sums_by_hand() -> None:
    clusters = np.array(["a"] * 2 + ["b"] * 3 + ["c"] * 5)
    values = np.array([1.0, 3.0, 0.0, 1.0, 2.0, 4.0, 5.0, 6.0, 3.0, 2.0])
    sums = anova_sums(values, clusters)
    counts = np.array([2, 3, 5])
    means = np.array([2.0, 1.0, 4.0])
    grand = values.mean()
    assert sums.n0 == pytest.approx((10 - (counts**2).sum() / 10) / 2)
    assert sums.between == pytest.approx(float((counts * (means - grand) ** 2).sum()))
    within = sum(
        ((values[clusters == c] - m) ** 2).sum() for c, m in zip("abc", means, strict=True)
    )
    assert sums.within == pytest.approx(within)
    found = VarianceComponents.from_sums([sums], protocol="single")
    assert found.within_sd**2 == pytest.approx(within / 7)
    assert found.between_sd**2 == pytest.approx(max(0.0, (sums.between / 2 - within / 7) / sums.n0))


def test_frames_give_each_primary_contrast_its_planted_spread() -> None:
    """Frames whose single contrast varies between bases with sd 0.4 and whose judges' noise is
    known: the components recover both, agree with REML on the very units the verdict averages,
    and the pooled row of a one-contrast protocol is that contrast's."""
    design = Design(bases=120, per_base=4, scenario_sd=0.4, label_sd=1.0)
    frames = panel_frames(11, {"a": PanelSpec(noise=1.0, flip=0.0)}, design)["a"]
    rows = {(row.protocol, row.contrast): row for row in contrast_components(frames)}
    assert set(rows) == {
        ("single", "female - male"),
        ("single", POOLED),
        ("pair", "female - male"),
        ("pair", POOLED),
    }
    single = rows["single", "female - male"]
    assert single.bases == 120 and single.units_per_base == 8  # 4 derived x 2 responses
    assert single.between_sd == pytest.approx(0.4, abs=0.08)
    # Three judges' mean of a score with noise sd 1 and rounding, differenced: sd ~0.85.
    assert single.within_sd == pytest.approx(math.sqrt(2 * (1 + 1 / 12) / 3), rel=0.1)
    for protocol in ("single", "pair"):
        units, _ = contrast_units(frames, (protocol, "gender", "female", "male"))
        values = units["difference"].to_numpy(dtype=float)
        clusters = units["base_id"].to_numpy()
        sigma_b, sigma_w = _reml(values, clusters)
        row = rows[protocol, "female - male"]
        assert row.between_sd == pytest.approx(sigma_b, rel=0.02, abs=1e-3)
        assert row.within_sd == pytest.approx(sigma_w, rel=0.02)
        assert rows[protocol, POOLED].between_sd == pytest.approx(row.between_sd)
        assert rows[protocol, POOLED].within_sd == pytest.approx(row.within_sd)
    assert rows["pair", "female - male"].between_sd > 0


def test_pooling_weighs_contrasts_by_their_degrees_of_freedom() -> None:
    rng = np.random.default_rng(5)
    clusters = np.repeat(np.arange(400), 3)
    first, second = (
        np.repeat(rng.normal(0, 0.4, 400), 3) + rng.normal(0, 1.0, 1200) for _ in range(2)
    )
    sums = [anova_sums(first, clusters), anova_sums(second, clusters)]
    one = VarianceComponents.from_sums(sums[:1], protocol="single")
    assert VarianceComponents.from_sums(sums[:1] * 2, protocol="single").within_sd == one.within_sd
    both = VarianceComponents.from_sums(sums, protocol="single")
    assert both.within_sd**2 == pytest.approx(
        (sums[0].within + sums[1].within) / (sums[0].within_df + sums[1].within_df)
    )
    assert both.between_sd == pytest.approx(0.4, abs=0.05)
    assert both.within_sd == pytest.approx(1.0, abs=0.03)


def test_one_unit_per_base_cannot_split_the_noise() -> None:
    found = _components(np.array([0.1, -0.4, 0.7, 0.2, -0.1]), np.arange(5))
    assert math.isnan(found.within_sd) and math.isnan(found.between_sd)
    assert found.base_means_sd > 0
    row = found.to_dict()
    assert row["within_sd"] is None and row["between_share"] is None  # JSON without NaN
