"""Cluster bootstrap intervals: resample base scenarios, not judge scores.

Every response a scenario produces is judged under every label, by every judge, in every round,
so scores from one base scenario share its difficulty and its answers. Resampling individual
scores would pretend they are independent and give intervals that are too narrow; resampling
whole base scenarios (with all their rows) keeps that dependence. Seeds are derived from a
stable name for each estimate, so an interval does not change when other estimates are added.
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy import special, stats

DEFAULT_BOOTSTRAP = 2000
# Fewer clusters than this cannot carry a between-cluster interval; we resample rows instead
# and say so, rather than return an interval of zero width.
MIN_CLUSTERS = 2

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Interval:
    """A percentile interval and how it was made (``resampled`` is "base scenarios" or "rows")."""

    low: float | None
    high: float | None
    n_boot: int
    resampled: str

    def describe(self, confidence: float) -> str:
        return (
            f"{confidence:.0%} percentile bootstrap interval, {self.n_boot} resamples of "
            f"{self.resampled}"
        )


def seed_for(seed: int, *names: object) -> int:
    """A 64-bit seed from the run's seed and a stable name of the estimate."""
    text = "\x1f".join([str(seed), *map(str, names)])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


def cluster_codes(clusters: npt.ArrayLike) -> tuple[npt.NDArray[np.intp], int]:
    """Each row's cluster as 0..k-1 in the sorted order of the clusters' names as text (what
    ``np.unique`` over the labels as strings numbers them; the bootstrap draws clusters by that
    number) and k. The rows are hashed once and only the k names are sorted, instead of sorting
    a million labels as strings."""
    raw = clusters.to_numpy() if isinstance(clusters, pd.Series) else clusters
    if not isinstance(raw, pd.Categorical):
        raw = np.asarray(raw)
    if bool(pd.isna(raw).any()):  # missing labels: numbered by their text, as before
        _, inverse = np.unique(np.asarray(raw).astype(str), return_inverse=True)
        return inverse, int(inverse.max()) + 1 if inverse.size else 0
    if isinstance(raw, pd.Categorical):
        row_codes, texts = raw.codes, np.asarray(raw.categories, dtype=object).astype(str)
    else:
        row_codes, uniques = pd.factorize(raw)
        texts = np.asarray(uniques, dtype=object).astype(str)
    names, rank = np.unique(texts, return_inverse=True)
    inverse = rank[row_codes]
    used = np.bincount(inverse, minlength=names.size) > 0
    if not used.all():  # a category that no row holds has no number
        inverse = (np.cumsum(used) - 1)[inverse]
    return inverse.astype(np.intp), int(used.sum())


def _group_sums(
    numerators: FloatArray, denominators: FloatArray, clusters: npt.ArrayLike
) -> tuple[FloatArray, FloatArray, int]:
    codes, k = cluster_codes(clusters)
    num = np.bincount(codes, weights=numerators, minlength=k).astype(float)
    den = np.bincount(codes, weights=denominators, minlength=k).astype(float)
    return num, den, k


def bootstrap_ratio(
    numerators: npt.ArrayLike,
    denominators: npt.ArrayLike,
    clusters: npt.ArrayLike,
    *,
    seed: int,
    confidence: float = 0.95,
    n_boot: int = DEFAULT_BOOTSTRAP,
    transform: float = 0.0,
) -> Interval:
    """Interval for ``sum(numerators) / sum(denominators) - transform`` by cluster bootstrap.

    A mean is the ratio with denominators of one; a win rate is wins over decided verdicts.
    Resamples whose denominator is zero are dropped (they have no ratio).
    """
    num = np.asarray(numerators, dtype=float)
    den = np.asarray(denominators, dtype=float)
    if num.size == 0 or float(den.sum()) <= 0:
        return Interval(None, None, 0, "base scenarios")
    by_num, by_den, k = _group_sums(num, den, clusters)
    resampled = "base scenarios"
    if k < MIN_CLUSTERS:
        by_num, by_den, k = num, den, num.size
        resampled = "rows (fewer than two base scenarios)"
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, k, size=(n_boot, k))
    tops = by_num[picks].sum(axis=1)
    bottoms = by_den[picks].sum(axis=1)
    keep = bottoms > 0
    ratios = tops[keep] / bottoms[keep] - transform
    if ratios.size == 0:
        return Interval(None, None, 0, resampled)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(ratios, [tail, 1.0 - tail])
    return Interval(float(low), float(high), int(ratios.size), resampled)


def bootstrap_mean(
    values: npt.ArrayLike,
    clusters: npt.ArrayLike,
    *,
    seed: int,
    confidence: float = 0.95,
    n_boot: int = DEFAULT_BOOTSTRAP,
) -> Interval:
    """Interval for the mean of ``values`` by resampling whole clusters."""
    data = np.asarray(values, dtype=float)
    return bootstrap_ratio(
        data, np.ones_like(data), clusters, seed=seed, confidence=confidence, n_boot=n_boot
    )


