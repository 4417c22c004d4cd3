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

from fairpanel.analysis._frames import (
    CATEGORY,
    JUDGE,
    PARSE_OK,
    PROTOCOL,
    TURN_COLUMNS,
    require_columns,
)

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


def _parse_flags(turns: pd.DataFrame) -> pd.Series:
    """``parse_ok`` as bool; anything other than True/False is a contract violation.

    ``astype(bool)`` alone would turn the string ``"False"`` or a NaN into True and hide failures.
    """
    flags = turns[PARSE_OK]
    valid = flags.map(lambda v: isinstance(v, bool | np.bool_))
    if not bool(valid.all()):
        bad = flags[~valid].iloc[0]
        raise ValueError(f"turns column {PARSE_OK!r} must be True or False, got {bad!r}")
    return flags.astype(bool)


def failure_rates(turns: pd.DataFrame) -> list[FailureRate]:
    """Parse-failure rate per (protocol, category, judge), sorted by those keys."""
    frame = require_columns(turns, TURN_COLUMNS, "turns")
    if frame.empty:
        return []
    failed = ~_parse_flags(frame)
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
