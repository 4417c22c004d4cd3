"""Panel diagnostics: do the judges agree, and what does the debate do to their scores?

A panel is only worth its cost if its judges disagree at first (otherwise one judge would do)
and the discussion moves them for reasons (otherwise it is herding). Agreement is Krippendorff's
alpha with the judges as coders, per round kind: ordinal for scores (0-10 levels are ordered but
not evenly spaced in a judge's mind), nominal for pair verdicts. What the debate does to the
scores is in ``judges._debate``.

A million-turn run has hundreds of thousands of units: the judges' values are placed by integer
codes of the unit and judge columns and counted per unit with a bincount, and alpha is the
krippendorff package's, computed from those value counts by ``tools._coincidences`` without the
package's units x values x values temporary (the same sums, bit for bit).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from fairpanel.analysis._frames import (
    JUDGE,
    METRIC,
    METRICS,
    PARSE_OK,
    POSITION,
    PROTOCOL,
    PROTOCOLS,
    ROUND,
    ROUND_KIND,
    ROUND_KINDS,
    SCORE,
    TRIAL_KEY,
    WINNER_POSITION,
    float_or_none,
)
from fairpanel.analysis.tools import (
    Codes,
    Level,
    alpha_from_counts,
    combined_codes,
    dense_codes,
    sort_codes,
)

CANDIDATE = [TRIAL_KEY, POSITION, METRIC]


def _first_of_cells(cell: Codes, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """The first of ``rows`` (ascending) in each distinct ``cell``, as ``groupby.first``
    takes it; by a table over the cells when they are few enough, else by a stable sort."""
    if cell.size == 0 or int(cell.max()) >= 8 * cell.size + 1024:
        _, first = np.unique(cell, return_index=True)
        found: npt.NDArray[np.intp] = rows[first]
        return found
    table = np.full(int(cell.max()) + 1, np.iinfo(np.intp).max, dtype=np.intp)
    np.minimum.at(table, cell, rows)
    kept: npt.NDArray[np.intp] = table[table != np.iinfo(np.intp).max]
    return kept


def _alpha_from_codes(
    unit: Codes, judge: Codes, values: npt.NDArray[np.float64], level: Level
) -> tuple[float | None, int, int]:
    """Alpha from row-aligned unit and judge codes (``-1`` missing; units in the order a sorted
    groupby visits them) and values (NaN missing): the first value of each (unit, judge) goes
    in, as ``groupby(...).first()`` would take it.

    The per-unit value counts (units x values) come straight from a bincount instead of a
    judges x units matrix compared against every value; ``alpha_from_counts`` then sums the
    krippendorff package's coincidences over the same units in the same order.
    """
    keep = (unit >= 0) & (judge >= 0)
    units, n_units = dense_codes(np.where(keep, unit, -1))
    judges, n_judges = dense_codes(np.where(keep, judge, -1))
    rows = np.flatnonzero(keep & ~np.isnan(values))
    rows = _first_of_cells(units[rows] * max(n_judges, 1) + judges[rows], rows)
    per_unit = np.bincount(units[rows], minlength=n_units)
    pairable = int((per_unit >= 2).sum())
    if n_judges < 2 or pairable == 0:
        return None, pairable, n_judges
    domain, value_index = np.unique(values[rows], return_inverse=True)
    if domain.size < 2:
        return None, pairable, n_judges
    counts = np.bincount(
        units[rows] * domain.size + value_index, minlength=n_units * domain.size
    ).reshape(n_units, domain.size)
    return float_or_none(alpha_from_counts(counts, domain, level)), pairable, n_judges


def _float_values(column: pd.Series) -> npt.NDArray[np.float64]:
    return np.asarray(column.astype(float).to_numpy(), dtype=np.float64)


def krippendorff_alpha(
    long: pd.DataFrame, unit: list[str], value: str, level: Level
) -> tuple[float | None, int, int]:
    """Alpha over a long frame with one row per (unit, judge); ``unit`` names the unit columns.

    Returns (alpha, units with at least two judges' values, judges). ``None`` when alpha is not
    defined: fewer than two judges or pairable units, or a single value everywhere.
    """
    unit_key, _ = combined_codes(long, unit)
    judge, _ = sort_codes(long[JUDGE])
    return _alpha_from_codes(unit_key, judge, _float_values(long[value]), level)


def _agreement_row(
    protocol: str, round_kind: str, metric: str, level: Level, result: tuple[float | None, int, int]
) -> dict[str, Any]:
    alpha, n_units, n_judges = result
    return {
        "protocol": protocol,
        "round_kind": round_kind,
        "metric": metric,
        "level": level,
        "alpha": alpha,
        "n_units": n_units,
        "n_judges": n_judges,
        "method": (
            f"Krippendorff's alpha ({level}; krippendorff package) with judges as coders; a "
            + (
                "unit is one candidate's score on one metric in one round of one trial"
                if metric != "verdict"
                else "unit is one pair trial's round; the value is the chosen position"
            )
            + "; units need values from at least two judges; alpha is undefined (null) when "
            "every value is the same"
        ),
    }


def _vocabulary_codes(column: pd.Series, vocabulary: tuple[str, ...]) -> Codes:
    """Each row's position in ``vocabulary`` (``-1`` for any other value or a missing one),
    looked up once per distinct value."""
    if isinstance(column.dtype, pd.CategoricalDtype):  # its own codes, no hashing of rows
        codes, uniques = column.cat.codes.to_numpy(), list(column.cat.categories)
    else:
        codes, found = pd.factorize(column)
        uniques = list(found)
    lookup = np.array([vocabulary.index(v) if v in vocabulary else -1 for v in uniques] + [-1])
    return np.asarray(lookup[codes], dtype=np.int64)  # code -1 (missing) takes the last entry


def _cells(frame: pd.DataFrame, metric: bool) -> tuple[Codes, Codes, set[int]]:
    """The rows sorted by (protocol, round kind[, metric]) cell, rows of a cell in frame order
    (a stable sort), where each cell starts (cell c is ``order[starts[c]:starts[c + 1]]``) and
    which (protocol, round kind) cells have rows whatever their metric."""
    parts = [(frame[PROTOCOL], PROTOCOLS), (frame[ROUND_KIND], ROUND_KINDS)]
    if metric:
        parts.append((frame[METRIC], METRICS))
    cell = np.zeros(len(frame), dtype=np.int64)
    valid = np.ones(len(frame), dtype=bool)
    size = 1
    present: set[int] = set()
    for number, (column, vocabulary) in enumerate(parts):
        codes = _vocabulary_codes(column, vocabulary)
        valid &= codes >= 0
        cell = cell * len(vocabulary) + np.maximum(codes, 0)
        size *= len(vocabulary)
        if number == 1:
            present = set(np.flatnonzero(np.bincount(cell[valid], minlength=size)).tolist())
    cell[~valid] = -1
    # A few dozen cells: as 16-bit integers the stable sort is a radix sort, linear in rows.
    order = np.argsort(cell.astype(np.int16), kind="stable")
    starts = np.searchsorted(cell[order], np.arange(size + 1))
    return order, starts, present


def agreement(scores: pd.DataFrame, turns: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Alpha per protocol x round kind x metric (ordinal), plus pair verdicts (nominal).

    The unit and judge codes are made once per frame, and the rows sorted once by their
    (protocol, round kind, metric) cell; each alpha then takes its cell's rows.
    """
    rows: list[dict[str, Any]] = []
    # Dense once for the frame, so a cell's units renumber by a table over them, not a sort.
    units = dense_codes(combined_codes(scores, [TRIAL_KEY, ROUND, POSITION])[0])[0]
    judges, _ = sort_codes(scores[JUDGE])
    values = _float_values(scores[SCORE])
    order, starts, present = _cells(scores, metric=True)
    voting = turns is not None and WINNER_POSITION in turns.columns
    if turns is not None and voting:
        turn_units = dense_codes(combined_codes(turns, [TRIAL_KEY, ROUND])[0])[0]
        turn_judges, _ = sort_codes(turns[JUDGE])
        votes = _float_values(turns[WINNER_POSITION])
        voted = (turns[PARSE_OK].astype(bool) & turns[WINNER_POSITION].notna()).to_numpy(dtype=bool)
        turn_order, turn_starts, _ = _cells(turns, metric=False)
    for p, protocol in enumerate(PROTOCOLS):
        for k, round_kind in enumerate(ROUND_KINDS):
            if p * len(ROUND_KINDS) + k not in present:
                continue  # no scores of this protocol and round kind
            first_cell = (p * len(ROUND_KINDS) + k) * len(METRICS)
            for m, metric in enumerate(METRICS):
                mine = order[starts[first_cell + m] : starts[first_cell + m + 1]]
                result = _alpha_from_codes(units[mine], judges[mine], values[mine], "ordinal")
                rows.append(_agreement_row(protocol, round_kind, metric, "ordinal", result))
            if protocol == "pair" and turns is not None and voting:
                cell = p * len(ROUND_KINDS) + k
                mine = turn_order[turn_starts[cell] : turn_starts[cell + 1]]
                mine = mine[voted[mine]]
                result = _alpha_from_codes(
                    turn_units[mine], turn_judges[mine], votes[mine], "nominal"
                )
                rows.append(_agreement_row(protocol, round_kind, "verdict", "nominal", result))
    return rows
