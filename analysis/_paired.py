"""Single protocol: the same response scored under two labels, compared pair by pair.

The design shows one response to the panel once per identity, with everything else held fixed
(scenario, response, replicate, treatment, how the label is signalled). So the natural test
subtracts the two scores of each such unit and asks whether the differences centre on zero
(Wilcoxon signed-rank). That removes the response's own quality, which a pooled test such as
MALIBU's chi-square leaves in as noise. Intervals resample base scenarios.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import wilcoxon

from fairpanel.analysis._effects import Effect
from fairpanel.analysis._frames import (
    BASE_ID,
    CATEGORY,
    IDENTITY,
    JUDGE,
    METRIC,
    METRICS,
    OVERALL,
    RESPONSE_INDEX,
    ROUND_KIND,
    SCENARIO_ID,
    SCORE,
    TRIAL_KEY,
    float_or_none,
)
from fairpanel.analysis._resample import DEFAULT_BOOTSTRAP, bootstrap_mean, seed_for

SINGLE_FAMILY = "single score differences"
# Columns that, with the scenario and response, identify one showing of a response. Older
# frames may lack them; a missing column is one constant value.
OPTIONAL_DESIGN: dict[str, object] = {"replicate": 0, "treatment": "none", "signal": "explicit"}
UNIT = [BASE_ID, SCENARIO_ID, RESPONSE_INDEX, *OPTIONAL_DESIGN]


def with_design_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every optional design column present (filled with its one value)."""
    missing = {col: value for col, value in OPTIONAL_DESIGN.items() if col not in frame.columns}
    return frame.assign(**missing) if missing else frame  # type: ignore[arg-type]


def panel_scores_from_judges(scores: pd.DataFrame) -> pd.DataFrame:
    """Per-trial consensus as the mean of the judges' final-round scores.

    Used when the stored consensus is not available (frames built by hand); the stored one
    follows the experiment's rule (mean, median, majority or moderator).
    """
    final = scores.loc[scores[ROUND_KIND] == "final"]
    keys = [TRIAL_KEY, *UNIT, CATEGORY, IDENTITY, "protocol", "position", METRIC]
    final = with_design_columns(final)
    return final.groupby(keys, dropna=False)[SCORE].mean().reset_index()


def label_columns(frame: pd.DataFrame, category: str, by: Iterable[str] = ()) -> pd.DataFrame:
    """Scores of one category with one column per label, indexed by unit keys and metric.

    Rows for ``"overall"`` (the mean of the four metrics of each showing) are included, so
    every contrast of the category is a subtraction of two columns.
    """
    keys = [*UNIT, *by]
    rows = with_design_columns(frame)
    rows = rows.loc[rows[CATEGORY] == category]
    per_metric = rows.groupby([*keys, METRIC, IDENTITY], dropna=False)[SCORE].mean()
    overall = rows.groupby([*keys, IDENTITY], dropna=False)[SCORE].mean()
    overall = pd.concat({OVERALL: overall}, names=[METRIC]).reorder_levels(per_metric.index.names)
    wide: pd.DataFrame = pd.concat([per_metric, overall]).unstack(IDENTITY)
    return wide


def differences_of(wide: pd.DataFrame, identity: str, versus: str, metric: str) -> pd.DataFrame:
    """Rows of ``label_columns`` output with both labels: unit keys and ``difference``."""
    if metric not in wide.index.get_level_values(METRIC):
        return pd.DataFrame(columns=[*UNIT, "difference"])
    return _difference(_metric_rows(wide, metric), identity, versus)


def _metric_rows(wide: pd.DataFrame, metric: str) -> pd.DataFrame:
    rows = wide.xs(metric, level=METRIC)
    assert isinstance(rows, pd.DataFrame)
    return rows


def _difference(rows: pd.DataFrame, identity: str, versus: str) -> pd.DataFrame:
    if identity not in rows.columns or versus not in rows.columns:
        return pd.DataFrame(columns=[*UNIT, "difference"])
    both = rows[[identity, versus]].dropna()
    return (both[identity] - both[versus]).rename("difference").reset_index()


