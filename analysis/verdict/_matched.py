"""The primary contrasts per matched unit, for comparing two sets of frames of one design.

Two comparisons hold the whole design fixed but one thing: a treatment against the baseline
(``verdict._interactions``) and one judge panel against another (``panels._differences``). Both
subtract the same unit's primary contrast (the panel consensus's overall score difference of one
response under two labels, or the label-swap contrast of two answers in one order) across the two
sets, so that everything the unit holds fixed (scenario, answers, order, replicate, signal) cancels.
This module builds those units once for both.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Protocol

import pandas as pd

from fairpanel.analysis._frames import (
    CATEGORY,
    FIRST_IDENTITY,
    IDENTITY,
    OVERALL,
    SECOND_IDENTITY,
)
from fairpanel.analysis.verdict._pair_verdicts import SWAP_KEYS, label_swaps, pair_outcomes
from fairpanel.analysis.verdict._paired import UNIT, differences_of, label_columns, panel_scores

__all__ = [
    "SCALES",
    "ArmFrames",
    "Contrast",
    "contrast_units",
    "match_units",
    "primary_contrasts",
]

Contrast = tuple[str, str, str, str]
"""(protocol, category, identity, versus) of one primary contrast; positive favours identity."""

SCALES = {"single": "score points", "pair": "win share - 0.5"}
"""The scale of each protocol's primary contrast."""


class ArmFrames(Protocol):
    """The stored frames of one arm under one treatment and one panel (``judging.RunFrames``
    is one)."""

    scores: pd.DataFrame
    verdicts: pd.DataFrame
    turns: pd.DataFrame
    consensus: pd.DataFrame


def _labels(values: pd.Series) -> list[str]:
    return sorted({str(v) for v in values.dropna().unique()})


def primary_contrasts(frames: ArmFrames) -> set[Contrast]:
    """The primary contrasts ``frames`` can hold: every sorted label pair of every category,
    once per protocol that showed the category."""
    found: set[Contrast] = set()
    for category, rows in frames.scores.groupby(CATEGORY):
        for pair in itertools.combinations(_labels(rows[IDENTITY]), 2):
            found.add(("single", str(category), *pair))
    for category, rows in frames.verdicts.groupby(CATEGORY):
        labels = _labels(pd.concat([rows[FIRST_IDENTITY], rows[SECOND_IDENTITY]]))
        for pair in itertools.combinations(labels, 2):
            found.add(("pair", str(category), *pair))
    return found


def _single_units(frames: ArmFrames, category: str, pair: tuple[str, str]) -> pd.DataFrame:
    panel = panel_scores(frames.scores, frames.consensus, "final")
    if panel.empty:
        return pd.DataFrame(columns=[*UNIT, "difference"])
    return differences_of(label_columns(panel, category), *pair, OVERALL)


def _swap_units(frames: ArmFrames, category: str, pair: tuple[str, str]) -> pd.DataFrame:
    outcomes = pair_outcomes(frames.verdicts)
    rows = outcomes.loc[outcomes[CATEGORY] == category]
    matched = label_swaps(rows, *pair)
    # ``change`` is in outcome units (win 1, tie 0, loss -1); the contrast is half the change
    # in win shares (1, 1/2, 0), so change / 4, as ``_verdict_tests.swap_effect`` defines it.
    return matched.assign(difference=matched["change"].to_numpy(dtype=float) / 4.0)


def contrast_units(frames: ArmFrames, contrast: Contrast) -> tuple[pd.DataFrame, list[str]]:
    """One row per matched unit of ``contrast`` in ``frames`` (its key columns and
    ``difference``, the unit's contrast on the protocol's scale), and the names of the keys
    that identify a unit."""
    protocol, category, identity, versus = contrast
    if protocol == "single":
        return _single_units(frames, category, (identity, versus)), list(UNIT)
    return _swap_units(frames, category, (identity, versus)), list(SWAP_KEYS)


def match_units(
    first: pd.DataFrame,
    second: pd.DataFrame,
    keys: Iterable[str],
    *,
    value: str = "difference",
    ignore: Iterable[str] = (),
) -> pd.DataFrame:
    """The units present in both frames, matched on ``keys`` (less ``ignore``, the one thing
    that differs between the two sets, and less keys either frame lacks): the keys and
    ``first`` / ``second``, each frame's ``value`` of the unit."""
    skipped = set(ignore)
    on = [k for k in keys if k not in skipped and k in first.columns and k in second.columns]
    left = first.loc[:, [*on, value]].rename(columns={value: "first"})
    right = second.loc[:, [*on, value]].rename(columns={value: "second"})
    return left.merge(right, on=on)
