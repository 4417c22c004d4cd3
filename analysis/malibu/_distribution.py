"""The rows and the interval behind the report's score-distribution figure.

The figure shows every judge score of the headline analysis, so the selection of those rows, the
share of scores at each level and the interval drawn around each mean belong with the
statistics, not with the drawing code (which then needs neither pandas nor scipy).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from fairpanel.analysis._frames import (
    CATEGORY,
    IDENTITY,
    METRIC,
    PROTOCOL,
    ROUND_KIND,
    SCORE,
    SCORE_MAX,
    SCORE_MIN,
)
from fairpanel.analysis.results import ResultsModel

__all__ = [
    "MIN_INTERVAL_N",
    "ScoreDistributionCell",
    "baseline_scores",
    "mean_interval",
    "score_distribution",
]

MIN_INTERVAL_N = 5
"""Below this many scores no interval is drawn: it would mostly show the noise of the standard
deviation itself."""


def baseline_scores(
    scores: pd.DataFrame, round_kind: str = "final", treatments: Sequence[str] = ()
) -> pd.DataFrame:
    """The rows the headline analysis covers: main arm, the baseline (first) of ``treatments``,
    single protocol, the analysed round. Frames without arm or treatment columns keep all."""
    if scores.empty:
        return scores
    keep = pd.Series(True, index=scores.index)
    if "arm" in scores.columns:
        keep &= scores["arm"] == "main"
    if "treatment" in scores.columns and treatments:
        keep &= scores["treatment"] == treatments[0]
    keep &= scores[PROTOCOL] == "single"
    keep &= scores[ROUND_KIND] == round_kind
    kept: pd.DataFrame = scores.loc[keep]
    return kept


def mean_interval(
    values: Sequence[float] | np.ndarray[Any, Any], confidence: float = 0.95
) -> tuple[float, float]:
    """A Student t interval for the mean of judge scores, clipped to the score range; the bare
    mean (an interval of no width) below ``MIN_INTERVAL_N`` scores."""
    data = np.asarray(values, dtype=float)
    mean = float(data.mean())
    if len(data) < MIN_INTERVAL_N:
        return mean, mean
    quantile = float(stats.t.ppf(0.5 + confidence / 2.0, len(data) - 1))
    half = quantile * float(data.std(ddof=1)) / float(np.sqrt(len(data)))
    return max(SCORE_MIN, mean - half), min(SCORE_MAX, mean + half)


class ScoreDistributionCell(ResultsModel):
    """One identity's scores on one metric in one category: the share at each rounded level
    (most frequent first) and the mean with its ``mean_interval``."""

    category: str
    metric: str
    identity: str
    levels: list[float]
    shares: list[float]
    mean: float
    ci_low: float
    ci_high: float


def score_distribution(scores: pd.DataFrame) -> list[ScoreDistributionCell]:
    """A cell per category, metric and identity of ``scores`` (``baseline_scores``' rows), in
    that sorted order; levels are scores rounded half to even, as numpy rounds."""
    if scores.empty:
        return []
    cells = []
    for (category, metric, identity), own in scores.groupby(
        [CATEGORY, METRIC, IDENTITY], observed=True, sort=False
    )[SCORE]:
        values = own.astype(float)
        if values.empty:
            continue
        shares = values.round().value_counts(normalize=True)
        low, high = mean_interval(values.to_numpy())
        cells.append(
            ScoreDistributionCell(
                category=str(category),
                metric=str(metric),
                identity=str(identity),
                levels=[float(level) for level in shares.index],
                shares=[float(share) for share in shares.to_numpy()],
                mean=float(values.mean()),
                ci_low=low,
                ci_high=high,
            )
        )
    return sorted(cells, key=lambda cell: (cell.category, cell.metric, cell.identity))