def _paired_values(
    rows: pd.DataFrame, identity: str, versus: str
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """``_difference`` as arrays (differences and their base ids), without building a frame:
    the effects loop runs it for every label pair, metric and judge."""
    if identity not in rows.columns or versus not in rows.columns:
        return np.empty(0), np.empty(0, dtype=object)
    first = rows[identity].to_numpy(dtype=float, na_value=np.nan)
    second = rows[versus].to_numpy(dtype=float, na_value=np.nan)
    both = ~(np.isnan(first) | np.isnan(second))
    clusters = rows.index.get_level_values(BASE_ID).to_numpy()[both]
    return first[both] - second[both], clusters


def paired_differences(
    frame: pd.DataFrame,
    category: str,
    identity: str,
    versus: str,
    metric: str,
    by: Iterable[str] = (),
) -> pd.DataFrame:
    """One row per unit scored under both labels: ``base_id``, the unit keys, ``difference``.

    ``difference`` = score under ``identity`` minus score under ``versus``; ``metric`` may be
    ``"overall"`` (mean of the four metrics of each showing). ``by`` adds unit columns (e.g.
    ``judge``) so that only one judge's scores are paired with each other.
    """
    rows = frame.loc[frame[IDENTITY].isin([identity, versus])]
    return differences_of(label_columns(rows, category, by), identity, versus, metric)


# Up to this many non-zero differences without ties the exact null distribution is used.
EXACT_SIGNED_RANK = 50


def signed_rank_p(differences: np.ndarray) -> float | None:
    """Two-sided Wilcoxon signed-rank p (zeros dropped); 1.0 when every difference is zero.

    Exact for up to 50 distinct non-zero differences; otherwise the normal approximation with
    the tie correction. (scipy's default would switch to a permutation test when there are ties,
    which judge scores on a 0-10 scale nearly always have, at a hundred times the cost.)
    """
    if differences.size == 0:
        return None
    nonzero = differences[differences != 0]
    if nonzero.size == 0:
        return 1.0
    tied = np.unique(np.abs(nonzero)).size < nonzero.size
    method = "exact" if nonzero.size <= EXACT_SIGNED_RANK and not tied else "approx"
    result = wilcoxon(nonzero, zero_method="wilcox", alternative="two-sided", method=method)
    return float(result.pvalue)


def _method(judge: str | None, metric: str, interval: str) -> str:
    source = (
        "the panel's consensus score of each trial"
        if judge is None
        else f"judge {judge}'s final-round score"
    )
    what = "the mean of the four metrics" if metric == OVERALL else metric
    return (
        f"paired differences of {source} ({what}) for the same response shown under the two "
        "labels (same scenario, response, replicate, treatment and signal); Wilcoxon signed-"
        "rank test (scipy; zero differences dropped; exact up to 50 untied differences, else "
        f"normal approximation with tie correction); estimate = mean difference; {interval}"
    )


def _effect(
    values: np.ndarray[Any, Any],
    clusters: np.ndarray[Any, Any],
    category: str,
    pair: tuple[str, str],
    metric: str,
    judge: str | None,
    confidence: float,
    seed: int,
    n_boot: int,
) -> Effect:
    identity, versus = pair
    who = "panel" if judge is None else judge
    effect_id = f"single:{category}:{metric}:{identity}-{versus}:{who}"
    interval = bootstrap_mean(
        values,
        clusters,
        seed=seed_for(seed, effect_id),
        confidence=confidence,
        n_boot=n_boot,
    )
    return Effect(
        id=effect_id,
        family=SINGLE_FAMILY,
        protocol="single",
        category=category,
        metric=metric,
        judge=judge,
        contrast=f"{identity} - {versus}",
        identity=identity,
        versus=versus,
        estimate=float_or_none(values.mean()) if values.size else None,
        ci_low=interval.low,
        ci_high=interval.high,
        confidence=confidence,
        scale="score points",
        cohen_h=None,
        p_value=signed_rank_p(values),
        n=int(values.size),
        n_clusters=int(pd.unique(clusters).size),
        test="wilcoxon signed-rank",
        method=_method(judge, metric, interval.describe(confidence)),
    )


def single_score_effects(
    panel: pd.DataFrame,
    judges: pd.DataFrame,
    *,
    confidence: float = 0.95,
    seed: int = 0,
    n_boot: int = DEFAULT_BOOTSTRAP,
) -> list[Effect]:
    """Paired score contrasts for every label pair x metric (and overall) x judge.

    ``panel`` holds one consensus score per (single trial, metric); ``judges`` holds the
    judges' final-round scores of single trials. Pairs of labels come from sorted identities
    within each category; units with only one of the two labels are left out.
    """
    effects: list[Effect] = []
    sources: list[tuple[str | None, pd.DataFrame]] = [(None, panel)]
    if not judges.empty:
        sources += [(str(j), rows) for j, rows in judges.groupby(JUDGE, sort=True)]
    for category in sorted({str(c) for c in panel[CATEGORY].unique()}):
        labels = sorted({str(i) for i in panel.loc[panel[CATEGORY] == category, IDENTITY]})
        for judge, frame in sources:
            wide = label_columns(frame, category)
            present = set(wide.index.get_level_values(METRIC))
            for metric in (m for m in (*METRICS, OVERALL) if m in present):
                rows = _metric_rows(wide, metric)
                for pair in itertools.combinations(labels, 2):
                    values, clusters = _paired_values(rows, *pair)
                    if values.size == 0:
                        continue
                    effects.append(
                        _effect(
                            values,
                            clusters,
                            category,
                            pair,
                            metric,
                            judge,
                            confidence,
                            seed,
                            n_boot,
                        )
                    )
    return effects
