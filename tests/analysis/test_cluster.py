"""The cluster-level test every contrast rests on, against scipy's one-sample t test on base
means computed independently with pandas."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairpanel.analysis import MIN_BASES, cluster_mean_test


def _reference(values: np.ndarray, clusters: np.ndarray, confidence: float) -> tuple:
    """Per-base means by pandas (NaN skipped by ``mean``), then scipy's t test and interval."""
    frame = pd.DataFrame({"value": values, "base": clusters}).dropna()
    means = frame.groupby("base")["value"].mean().to_numpy()
    result = stats.ttest_1samp(means, 0.0)
    interval = result.confidence_interval(confidence)
    return means, float(result.pvalue), (float(interval.low), float(interval.high))


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_p_and_interval_match_scipy_on_base_means(confidence: float) -> None:
    rng = np.random.default_rng(4)
    # Unequal cluster sizes: the base means must weigh the same, not the units.
    sizes = [1, 2, 7, 3, 5, 9, 2]
    clusters = np.repeat([f"b{i}" for i in range(len(sizes))], sizes)
    values = rng.normal(0.3, 1.0, size=clusters.size) + np.repeat(rng.normal(0, 0.5, 7), sizes)
    test = cluster_mean_test(values, clusters, confidence=confidence)
    means, p_value, (low, high) = _reference(values, clusters, confidence)
    assert test.estimate == pytest.approx(means.mean(), abs=1e-12)
    assert test.estimate != pytest.approx(values.mean(), abs=1e-3)  # not the unit mean
    assert test.p_value == pytest.approx(p_value, rel=1e-10)
    assert (test.ci_low, test.ci_high) == pytest.approx((low, high), rel=1e-10)
    assert (test.n, test.n_clusters, test.reason) == (values.size, 7, None)
    assert f"({7 - 1} df)" in test.describe(confidence)


def test_null_other_than_zero_shifts_the_test_not_the_interval() -> None:
    rng = np.random.default_rng(8)
    clusters = np.repeat([f"b{i}" for i in range(6)], 3)
    values = rng.normal(0.55, 0.1, size=clusters.size)
    test = cluster_mean_test(values, clusters, null=0.5)
    means = pd.Series(values).groupby(clusters).mean().to_numpy()
    assert test.p_value == pytest.approx(float(stats.ttest_1samp(means, 0.5).pvalue), rel=1e-10)
    interval = stats.ttest_1samp(means, 0.5).confidence_interval(0.95)
    assert (test.ci_low, test.ci_high) == pytest.approx((interval.low, interval.high), rel=1e-10)


def test_nan_values_are_dropped_with_their_cluster_label() -> None:
    clusters = np.array(["b0", "b0", "b1", "b1", "b2", "b3", "b4", "b4", "b5"])
    values = np.array([1.0, np.nan, 0.5, -0.2, 0.3, np.nan, 0.9, 0.1, -0.4])
    test = cluster_mean_test(values, clusters)
    means, p_value, (low, high) = _reference(values, clusters, 0.95)
    # b3 has only a NaN: it is not a base scenario of this contrast.
    assert (test.n, test.n_clusters) == (7, 5)
    assert test.estimate == pytest.approx(means.mean())
    assert test.p_value == pytest.approx(p_value, rel=1e-10)
    assert (test.ci_low, test.ci_high) == pytest.approx((low, high), rel=1e-10)


@pytest.mark.parametrize("n_bases", [1, 2, MIN_BASES - 1])
def test_too_few_bases_give_an_estimate_but_no_test(n_bases: int) -> None:
    clusters = np.repeat([f"b{i}" for i in range(n_bases)], 4)
    values = np.linspace(-1.0, 3.0, clusters.size)
    test = cluster_mean_test(values, clusters)
    assert test.p_value is None and test.ci_low is None and test.ci_high is None
    assert test.estimate == pytest.approx(
        pd.Series(values).groupby(clusters).mean().mean(), abs=1e-12
    )
    plural = "" if n_bases == 1 else "s"
    assert test.reason == (
        f"{n_bases} base scenario{plural}: too few to generalise over scenarios (need {MIN_BASES})"
    )
    assert (test.n, test.n_clusters) == (clusters.size, n_bases)


def test_exactly_min_bases_is_tested() -> None:
    clusters = np.repeat([f"b{i}" for i in range(MIN_BASES)], 2)
    values = np.arange(clusters.size, dtype=float) - 3.0
    test = cluster_mean_test(values, clusters)
    assert test.p_value is not None and test.reason is None


def test_no_values_and_only_nans_are_no_matched_units() -> None:
    for values in (np.array([]), np.array([np.nan, np.nan])):
        test = cluster_mean_test(values, np.array(["b0", "b1"])[: values.size])
        assert test == type(test)(None, None, None, None, 0, 0, "no matched units")


def test_equal_base_means_are_degenerate_but_well_defined() -> None:
    clusters = np.repeat([f"b{i}" for i in range(6)], 2)
    # Different units, the same mean (0.25) in every base.
    values = np.tile([0.0, 0.5], 6)
    shifted = cluster_mean_test(values, clusters)
    assert (shifted.estimate, shifted.ci_low, shifted.ci_high) == (0.25, 0.25, 0.25)
    assert shifted.p_value == 0.0
    at_null = cluster_mean_test(values - 0.25, clusters)
    assert (at_null.estimate, at_null.p_value) == (0.0, 1.0)
    assert cluster_mean_test(values, clusters, null=0.25).p_value == 1.0


def test_numeric_and_string_cluster_labels_agree() -> None:
    rng = np.random.default_rng(1)
    clusters = np.repeat(np.arange(8), 3)
    values = rng.normal(size=clusters.size)
    as_numbers = cluster_mean_test(values, clusters)
    as_text = cluster_mean_test(values, clusters.astype(str))
    assert as_numbers == as_text
