"""The rows and the interval behind the report's score-distribution figure.

The figure shows every judge score of the headline analysis, so the selection of those rows and
the interval drawn around each mean belong with the statistics, not with the drawing code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from fairpanel.analysis._frames import PROTOCOL, ROUND_KIND, SCORE_MAX, SCORE_MIN

__all__ = ["MIN_INTERVAL_N", "baseline_scores", "mean_interval"]

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
