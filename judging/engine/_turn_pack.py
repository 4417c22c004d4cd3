"""What the analysis reads of a judge turn, packed beside the turn when it is stored.

A turn's answer is stored as JSON (``parsed``) and its request keys as a JSON list, which is
the record. Reading a million of those back means a million JSON parses, in SQLite or in
Python, and that alone cost more than the analysis time budget of a large run. So the store
also keeps, per turn, the numbers the analysis reads as packed little-endian float64
(``numbers``: the pair verdict's position, then every score in ``PARSED_PATHS`` order, NaN
where absent) and a 64-bit digest of each request key (``key_hashes``), which the reader turns
into arrays with one ``frombuffer``. They are derived data: ``backfill_turns`` rebuilds them
from the JSON of a store written before they existed.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from collections.abc import Sequence
from typing import Any

import numpy as np

from fairpanel.judging.protocol._judgment import CANDIDATE_IDS, METRICS

__all__ = [
    "NUMBER_FIELDS",
    "PARSED_PATHS",
    "backfill_turns",
    "key_hashes",
    "packed_numbers",
]

PARSED_PATHS: tuple[tuple[str, ...], ...] = (
    *((metric,) for metric in METRICS),
    *((candidate, metric) for candidate in CANDIDATE_IDS for metric in METRICS),
)
"""The scores of a turn: a single answer's metrics, then each pair candidate's."""
NUMBER_FIELDS = 1 + len(PARSED_PATHS)
_POSITIONS = {"A": 0.0, "B": 1.0}


def _number(parsed: dict[str, Any], path: tuple[str, ...]) -> float:
    value: Any = parsed
    for step in path:
        if not isinstance(value, dict) or step not in value:
            return math.nan
        value = value[step]
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"a parsed judge answer holds a score that is not a number: {value!r}")
    return float(value)


def packed_numbers(parsed: dict[str, Any] | None) -> bytes:
    """The pair verdict's position (0 for A, 1 for B, NaN otherwise) and the scores of a
    parsed answer (NaN where absent; all NaN for an unparsed turn), packed."""
    if parsed is None:
        return np.full(NUMBER_FIELDS, np.nan, dtype="<f8").tobytes()
    winner = parsed.get("winner")
    values = [_POSITIONS.get(winner, math.nan) if isinstance(winner, str) else math.nan]
    values.extend(_number(parsed, path) for path in PARSED_PATHS)
    return np.asarray(values, dtype="<f8").tobytes()


def key_hashes(call_keys: Sequence[str]) -> bytes:
    """A 64-bit digest per request key, packed. Equal keys digest alike; two different keys
    that collide can only make trials look like repeats, which the reader checks on the keys
    themselves."""
    return b"".join(
        hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest() for key in call_keys
    )


def backfill_turns(db: sqlite3.Connection) -> None:
    """Fill ``numbers`` and ``key_hashes`` of every turn stored without them (a store written
    before schema 5), from the turn's JSON."""
    rows = db.execute(
        "SELECT rowid, parsed, call_keys FROM turns WHERE numbers IS NULL OR key_hashes IS NULL"
    ).fetchall()
    db.executemany(
        "UPDATE turns SET numbers = ?, key_hashes = ? WHERE rowid = ?",
        (
            (
                packed_numbers(None if parsed is None else json.loads(parsed)),
                key_hashes([str(key) for key in json.loads(keys)]),
                rowid,
            )
            for rowid, parsed, keys in rows
        ),
    )
