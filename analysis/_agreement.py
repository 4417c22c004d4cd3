"""Panel diagnostics: do the judges agree, and what does the debate do to their scores?

A panel is only worth its cost if its judges disagree at first (otherwise one judge would do)
and the discussion moves them for reasons (otherwise it is herding). Agreement is Krippendorff's
alpha with the judges as coders, per round kind: ordinal for scores (0-10 levels are ordered but
not evenly spaced in a judge's mind), nominal for pair verdicts. The debate's effect is each
judge's final score minus its own first score on the same candidate, by identity; conformity
asks whether that move went toward the other judges' first-round mean.
"""

from __future__ import annotations

from typing import Any, Literal

import krippendorff
import numpy as np
import numpy.typing as npt
import pandas as pd

from fairpanel.analysis._codes import Codes, combined_codes, dense_codes, sort_codes
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

CANDIDATE = [TRIAL_KEY, POSITION, METRIC]


Level = Literal["nominal", "ordinal"]


def _alpha_from_codes(
    unit: Codes, judge: Codes, values: npt.NDArray[np.float64], level: Level
) -> tuple[float | None, int, int]:
    """Alpha from row-aligned unit and judge codes (``-1`` missing; units in the order a sorted
    groupby visits them) and values (NaN missing): the first value of each (unit, judge) goes
    in, as ``groupby(...).first()`` would take it.

    The package gets the per-unit value counts (units x values) straight from a bincount
    instead of a judges x units matrix it would compare against every value; its coincidences
    then sum over the same units in the same order as from the matrix.
    """
    keep = (unit >= 0) & (judge >= 0)
    units, n_units = dense_codes(np.where(keep, unit, -1))
    judges, n_judges = dense_codes(np.where(keep, judge, -1))
    rows = np.flatnonzero(keep & ~np.isnan(values))
    _, first = np.unique(units[rows] * max(n_judges, 1) + judges[rows], return_index=True)
    rows = rows[first]
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
    alpha = krippendorff.alpha(value_counts=counts, value_domain=domain, level_of_measurement=level)
    return float_or_none(alpha), pairable, n_judges


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


def agreement(scores: pd.DataFrame, turns: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """Alpha per protocol x round kind x metric (ordinal), plus pair verdicts (nominal).

    The unit and judge codes are made once per frame; each alpha then takes its rows by mask.
    """
    rows: list[dict[str, Any]] = []
    units, _ = combined_codes(scores, [TRIAL_KEY, ROUND, POSITION])
    judges, _ = sort_codes(scores[JUDGE])
    values = _float_values(scores[SCORE])
    metrics = {metric: (scores[METRIC] == metric).to_numpy(dtype=bool) for metric in METRICS}
    voting = turns is not None and WINNER_POSITION in turns.columns
    if turns is not None and voting:
        turn_units, _ = combined_codes(turns, [TRIAL_KEY, ROUND])
        turn_judges, _ = sort_codes(turns[JUDGE])
        votes = _float_values(turns[WINNER_POSITION])
        voted = (turns[PARSE_OK].astype(bool) & turns[WINNER_POSITION].notna()).to_numpy(dtype=bool)
    for protocol in PROTOCOLS:
        for round_kind in ROUND_KINDS:
            selected = (
                (scores[PROTOCOL] == protocol) & (scores[ROUND_KIND] == round_kind)
            ).to_numpy(dtype=bool)
            if not selected.any():
                continue
            for metric in METRICS:
                mine = selected & metrics[metric]
                result = _alpha_from_codes(units[mine], judges[mine], values[mine], "ordinal")
                rows.append(_agreement_row(protocol, round_kind, metric, "ordinal", result))
            if protocol == "pair" and turns is not None and voting:
                mine = voted & (
                    (turns[PROTOCOL] == "pair") & (turns[ROUND_KIND] == round_kind)
                ).to_numpy(dtype=bool)
                result = _alpha_from_codes(
                    turn_units[mine], turn_judges[mine], votes[mine], "nominal"
                )
                rows.append(_agreement_row(protocol, round_kind, "verdict", "nominal", result))
    return rows