def cluster_resample_indices(
    clusters: npt.ArrayLike, rng: np.random.Generator
) -> npt.NDArray[np.intp]:
    """Row indices of one cluster-bootstrap resample (a drawn cluster brings all its rows)."""
    labels = np.asarray(clusters).astype(str)
    names, codes = np.unique(labels, return_inverse=True)
    if names.size < MIN_CLUSTERS:
        return rng.integers(0, labels.size, size=labels.size)
    members = [np.flatnonzero(codes == i) for i in range(names.size)]
    drawn = rng.integers(0, names.size, size=names.size)
    return np.concatenate([members[i] for i in drawn])


def cluster_draws(n_clusters: int, n_boot: int, rng: np.random.Generator) -> npt.NDArray[np.intp]:
    """``n_boot`` resamples of ``n_clusters`` clusters, as how often each resample drew each
    cluster (shape (n_boot, n_clusters)); a statistic that is a sum over clusters (a coincidence
    matrix, a sum of means) is then a matrix product, and every statistic given the same draws
    is resampled on the same clusters (a paired bootstrap)."""
    picks = rng.integers(0, n_clusters, size=(n_boot, n_clusters))
    offsets = np.arange(n_boot)[:, None] * n_clusters
    counts = np.bincount((picks + offsets).ravel(), minlength=n_boot * n_clusters)
    return counts.reshape(n_boot, n_clusters)


@functools.lru_cache(maxsize=256)
def expanded_tail(confidence: float, n_clusters: int) -> float:
    """Each tail's share of the bootstrap distribution an expanded percentile interval leaves
    out: resampling ``n_clusters`` clusters understates the variance by (k - 1) / k and a
    normal quantile is lighter-tailed than t on k - 1 df, so the interval is taken at the
    normal tail beyond sqrt(k / (k - 1)) x t quantile (Hesterberg's expanded percentile
    interval); for a mean of normal cluster means it is the t interval."""
    k = n_clusters
    quantile = float(stats.t.ppf(0.5 + confidence / 2.0, df=k - 1)) * math.sqrt(k / (k - 1))
    return float(stats.norm.sf(quantile))


def expanded_interval(replicates: FloatArray, confidence: float, n_clusters: int) -> Interval:
    """The expanded percentile interval (``expanded_tail``) of bootstrap ``replicates``."""
    tail = expanded_tail(confidence, n_clusters)
    low, high = np.quantile(replicates, [tail, 1.0 - tail])
    return Interval(float(low), float(high), int(replicates.size), "base scenarios")


TAIL_RESAMPLES = 20
"""Below this many resamples beyond 0, their share is too coarse to read a tail from (its
relative error is about one over the square root of the count, and with none it is only a
bound: 1 / (resamples + 1)); the tail is then read from the resamples' mean and SD."""


def expanded_p_value(replicates: FloatArray, n_clusters: int) -> float:
    """Two-sided bootstrap p of a difference against 0 on the same footing as
    ``expanded_interval``: the smaller share of resamples on either side of 0, q = (count + 1)
    / (resamples + 1), read as a normal tail, z = Phi^-1(1 - q), shrunk to t = z x
    sqrt((k - 1) / k) and p = 2 P(T_{k-1} > t), capped at 1; so p < 1 - confidence when the
    expanded interval leaves 0 out.

    In the far tail (fewer than TAIL_RESAMPLES resamples beyond 0) the share cannot say how far
    0 lies: 2,000 resamples on 15 bases put a floor of about 0.007 under p however large the
    difference, and a multiple-comparison procedure over dozens of differences could then never
    call one. There z is the resamples' mean over their SD, the same normal reading made
    parametric (for normal resamples the two agree), and the rest is unchanged."""
    values = np.asarray(replicates, dtype=float)
    below = int(np.count_nonzero(values <= 0.0))
    above = int(np.count_nonzero(values >= 0.0))
    beyond = min(below, above)
    k = n_clusters
    spread = float(values.std(ddof=1)) if values.size > 1 else 0.0
    if beyond < TAIL_RESAMPLES and spread > 0.0:
        z = abs(float(values.mean())) / spread
    else:
        z = -float(special.ndtri(min(0.5, (beyond + 1) / (values.size + 1))))  # norm.isf
    statistic = z * math.sqrt((k - 1) / k)
    # 2 x t.sf(statistic, k - 1), through the special functions scipy.stats calls (the same
    # numbers without its argument checks, which cost more than the rest of a calibration run).
    return min(1.0, float(2.0 * special.stdtr(k - 1, -statistic)))


def bootstrap_cluster_means(
    means: npt.ArrayLike,
    *,
    seed: int,
    confidence: float = 0.95,
    n_boot: int = DEFAULT_BOOTSTRAP,
) -> Interval:
    """Expanded percentile interval (``expanded_tail``) for the mean of cluster means (each
    cluster weighs the same, the estimate the cluster t test makes) by resampling the clusters:
    beside the t interval, a check that does not assume the cluster means are normal."""
    values = np.asarray(means, dtype=float)
    if values.size < MIN_CLUSTERS:
        return Interval(None, None, 0, "base scenarios")
    counts = cluster_draws(values.size, n_boot, np.random.default_rng(seed))
    return expanded_interval(counts @ values / values.size, confidence, values.size)
