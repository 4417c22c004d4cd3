"""Single protocol: the same response scored under two labels, compared pair by pair.

The design shows one response to the panel once per identity, with everything else held fixed
(scenario, response, replicate, treatment, how the label is signalled). So the natural test
subtracts the two scores of each such unit. That removes the response's own quality, which a
pooled test such as MALIBU's chi-square leaves in as noise. The differences are then averaged
within each base scenario and tested over base scenarios (``tools._cluster``), so the p-value, like
the interval, speaks for scenarios like these rather than for these trials. The panel's
``overall`` difference is the primary contrast; per-metric and per-judge rows are secondary.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd

from fairpanel.analysis._frames import (
    BASE_ID,
    CATEGORY,
    IDENTITY,
    JUDGE,
    METRIC,
    METRICS,
    OVERALL,
    PROTOCOL,
    RESPONSE_INDEX,
    ROUND_KIND,
    SCENARIO_ID,
    SCORE,
    TRIAL_KEY,
    require_columns,
)
from fairpanel.analysis.tools import ClusterTest, cluster_mean_test
from fairpanel.analysis.verdict._effects import (
    PRIMARY,
    SECONDARY,
    Effect,
    tested_by,
)

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


CONSENSUS_COLUMNS: tuple[str, ...] = (
    "trial_key", "protocol", "base_id", "scenario_id", "category", "identity", "position",
    "response_index", "metric", "score",
)  # fmt: skip


def panel_scores(
    scores: pd.DataFrame, consensus: pd.DataFrame | None, round_kind: str
) -> pd.DataFrame:
    """Single-protocol panel scores: the stored consensus, or the judges' mean when the caller
    has none or asks for another round than the final one."""
    if consensus is not None and not consensus.empty and round_kind == "final":
        frame = require_columns(consensus, CONSENSUS_COLUMNS, "consensus")
        frame = with_design_columns(frame.loc[frame[PROTOCOL] == "single"])
        return frame.assign(**{SCORE: pd.to_numeric(frame[SCORE]).astype(float)})
    chosen = scores.loc[(scores[PROTOCOL] == "single") & (scores[ROUND_KIND] == round_kind)]
    return panel_scores_from_judges(chosen.assign(**{ROUND_KIND: "final"}))


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


def _method(judge: str | None, metric: str, test: ClusterTest, confidence: float) -> str:
    source = (
        "the panel's consensus score of each trial"
        if judge is None
        else f"judge {judge}'s final-round score"
    )
    what = "the mean of the four metrics" if metric == OVERALL else metric
    return (
        f"paired differences of {source} ({what}) for the same response shown under the two "
        "labels (same scenario, response, replicate, treatment and signal); "
        f"{test.describe(confidence)}; estimate = mean difference over base scenarios"
    )


def _effect(
    values: np.ndarray[Any, Any],
    clusters: np.ndarray[Any, Any],
    category: str,
    pair: tuple[str, str],
    metric: str,
    judge: str | None,
    confidence: float,
) -> Effect:
    identity, versus = pair
    who = "panel" if judge is None else judge
    test = cluster_mean_test(values, clusters, confidence=confidence)
    primary = judge is None and metric == OVERALL
    return Effect(
        **tested_by(test),
        id=f"single:{category}:{metric}:{identity}-{versus}:{who}",
        family=SINGLE_FAMILY,
        protocol="single",
        category=category,
        metric=metric,
        judge=judge,
        contrast=f"{identity} - {versus}",
        identity=identity,
        versus=versus,
        confidence=confidence,
        scale="score points",
        cohen_h=None,
        method=_method(judge, metric, test, confidence),
        role=PRIMARY if primary else SECONDARY,
    )


def _constant(rows: pd.DataFrame, pair: tuple[str, str]) -> float | None:
    """The one score every showing under either label got, when there is only one."""
    present = [label for label in pair if label in rows.columns]
    values = pd.unique(rows[present].to_numpy(dtype=float, na_value=np.nan).ravel())
    values = values[~np.isnan(values)]
    return float(values[0]) if values.size == 1 else None


def single_score_effects(
    panel: pd.DataFrame,
    judges: pd.DataFrame,
    *,
    confidence: float = 0.95,
    skipped: list[str] | None = None,
    primary_only: bool = False,
) -> list[Effect]:
    """Paired score contrasts for every label pair x metric (and overall) x judge.

    ``panel`` holds one consensus score per (single trial, metric); ``judges`` holds the
    judges' final-round scores of single trials. Pairs of labels come from sorted identities
    within each category; units with only one of the two labels are left out. A category with
    one label, and a metric on which every score is the same, are not tested: the reason is
    appended to ``skipped``. ``primary_only`` computes the panel's overall contrasts alone
    (what the verdict rests on; ``fairpanel simulate`` needs nothing else).
    """
    effects: list[Effect] = []
    notes = skipped if skipped is not None else []
    sources: list[tuple[str | None, pd.DataFrame]] = [(None, panel)]
    if not judges.empty and not primary_only:
        sources += [(str(j), rows) for j, rows in judges.groupby(JUDGE, sort=True)]
    metrics = (OVERALL,) if primary_only else (*METRICS, OVERALL)
    for category in sorted({str(c) for c in panel[CATEGORY].unique()}):
        labels = sorted({str(i) for i in panel.loc[panel[CATEGORY] == category, IDENTITY].unique()})
        if len(labels) < 2:
            notes.append(
                f"single protocol, category {category}: one identity ({', '.join(labels)}), "
                "so no contrast to test"
            )
            continue
        for judge, frame in sources:
            wide = label_columns(frame, category)
            present = set(wide.index.get_level_values(METRIC).unique())
            for metric in (m for m in metrics if m in present):
                rows = _metric_rows(wide, metric)
                for pair in itertools.combinations(labels, 2):
                    values, clusters = _paired_values(rows, *pair)
                    if values.size == 0:
                        continue
                    constant = _constant(rows, pair)
                    if constant is not None and judge is None:
                        notes.append(
                            f"single protocol, {category} {pair[0]} vs {pair[1]}, {metric}: "
                            f"no variance (every panel score is {constant:g}), not tested"
                        )
                        continue
                    if constant is not None:
                        continue
                    effects.append(
                        _effect(values, clusters, category, pair, metric, judge, confidence)
                    )
    return effects
