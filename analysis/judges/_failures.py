"""Parse-failure rates of judge turns.

Scores only exist for turns whose JSON parsed. If failures are frequent, or concentrated on one
judge, protocol or category, the surviving scores are a selected sample and identity effects may
be artefacts of which turns failed; so the rates belong next to every bias estimate.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint

from fairpanel.analysis._frames import (
    CATEGORY,
    JUDGE,
    PARSE_OK,
    PROTOCOL,
    TURN_COLUMNS,
    require_columns,
)
from fairpanel.analysis.tools import Codes, group_numbers, text_codes

FAILURE_METHOD = (
    "rate = judge turns with parse_ok False / all judge turns, per protocol x category x judge"
)


@dataclass(frozen=True, slots=True)
class FailureRate:
    """Share of one judge's turns (in one protocol and category) whose output did not parse."""

    protocol: str
    category: str
    judge: str
    turns: int
    failures: int
    rate: float
    n: int
    method: str

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form for JSON reports."""
        return asdict(self)


def parse_flags(turns: pd.DataFrame) -> pd.Series:
    """``parse_ok`` as bool; anything other than True/False is a contract violation.

    ``astype(bool)`` alone would turn the string ``"False"`` or a NaN into True and hide failures.
    """
    flags = turns[PARSE_OK]
    if flags.dtype == bool:  # a bool column holds nothing else
        return flags
    valid = flags.map(lambda v: isinstance(v, bool | np.bool_))
    if not bool(valid.all()):
        bad = flags[~valid].iloc[0]
        raise ValueError(f"turns column {PARSE_OK!r} must be True or False, got {bad!r}")
    return flags.astype(bool)


def _failure_rates_by_codes(
    texts: list[tuple[Codes, list[str]]], failed: pd.Series
) -> list[FailureRate]:
    """``failure_rates`` from the key columns' text codes: counts by bincount, groups in
    sorted order (what the groupby over the columns as text gives)."""
    groups, names = group_numbers(texts)
    totals = np.bincount(groups, minlength=len(names))
    failures = np.bincount(groups, weights=failed.to_numpy(dtype=float), minlength=len(names))
    return [
        FailureRate(
            protocol=protocol,
            category=category,
            judge=judge,
            turns=int(total),
            failures=int(count),
            rate=int(count) / int(total),
            n=int(total),
            method=FAILURE_METHOD,
        )
        for (protocol, category, judge), total, count in zip(
            names, totals.tolist(), failures.tolist(), strict=True
        )
    ]


def failure_rates(turns: pd.DataFrame) -> list[FailureRate]:
    """Parse-failure rate per (protocol, category, judge), sorted by those keys."""
    frame = require_columns(turns, TURN_COLUMNS, "turns")
    if frame.empty:
        return []
    failed = ~parse_flags(frame)
    texts = [text_codes(frame[column]) for column in (PROTOCOL, CATEGORY, JUDGE)]
    if all(text is not None for text in texts):
        return _failure_rates_by_codes(texts, failed)  # type: ignore[arg-type]
    keyed = pd.DataFrame(
        {
            "protocol": frame[PROTOCOL].astype(str),
            "category": frame[CATEGORY].astype(str),
            "judge": frame[JUDGE].astype(str),
            "failed": failed,
        }
    )
    results: list[FailureRate] = []
    for (protocol, category, judge), group in keyed.groupby(
        ["protocol", "category", "judge"], sort=True
    ):
        total = len(group)
        failures = int(group["failed"].sum())
        results.append(
            FailureRate(
                protocol=str(protocol),
                category=str(category),
                judge=str(judge),
                turns=total,
                failures=failures,
                rate=failures / total,
                n=total,
                method=FAILURE_METHOD,
            )
        )
    return results


FAILURE_BY_IDENTITY_METHOD = (
    "rate = judge turns with parse_ok False / all judge turns of trials showing the identity "
    "(a pair trial counts for both of its labels; protocols pooled), per category x identity x "
    "judge; Wilson score interval (statsmodels proportion_confint)"
)


Counted = list[tuple[tuple[str, str, str], int, int]]
"""(category, identity, judge), turns, failed turns: in sorted order."""


def _identity_counts_pandas(frame: pd.DataFrame, failed: pd.Series) -> Counted:
    # A same-label pair trial shows its one label twice; count it once.
    repeated = frame["first_identity"] == frame["second_identity"]
    sides = [
        pd.DataFrame(
            {
                "category": frame[CATEGORY].astype(str),
                "identity": frame[column].mask(repeated) if skip_repeats else frame[column],
                "judge": frame[JUDGE].astype(str),
                "failed": failed,
            }
        )
        for column, skip_repeats in (("first_identity", False), ("second_identity", True))
    ]
    long = pd.concat(sides, ignore_index=True)
    long = long.loc[long["identity"].notna()]
    return [
        ((str(category), str(identity), str(judge)), len(group), int(group["failed"].sum()))
        for (category, identity, judge), group in long.groupby(
            ["category", "identity", "judge"], sort=True
        )
    ]


def _label_codes(one: pd.Series, two: pd.Series) -> tuple[list[Codes], list[str]]:
    """Both label columns' codes (``-1`` missing) over one list of labels, in the order the
    groupby over the two stacked columns sorts them: category order when both are
    categoricals of the same categories (stacked, they stay one), text order otherwise."""
    if (
        isinstance(one.dtype, pd.CategoricalDtype)
        and isinstance(two.dtype, pd.CategoricalDtype)
        and one.cat.categories.equals(two.cat.categories)
    ):
        codes = [np.asarray(column.cat.codes, dtype=np.int64) for column in (one, two)]
        return codes, [str(name) for name in one.cat.categories]
    first, second = text_codes(one, missing=True), text_codes(two, missing=True)
    assert first is not None and second is not None
    names = sorted(set(first[1]) | set(second[1]))
    joint = [
        np.where(codes >= 0, np.searchsorted(names, np.asarray(own, dtype=object))[codes], -1)
        if own
        else codes
        for codes, own in (first, second)
    ]
    return joint, names


def _identity_counts(frame: pd.DataFrame, failed: pd.Series) -> Counted | None:
    """``_identity_counts_pandas`` on text codes (``None`` when a category or judge is
    missing): each turn counts under its first label and, unless it repeats the first, its
    second; the two label columns are numbered together (``_label_codes``)."""
    category, judge = text_codes(frame[CATEGORY]), text_codes(frame[JUDGE])
    if category is None or judge is None:
        return None
    joint, names = _label_codes(frame["first_identity"], frame["second_identity"])
    shown = joint[1] >= 0
    shown &= joint[1] != joint[0]
    rows = np.concatenate([np.flatnonzero(joint[0] >= 0), np.flatnonzero(shown)])
    identity = np.concatenate([joint[0][joint[0] >= 0], joint[1][shown]])
    groups, found = group_numbers(
        [(category[0][rows], category[1]), (identity, names), (judge[0][rows], judge[1])]
    )
    totals = np.bincount(groups, minlength=len(found))
    flags = failed.to_numpy(dtype=float)[rows]
    failures = np.bincount(groups, weights=flags, minlength=len(found))
    return [
        ((category_name, identity_name, judge_name), int(total), int(count))
        for (category_name, identity_name, judge_name), total, count in zip(
            found, totals.tolist(), failures.tolist(), strict=True
        )
    ]


def failure_rates_by_identity(
    turns: pd.DataFrame, confidence: float = 0.95
) -> list[dict[str, Any]]:
    """Parse-failure rate per (category, identity, judge), with a Wilson interval.

    A judge that fails more often on one label drops that label's hardest cases from the
    scores, which can fake or hide an effect. Needs the ``first_identity`` and
    ``second_identity`` turn columns; without them the list is empty.
    """
    frame = require_columns(turns, TURN_COLUMNS, "turns")
    if frame.empty or not {"first_identity", "second_identity"} <= set(frame.columns):
        return []
    failed = ~parse_flags(frame)
    counted = _identity_counts(frame, failed)
    if counted is None:
        counted = _identity_counts_pandas(frame, failed)
    rows: list[dict[str, Any]] = []
    for (category, identity, judge), total, count in counted:
        low, high = proportion_confint(count, total, alpha=1.0 - confidence, method="wilson")
        rows.append(
            {
                "category": str(category),
                "identity": str(identity),
                "judge": str(judge),
                "turns": total,
                "failed": count,
                "rate": count / total,
                "ci_low": float(low),
                "ci_high": float(high),
                "confidence": confidence,
                "n": total,
                "method": FAILURE_BY_IDENTITY_METHOD,
            }
        )
    return rows
