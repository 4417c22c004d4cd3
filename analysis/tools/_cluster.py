"""One test for every contrast: the mean over base scenarios of each scenario's mean contrast.

A user asks whether the judge prefers a label *on average over scenarios like these*. A judge
whose preference varies from scenario to scenario around zero is not biased, but a test that
treats every arrangement, response and derived scenario as an independent observation calls it
biased more often the bigger the run is. So each contrast is first averaged within its base
scenario, and the base-scenario means are tested against zero with a one-sample t test on
B - 1 degrees of freedom; the interval is the matching t interval, so the p-value and the
interval always agree. Below ``MIN_BASES`` base scenarios the between-scenario variance cannot
be estimated well enough to generalise, and no p-value or interval is given.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats

MIN_BASES = 5
TEST_NAME = "cluster t (base-scenario means)"


@dataclass(frozen=True, slots=True)
class ClusterTest:
    """A contrast's mean, t interval and two-sided p-value over base-scenario means.

    ``estimate`` is the mean of the base means (each base weighs the same, however many units
    it has), or None without data. ``reason`` says why no p-value was given. ``spread`` is the
    sd of the base means (ddof 1) the test divided by, None when untested: the test's power, and
    so a null verdict's minimum detectable effect, rests on it.
    """

    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    n: int
    n_clusters: int
    reason: str | None = None
    spread: float | None = None

    def describe(self, confidence: float) -> str:
        """How the p-value and interval were made, for a result row's ``method``."""
        return (
            f"mean of {self.n_clusters} base-scenario means of the {self.n} unit contrasts; "
            f"one-sample t test of the base means against 0 ({self.n_clusters - 1} df) and its "
            f"{confidence:.0%} t interval"
        )


def too_few_bases(n_clusters: int) -> str:
    """The reason a contrast over ``n_clusters`` base scenarios is not tested."""
    plural = "" if n_clusters == 1 else "s"
    return (
        f"{n_clusters} base scenario{plural}: too few to generalise over scenarios "
        f"(need {MIN_BASES})"
    )


def cluster_means(values: npt.ArrayLike, clusters: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The mean of ``values`` within each cluster (clusters in sorted order)."""
    _, codes = np.unique(np.asarray(clusters).astype(str), return_inverse=True)
    sums = np.bincount(codes, weights=np.asarray(values, dtype=float))
    return sums / np.bincount(codes)


def cluster_mean_test(
    values: npt.ArrayLike,
    clusters: npt.ArrayLike,
    *,
    confidence: float = 0.95,
    null: float = 0.0,
) -> ClusterTest:
    """Test that the mean contrast over base scenarios is ``null`` (see the module docstring)."""
    array = np.asarray(values, dtype=float)
    keep = ~np.isnan(array)
    array = array[keep]
    labels = np.asarray(clusters, dtype=object)[keep].astype(str)
    if array.size == 0:
        return ClusterTest(None, None, None, None, 0, 0, "no matched units")
    means = cluster_means(array, labels)
    estimate = float(means.mean())
    k = int(means.size)
    if k < MIN_BASES:
        return ClusterTest(estimate, None, None, None, int(array.size), k, too_few_bases(k))
    spread = float(means.std(ddof=1))
    if spread == 0.0:
        # Every base scenario gave the same mean: no evidence of a difference when that mean is
        # the null, and an exact (if degenerate) one otherwise.
        same = estimate == null
        return ClusterTest(
            estimate, estimate, estimate, 1.0 if same else 0.0, int(array.size), k,
            None, 0.0,
        )  # fmt: skip
    error = spread / np.sqrt(k)
    t_value = (estimate - null) / error
    p_value = float(2.0 * stats.t.sf(abs(t_value), df=k - 1))
    half = float(stats.t.ppf(0.5 + confidence / 2.0, df=k - 1) * error)
    return ClusterTest(
        estimate, estimate - half, estimate + half, p_value, int(array.size), k, None, spread
    )
