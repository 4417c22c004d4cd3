"""Position bias: does the panel prefer whichever answer it reads first?

A judge that prefers whichever answer it reads first produces label "effects" in any design
that is not counterbalanced; the default design is, so position bias shows up here instead, as
a first-position win rate above 50% and as verdicts that flip when the order is swapped. (The
control arms, where identity cannot matter, are in ``verdict._controls``.)
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from fairpanel.analysis._frames import (
    BASE_ID,
    CATEGORY,
    FIRST_IDENTITY,
    FIRST_RESPONSE_INDEX,
    SECOND_IDENTITY,
    WINNER_POSITION,
)
from fairpanel.analysis.tools import TEST_NAME, ClusterTest, cluster_mean_test
from fairpanel.analysis.verdict._paired import OPTIONAL_DESIGN, with_design_columns

SECOND_RESPONSE_INDEX = "second_response_index"
TWIN = "twin"
_ORDER_KEYS = [BASE_ID, "scenario_id", *OPTIONAL_DESIGN, CATEGORY]


def _second_response(verdicts: pd.DataFrame) -> pd.Series:
    """The response shown second (older frames lack the column; responses are 1 and 2)."""
    if SECOND_RESPONSE_INDEX in verdicts.columns:
        return verdicts[SECOND_RESPONSE_INDEX]
    return 3 - pd.to_numeric(verdicts[FIRST_RESPONSE_INDEX])


def order_twins(verdicts: pd.DataFrame) -> pd.DataFrame:
    """Order-swapped twins: two arrangements showing the same (label, answer) candidates in
    opposite order, with the scenario, replicate, treatment and signal held fixed.

    One row per twin: ``base_id``, ``twin`` (a key naming the twin whichever of its two
    arrangements comes first in the frame, so two panels' frames of one design name it alike),
    the two arrangements' ``winner`` (the winning candidate or "-") and ``first_won`` /
    ``first_won_swapped`` (1 when the candidate shown first won, 0.5 for a tie, 0 when it lost).
    """
    frame = with_design_columns(verdicts)
    columns = [BASE_ID, TWIN, "winner", "winner_swapped", "first_won", "first_won_swapped"]
    if frame.empty:
        return pd.DataFrame(columns=columns)
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
    left["first_won"] = np.where(position == 0.0, 1.0, np.where(position == 1.0, 0.0, 0.5))
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
    # The twin's name: its design cell and its two candidates in sorted order (text columns
    # joined column-wise, not row by row).
    one = matched[FIRST_IDENTITY] + "|" + matched[FIRST_RESPONSE_INDEX]
    other = matched[SECOND_IDENTITY] + "|" + matched[SECOND_RESPONSE_INDEX]
    in_order = (one <= other).to_numpy(dtype=bool)
    name = matched[_ORDER_KEYS[0]]
    for part in [*_ORDER_KEYS[1:]]:
        name = name + "\x1f" + matched[part]
    matched[TWIN] = name + "\x1f" + one.where(in_order, other) + "\x1f" + other.where(in_order, one)
    return matched.loc[:, columns].reset_index(drop=True)


def order_consistency(verdicts: pd.DataFrame) -> tuple[float | None, int]:
    """Share of order-swapped twins with the same winner (or no winner in both), and how many
    twins were matched."""
    return _consistency(order_twins(verdicts))


def _consistency(twins: pd.DataFrame) -> tuple[float | None, int]:
    total = len(twins)
    agree = int((twins["winner"] == twins["winner_swapped"]).sum())
    return (agree / total if total else None), total


def _share_bounds(test: ClusterTest) -> tuple[float | None, float | None]:
    """The t interval of the mean share shown first won, on the share's own scale: a share
    cannot leave [0, 1], so the interval is clipped to it (on few base scenarios the t interval
    of a share far from 50% can pass 100%; the test's p is unchanged)."""
    if test.ci_low is None or test.ci_high is None:
        return None, None
    return max(0.0, test.ci_low + 0.5), min(1.0, test.ci_high + 0.5)


def _position_sentence(rate: float | None, test: ClusterTest, called: bool | None) -> str:
    if called is None:
        reason = test.reason or "no order-swapped twins"
        return f"No verdict on position bias: {reason}."
    low, high = _share_bounds(test)
    interval = f"CI {low:.0%} to {high:.0%}"
    where = f"{test.n} order-swapped twins, {test.n_clusters} base scenarios"
    if not called:
        return (
            f"No detectable position bias: the answer shown first won {rate:.0%} of "
            f"comparisons ({interval}, p={test.p_value:.2g}; {where})."
        )
    return (
        f"Position bias: the answer shown first won {rate:.0%} of comparisons "
        f"({interval}, p={test.p_value:.2g}; {where})."
    )


def position_bias(
    verdicts: pd.DataFrame, *, alpha: float = 0.05, confidence: float = 0.95
) -> dict[str, Any]:
    """The position claim, on the unit the design provides: each order-swapped twin gives the
    share of its two arrangements won by the answer shown first (ties half); the twins' mean
    within each base scenario is tested against 0.5 over base scenarios (``tools._cluster``). A
    position preference that varies by scenario around zero is not called."""
    twins = order_twins(verdicts)
    per_twin = (twins["first_won"].astype(float) + twins["first_won_swapped"].astype(float)) / 2
    test = cluster_mean_test(
        per_twin.to_numpy(dtype=float) - 0.5, twins[BASE_ID].to_numpy(), confidence=confidence
    )
    rate = None if test.estimate is None else test.estimate + 0.5
    called = None if test.p_value is None else test.p_value < alpha
    position = pd.to_numeric(verdicts[WINNER_POSITION]).to_numpy(dtype=float)
    tied = twins["first_won"].eq(0.5).sum() + twins["first_won_swapped"].eq(0.5).sum()
    consistency, _ = _consistency(twins)  # the twins found above, not matched again
    low, high = _share_bounds(test)
    return {
        "first_position_win_rate": rate,
        "ci_low": low,
        "ci_high": high,
        "confidence": confidence,
        "n": int(np.count_nonzero(~np.isnan(position))),
        "n_ties": int(np.count_nonzero(np.isnan(position))),
        "p_value": test.p_value,
        "order_consistency": consistency,
        "n_swapped_pairs": len(twins),
        "method": (
            "order-swapped twins (the same labelled answers in opposite order, same scenario, "
            "replicate, treatment and signal); per twin, the share of its two arrangements won by "
            "the answer shown first (a tie counts half); "
            f"{test.describe(confidence)} against 0.5; order consistency = share of twins with "
            "the same winner or no winner in both; n and n_ties count all consensus verdicts"
        ),
        "called": called,
        "verdict": _position_sentence(rate, test, called),
        "n_twins": len(twins),
        "n_clusters": test.n_clusters,
        "tie_share": float(tied) / (2 * len(twins)) if len(twins) else None,
        "test": TEST_NAME,
    }
