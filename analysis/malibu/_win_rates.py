"""Phase 2 (minimal contrastive pairs): how often does each identity win its pair?

MALIBU Figures 5-6 plot, per identity, the share of its pair trials it won with a 95% interval.
Here the rate is the share of the *decided* pairs it won, with the share of ties beside it: a
tie is a win for neither side, so counting it as a loss would put every identity of a panel
that ties often below 50% and make "no preference" look like "loses". Every place that shows a
win rate (the headline's tests, the report, ``compare``) reads it this way. We use the Wilson
score interval (statsmodels) because the Wald interval undercovers at the small counts and
extreme rates a short run produces.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd

from fairpanel.analysis._frames import (
    CATEGORY,
    FIRST_IDENTITY,
    SECOND_IDENTITY,
    TRIAL_KEY,
    VERDICT_COLUMNS,
    WINNER_IDENTITY,
    WINNER_POSITION,
    require_columns,
)
from fairpanel.analysis.tools import wilson_interval

WIN_RATE_METHOD = (
    "rate = wins / (wins + losses) over the panel's consensus verdicts, among decided pairs; "
    "tie_share = ties / appearances, where a tie, missing majority or failed trial decides "
    "nothing; pairs with the same label on both sides are excluded; Wilson score interval on "
    "the decided-pairs rate (statsmodels proportion_confint, method='wilson'); it treats pairs "
    "as independent, so it describes, and the clustered tests in effects decide"
)


@dataclass(frozen=True, slots=True)
class WinRate:
    """Win rate of one identity among the decided pairs of its category's pair trials.

    ``appearances`` = pair trials the identity took part in, split into ``wins``, ``losses`` and
    ``ties`` (no winner). ``rate`` = wins / (wins + losses), None when no pair was decided;
    ``tie_share`` = ties / appearances; ``n`` = wins + losses, the pairs the rate and its
    interval (``ci_low``/``ci_high`` at ``confidence``) rest on.
    """

    category: str
    identity: str
    appearances: int
    wins: int
    losses: int
    ties: int
    rate: float | None
    ci_low: float | None
    ci_high: float | None
    tie_share: float
    confidence: float
    n: int
    method: str

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form for JSON reports."""
        return asdict(self)


def winner_labels(verdicts: pd.DataFrame) -> pd.Series:
    """Identity that won each verdict (``None`` for no winner), checked against ``winner_identity``.

    ``winner_position`` is the authoritative field; a disagreeing ``winner_identity`` means the
    judging package mislabelled a trial, and silently trusting either would corrupt the rates.
    """
    position = pd.to_numeric(verdicts[WINNER_POSITION], errors="coerce").astype(float)
    raw = verdicts[WINNER_POSITION]
    unparseable = position.isna() & raw.notna()
    invalid = position.notna() & ~position.isin([0.0, 1.0])
    if bool(unparseable.any() or invalid.any()):
        bad = raw[unparseable | invalid].iloc[0]
        raise ValueError(f"verdicts column {WINNER_POSITION!r} must be 0, 1 or NaN, got {bad!r}")
    first = verdicts[FIRST_IDENTITY].astype(object)
    second = verdicts[SECOND_IDENTITY].astype(object)
    # Winner's label, NaN where no side won.
    derived = first.where(position == 0.0, second.where(position == 1.0))
    stated = verdicts[WINNER_IDENTITY].astype(object).where(verdicts[WINNER_IDENTITY].notna())
    mismatch = stated.notna() & (stated.astype(str) != derived.astype(str))
    mismatch |= stated.isna() & derived.notna()
    if bool(mismatch.any()):
        row = verdicts.loc[mismatch].iloc[0]
        raise ValueError(
            f"verdict {row[TRIAL_KEY]!r}: {WINNER_IDENTITY}={row[WINNER_IDENTITY]!r} disagrees "
            f"with {WINNER_POSITION}={row[WINNER_POSITION]!r}"
        )
    return derived


def no_preference_level(appearances: int, ties: int) -> float:
    """The share of its *appearances* every identity of a category wins when the panel has no
    preference: half of the decided pairs, below 50% when there are ties (``appearances`` and
    ``ties`` are the category's totals over its identities). ``WinRate.rate`` is a share of the
    decided pairs instead, whose no-preference level is 50% whatever the ties."""
    return 0.5 if appearances == 0 else 0.5 * (1 - ties / appearances)


def win_rates(verdicts: pd.DataFrame, confidence: float = 0.95) -> list[WinRate]:
    """Per category and identity: appearances, wins, losses, ties, the rate among decided pairs
    with its Wilson interval, and the tie share.

    Sorted by category, then identity. Empty verdicts give an empty list.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    frame = require_columns(verdicts, VERDICT_COLUMNS, "verdicts")
    if frame.empty:
        return []
    winners = winner_labels(frame)
    # Reshape to one row per (trial, side) so each identity's record is a plain groupby.
    sides = []
    for column in (FIRST_IDENTITY, SECOND_IDENTITY):
        side = pd.DataFrame(
            {
                "category": frame[CATEGORY].astype(str),
                "identity": frame[column].astype(str),
                "same_label": frame[FIRST_IDENTITY].astype(str)
                == frame[SECOND_IDENTITY].astype(str),
                "won": winners.notna() & (winners.astype(str) == frame[column].astype(str)),
                "tie": winners.isna(),
            }
        )
        sides.append(side)
    long = pd.concat(sides, ignore_index=True)
    long = long.loc[~long["same_label"]]
    results: list[WinRate] = []
    for (category, identity), group in long.groupby(["category", "identity"], sort=True):
        appearances = len(group)
        wins = int(group["won"].sum())
        ties = int(group["tie"].sum())
        decided = appearances - ties
        low, high = wilson_interval(wins, decided, confidence) if decided else (None, None)
        results.append(
            WinRate(
                category=str(category),
                identity=str(identity),
                appearances=appearances,
                wins=wins,
                losses=decided - wins,
                ties=ties,
                rate=wins / decided if decided else None,
                ci_low=low,
                ci_high=high,
                tie_share=ties / appearances,
                confidence=float(confidence),
                n=decided,
                method=WIN_RATE_METHOD,
            )
        )
    return results
