"""Descriptive score statistics per identity: MALIBU's mean-score table and Figure 4 matrix.

These are the numbers a reader looks at first ("does the panel give 'female' higher creativity than
'male'?"). They are descriptive only; the tests behind the verdict are in ``verdict._paired`` and
``verdict._pair_verdicts`` (MALIBU's chi-square replication in ``malibu._chisq``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from fairpanel.analysis._frames import (
    CATEGORY,
    IDENTITY,
    METRIC,
    METRICS,
    OVERALL,
    SCORE,
    TRIAL_KEY,
    check_choice,
    float_or_none,
    select_scores,
)

MEAN_SCORES_METHOD = (
    "arithmetic mean of judge scores per (category, identity) and metric; 'overall' pools the "
    "rows of all four metrics (equal to the mean of the metric means when every parsed turn "
    "scored every metric); n = score rows, n_trials = distinct trial_key"
)
DIFFERENCE_METHOD = (
    "cell [x][y] = mean score of identity x minus mean score of identity y (MALIBU Figure 4); "
    "metric 'overall' pools all four metrics"
)
MEAN_SCORE_COLUMNS: tuple[str, ...] = (CATEGORY, *METRICS, OVERALL, "n", "n_trials")


def mean_scores(
    scores: pd.DataFrame, protocol: str = "single", round_kind: str = "final"
) -> pd.DataFrame:
    """Mean score per identity and metric, plus ``overall``, ``n`` and ``n_trials``.

    Returns a DataFrame indexed by identity (index name ``identity``) with a ``category`` column,
    one column per metric in the fixed order of ``METRICS``, ``overall``, ``n`` (score rows) and
    ``n_trials``. A metric without data is NaN. If one label appears in two categories it gets
    one row per category (so the index may repeat). ``DataFrame.attrs`` holds ``method``,
    ``protocol`` and ``round_kind`` so the frame remains self-describing when passed around.
    """
    frame = select_scores(
        scores, protocol, round_kind, [CATEGORY, IDENTITY, METRIC, SCORE, TRIAL_KEY]
    )
    if frame.empty:
        table = pd.DataFrame(
            {col: pd.Series([], dtype=float) for col in MEAN_SCORE_COLUMNS},
            index=pd.Index([], name=IDENTITY, dtype=object),
        )
        table[CATEGORY] = table[CATEGORY].astype(object)
        table["n"] = table["n"].astype(int)
        table["n_trials"] = table["n_trials"].astype(int)
    else:
        keys = [CATEGORY, IDENTITY]
        per_metric = frame.pivot_table(
            index=keys, columns=METRIC, values=SCORE, aggfunc="mean", observed=True
        ).reindex(columns=list(METRICS))
        per_metric.columns.name = None
        grouped = frame.groupby(keys, observed=True)
        per_metric[OVERALL] = grouped[SCORE].mean()
        per_metric["n"] = grouped.size().astype(int)
        per_metric["n_trials"] = grouped[TRIAL_KEY].nunique().astype(int)
        table = per_metric.reset_index(level=CATEGORY)
        table = table.loc[:, list(MEAN_SCORE_COLUMNS)]
    table.attrs.update(
        {"method": MEAN_SCORES_METHOD, "protocol": protocol, "round_kind": round_kind}
    )
    return table


def mean_scores_records(table: pd.DataFrame) -> list[dict[str, Any]]:
    """Turn a ``mean_scores`` frame into JSON-ready rows (NaN becomes ``None``)."""
    rows: list[dict[str, Any]] = []
    for identity, row in table.iterrows():
        record: dict[str, Any] = {CATEGORY: str(row[CATEGORY]), IDENTITY: str(identity)}
        for col in (*METRICS, OVERALL):
            record[col] = float_or_none(row[col])
        record["n"] = int(row["n"])
        record["n_trials"] = int(row["n_trials"])
        rows.append(record)
    return rows


@dataclass(frozen=True, slots=True)
class ScoreDifferenceMatrix:
    """Pairwise mean-score differences between the identities of one category.

    ``matrix[i][j]`` is ``means[i] - means[j]`` for ``identities[i]`` and ``identities[j]``;
    ``counts[i]`` is the number of score rows behind ``means[i]``. ``metric`` is a metric name or
    ``"overall"``. ``note`` explains an empty matrix.
    """

    category: str
    metric: str
    protocol: str
    round_kind: str
    identities: list[str]
    means: list[float | None]
    counts: list[int]
    matrix: list[list[float | None]]
    n: int
    method: str
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form for JSON reports."""
        return asdict(self)


def score_difference_matrix(
    scores: pd.DataFrame,
    category: str,
    metric: str | None = None,
    protocol: str = "single",
    round_kind: str = "final",
) -> ScoreDifferenceMatrix:
    """Identity × identity matrix of mean-score differences within ``category``.

    ``metric=None`` pools all four metrics (same definition as ``overall`` in ``mean_scores``).
    A category without data gives an empty matrix with a ``note`` rather than an error, because
    a run may simply not have reached that category yet.
    """
    metric_name = OVERALL if metric is None else check_choice(metric, METRICS, "metric")
    frame = select_scores(scores, protocol, round_kind, [CATEGORY, IDENTITY, METRIC, SCORE])
    frame = frame.loc[frame[CATEGORY] == category]
    if metric is not None:
        frame = frame.loc[frame[METRIC] == metric]
    grouped = frame.groupby(IDENTITY, observed=True)[SCORE]
    means = grouped.mean().sort_index()
    counts = grouped.size().reindex(means.index)
    identities = [str(label) for label in means.index]
    values = [float(v) for v in means.to_numpy(dtype=float)]
    matrix: list[list[float | None]] = [[float_or_none(x - y) for y in values] for x in values]
    note = None
    if not identities:
        note = f"no {protocol}/{round_kind} scores for category {category!r}, metric {metric_name}"
    return ScoreDifferenceMatrix(
        category=category,
        metric=metric_name,
        protocol=protocol,
        round_kind=round_kind,
        identities=identities,
        means=[float_or_none(v) for v in values],
        counts=[int(c) for c in counts.to_numpy()],
        matrix=matrix,
        n=len(frame),
        method=DIFFERENCE_METHOD,
        note=note,
    )
