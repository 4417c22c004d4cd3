"""Position bias: does the panel prefer whichever answer it reads first?

A judge that prefers whichever answer it reads first produces label "effects" in any design
that is not counterbalanced; the default design is, so position bias shows up here instead, as
a first-position win rate above 50% and as verdicts that flip when the order is swapped. (The
control arms, where identity cannot matter, are in ``_controls``.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from fairpanel.analysis._frames import (
    BASE_ID,
    CATEGORY,
    FIRST_IDENTITY,
    FIRST_RESPONSE_INDEX,
    SECOND_IDENTITY,
    WINNER_POSITION,
)
from fairpanel.analysis._paired import OPTIONAL_DESIGN, with_design_columns
from fairpanel.analysis._resample import DEFAULT_BOOTSTRAP, bootstrap_ratio, seed_for

SECOND_RESPONSE_INDEX = "second_response_index"
_ORDER_KEYS = [BASE_ID, "scenario_id", *OPTIONAL_DESIGN, CATEGORY]


def _second_response(verdicts: pd.DataFrame) -> pd.Series:
    """The response shown second (older frames lack the column; responses are 1 and 2)."""
    if SECOND_RESPONSE_INDEX in verdicts.columns:
        return verdicts[SECOND_RESPONSE_INDEX]
    return 3 - pd.to_numeric(verdicts[FIRST_RESPONSE_INDEX])


def order_consistency(verdicts: pd.DataFrame) -> tuple[float | None, int]:
    """Share of order-swapped arrangements with the same winner, and how many were matched.

    Two arrangements are an order swap when they show the same (label, answer) candidates in
    opposite order, with the scenario, replicate, treatment and signal held fixed. They agree
    when the same candidate wins both, or neither has a winner.
    """
    frame = with_design_columns(verdicts)
    if frame.empty:
        return None, 0
    shown = [FIRST_IDENTITY, FIRST_RESPONSE_INDEX, SECOND_IDENTITY, SECOND_RESPONSE_INDEX]
    position = pd.to_numeric(frame[WINNER_POSITION]).to_numpy(dtype=float)
    first = frame[FIRST_IDENTITY].astype(str) + "|" + frame[FIRST_RESPONSE_INDEX].astype(str)
    second_response = _second_response(frame)
    second = frame[SECOND_IDENTITY].astype(str) + "|" + second_response.astype(str)
    left = frame.loc[:, _ORDER_KEYS].astype(str)
    left[FIRST_IDENTITY] = frame[FIRST_IDENTITY].astype(str)
    left[FIRST_RESPONSE_INDEX] = frame[FIRST_RESPONSE_INDEX].astype(str)
    left[SECOND_IDENTITY] = frame[SECOND_IDENTITY].astype(str)
    left[SECOND_RESPONSE_INDEX] = second_response.astype(str)
    left["winner"] = np.where(position == 0.0, first, np.where(position == 1.0, second, "-"))
    left["row"] = np.arange(len(frame))
    swapped = left.rename(
        columns={
            FIRST_IDENTITY: SECOND_IDENTITY,
            SECOND_IDENTITY: FIRST_IDENTITY,
            FIRST_RESPONSE_INDEX: SECOND_RESPONSE_INDEX,
            SECOND_RESPONSE_INDEX: FIRST_RESPONSE_INDEX,
        }
    )
    matched = left.merge(swapped, on=[*_ORDER_KEYS, *shown], suffixes=("", "_swapped"))
    matched = matched.loc[matched["row"] < matched["row_swapped"]]
    total = len(matched)
    agree = int((matched["winner"] == matched["winner_swapped"]).sum())
    return (agree / total if total else None), total


def position_bias(
    verdicts: pd.DataFrame,
    *,
    confidence: float = 0.95,
    seed: int = 0,
    n_boot: int = DEFAULT_BOOTSTRAP,
) -> dict[str, Any]:
    """First-position win rate over decided verdicts (exact binomial test against 50%, cluster
    bootstrap interval) and order consistency across order-swapped arrangements."""
    position = pd.to_numeric(verdicts[WINNER_POSITION]).to_numpy(dtype=float)
    decided = ~np.isnan(position)
    first_won = decided & (position == 0.0)
    wins, n = int(first_won.sum()), int(decided.sum())
    interval = bootstrap_ratio(
        first_won.astype(float),
        decided.astype(float),
        verdicts[BASE_ID].to_numpy(),
        seed=seed_for(seed, "position"),
        confidence=confidence,
        n_boot=n_boot,
    )
    consistency, swapped = order_consistency(verdicts)
    return {
        "first_position_win_rate": wins / n if n else None,
        "ci_low": interval.low,
        "ci_high": interval.high,
        "confidence": confidence,
        "n": n,
        "n_ties": int(len(position) - n),
        "p_value": float(binomtest(wins, n, 0.5).pvalue) if n else None,
        "order_consistency": consistency,
        "n_swapped_pairs": swapped,
        "method": (
            "first-position wins / decided consensus verdicts (ties left out); exact two-sided "
            f"binomial test against 0.5 (scipy binomtest); {interval.describe(confidence)}; "
            "order consistency = share of order-swapped arrangements (same labelled answers, "
            "opposite order, same scenario, replicate, treatment and signal) with the same "
            "winner or no winner in both"
        ),
    }
