"""MALIBU's chi-square test: is the distribution of score levels independent of the identity label?

For each identity category and metric we cross-tabulate identity × integer score level and run
Pearson's chi-square test of independence (2 × k for gender, 4 × k for race and religion).
Caveat carried in every result's ``method``: the test treats each judge score as an independent
observation, although scores from the same trial, scenario and judge are correlated, so its
p-values are optimistic; it is reported because it is the paper's test, not because it is the
best one.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency
from scipy.stats.contingency import association

from fairpanel.analysis._frames import (
    CATEGORY,
    IDENTITY,
    METRIC,
    METRICS,
    SCORE,
    select_scores,
)
from fairpanel.analysis.tools import text_codes

CHI_SQUARE_METHOD = (
    "Pearson chi-square test of independence, identity x score level "
    "(scipy.stats.chi2_contingency, correction=False); scores rounded half-up to integers 0..10, "
    "all-zero levels and identities dropped; Cramer's V = sqrt(chi2 / (n * (min(r, c) - 1))) "
    "(scipy.stats.contingency.association); treats every judge score as independent"
)
# Cochran's rule of thumb: the chi-square approximation is doubtful when more than 20% of the
# expected counts are below 5. We report rather than refuse, since MALIBU ran the test anyway.
_SMALL_EXPECTED = 5.0
_SMALL_EXPECTED_SHARE = 0.2


@dataclass(frozen=True, slots=True)
class ChiSquareResult:
    """One identity × score-level chi-square test.

    ``table[i][j]`` counts scores of ``identities[i]`` at level ``levels[j]``. ``chi2``, ``dof``,
    ``p_value`` and ``cramers_v`` are ``None`` when the table is degenerate; ``note`` then says
    why. ``note`` also flags tables where the chi-square approximation is doubtful.
    """

    category: str
    metric: str
    protocol: str
    round_kind: str
    identities: list[str]
    levels: list[int]
    table: list[list[int]]
    chi2: float | None
    dof: int | None
    p_value: float | None
    cramers_v: float | None
    n: int
    method: str
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form for JSON reports."""
        return asdict(self)


def round_half_up(values: pd.Series) -> pd.Series:
    """Round to the nearest integer with .5 going up (7.5 -> 8).

    ``numpy.round`` rounds half to even, which would send 6.5 down and 7.5 up and so distort the
    level histogram for judges that use half points.
    """
    levels = np.floor(values.to_numpy(dtype=float) + 0.5).astype(np.int64)
    return pd.Series(levels, index=values.index, name=values.name)


def score_level_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Identity × integer score level counts, without all-zero rows or columns.

    Only observed (identity, level) pairs are counted, so no row or column is all zero;
    identities sort as text, levels as numbers. Counted by bincount over the identities' text
    codes (a groupby and unstack without missing labels give the same table).
    """
    levels = round_half_up(frame[SCORE])
    identities = text_codes(frame[IDENTITY])
    if identities is None:
        keys = pd.DataFrame({IDENTITY: frame[IDENTITY].astype(str), "level": levels})
        table = keys.groupby([IDENTITY, "level"]).size().unstack("level", fill_value=0)
        return table.sort_index(axis=0).sort_index(axis=1)
    codes, names = identities
    found, level_codes = np.unique(levels.to_numpy(), return_inverse=True)
    counts = np.bincount(
        codes * found.size + level_codes, minlength=len(names) * found.size
    ).reshape(len(names), found.size)
    seen = counts.sum(axis=1) > 0
    return pd.DataFrame(
        counts[seen],
        index=pd.Index(
            [name for name, kept in zip(names, seen, strict=True) if kept], name=IDENTITY
        ),
        columns=pd.Index(found, name="level"),
    )


def _test_one(
    frame: pd.DataFrame, category: str, metric: str, protocol: str, round_kind: str
) -> ChiSquareResult:
    """Run the test on one (category, metric) slice, never raising on degenerate tables."""
    table = score_level_table(frame) if not frame.empty else pd.DataFrame()
    counts = table.to_numpy(dtype=np.int64)
    identities = [str(label) for label in table.index]
    levels = [int(level) for level in table.columns]
    n = int(counts.sum())
    chi2: float | None = None
    dof: int | None = None
    p_value: float | None = None
    cramers_v: float | None = None
    note: str | None = None
    if not identities:
        note = "degenerate table: no scores for this category and metric"
    elif len(identities) < 2:
        note = f"degenerate table: only {identities[0]!r} has scores; need at least 2 identities"
    elif len(levels) < 2:
        note = f"degenerate table: every score is at level {levels[0]}; need at least 2 levels"
    else:
        test = chi2_contingency(counts, correction=False)
        chi2 = float(test.statistic)
        dof = int(test.dof)
        p_value = float(test.pvalue)
        cramers_v = float(association(counts, method="cramer", correction=False))
        small = float(np.mean(np.asarray(test.expected_freq) < _SMALL_EXPECTED))
        if small > _SMALL_EXPECTED_SHARE:
            note = f"p approximate: {small:.0%} of expected counts < {_SMALL_EXPECTED:g}"
    return ChiSquareResult(
        category=category,
        metric=metric,
        protocol=protocol,
        round_kind=round_kind,
        identities=identities,
        levels=levels,
        table=[[int(c) for c in row] for row in counts],
        chi2=chi2,
        dof=dof,
        p_value=p_value,
        cramers_v=cramers_v,
        n=n,
        method=CHI_SQUARE_METHOD,
        note=note,
    )


def chi_square_tests(
    scores: pd.DataFrame, protocol: str = "single", round_kind: str = "final"
) -> list[ChiSquareResult]:
    """One chi-square test per (category, metric) present in the selected scores.

    Categories are sorted; metrics follow ``METRICS``, and every metric gets a result for every
    category that has any scores, so a missing metric shows up as a degenerate entry rather than
    vanishing from the report. No rows at all gives an empty list.
    """
    frame = select_scores(scores, protocol, round_kind, [CATEGORY, IDENTITY, METRIC, SCORE])
    results: list[ChiSquareResult] = []
    categories = text_codes(frame[CATEGORY])
    if categories is None:  # a missing category: the text comparison decides, as it did
        text = frame[CATEGORY].astype(str)
        names = sorted({str(c) for c in frame[CATEGORY].unique()})
        in_categories = [(text == name).to_numpy(dtype=bool) for name in names]
    else:
        codes, names = categories
        in_categories = [codes == number for number in range(len(names))]
    narrow = frame[[IDENTITY, SCORE]]
    metrics = [(frame[METRIC] == metric).to_numpy(dtype=bool) for metric in METRICS]
    for category, in_category in zip(names, in_categories, strict=True):
        for metric, in_metric in zip(METRICS, metrics, strict=True):
            subset = narrow.loc[in_category & in_metric]
            results.append(_test_one(subset, category, metric, protocol, round_kind))
    return results
