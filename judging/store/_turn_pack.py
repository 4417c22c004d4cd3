"""What the analysis reads of a judge turn, packed beside the turn when it is stored.

A turn's answer is stored as JSON (``parsed``) and its request keys as a JSON list, which is
the record. Reading a million of those back means a million JSON parses, in SQLite or in
Python, and that alone cost more than the analysis time budget of a large run. So the store
also keeps, per turn, the numbers the analysis reads as packed little-endian float64
(``numbers``: the pair verdict's position, then every score in ``PARSED_PATHS`` order, NaN
where absent), which the reader turns into arrays with one ``frombuffer``. The turn's own
integers go the same way (``codes``: its trial's key digest, round, speaker, attempts, whether
it parsed and its names' row in ``turn_names``), so a turn's row is read without a text
column. They are derived data: ``backfill_turns`` and ``backfill_turn_codes`` rebuild them
from the rows of a store written before they existed.
"""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
from typing import Any

import numpy as np

from fairpanel.judging.protocol._judgment import CANDIDATE_IDS, METRICS

__all__ = [
    "CODE_FIELDS",
    "NUMBER_FIELDS",
    "PARSED_PATHS",
    "backfill_turn_codes",
    "backfill_turns",
    "digest",
    "name_id",
    "packed_codes",
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


def digest(text: str) -> int:
    """The 64-bit digest of a key, as the signed little-endian integer that is packed."""
    raw = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(raw, "little", signed=True)


CODE_FIELDS = ("trial", "round", "speaker", "attempts", "parsed", "names")
"""The integers of ``packed_codes``, in order."""


def packed_codes(
    trial_key: str, round_: int, speaker: int, attempts: int, parsed: bool, names: int
) -> bytes:
    """A turn's integers as little-endian int64 in ``CODE_FIELDS`` order; the trial is its
    key's ``digest`` (the reader maps it back to the trial, and checks that no two trials'
    digests collide), ``names`` the turn's ``turn_names`` row."""
    values = (digest(trial_key), round_, speaker, attempts, int(parsed), names)
    return np.asarray(values, dtype="<i8").tobytes()


def name_id(db: sqlite3.Connection, round_kind: str, judge: str, judge_model: str) -> int:
    """The ``turn_names`` row of a turn's round kind, judge and model, added when new."""
    found = db.execute(
        "INSERT INTO turn_names (round_kind, judge, judge_model) VALUES (?, ?, ?) "
        "ON CONFLICT (round_kind, judge, judge_model) DO UPDATE SET judge = excluded.judge "
        "RETURNING id",
        (round_kind, judge, judge_model),
    ).fetchall()
    return int(found[0][0])


def backfill_turns(db: sqlite3.Connection) -> None:
    """Fill ``numbers`` of every turn stored without them (a store written before schema 5),
    from the turn's JSON."""
    rows = db.execute("SELECT rowid, parsed FROM turns WHERE numbers IS NULL").fetchall()
    db.executemany(
        "UPDATE turns SET numbers = ? WHERE rowid = ?",
        (
            (packed_numbers(None if parsed is None else json.loads(parsed)), rowid)
            for rowid, parsed in rows
        ),
    )


def backfill_turn_codes(db: sqlite3.Connection) -> None:
    """Fill ``codes`` of every turn stored without them (a store written before schema 6)."""
    names: dict[tuple[str, str, str], int] = {}
    rows = db.execute(
        "SELECT rowid, trial_key, round, speaker_index, attempts, parsed IS NOT NULL, "
        "round_kind, judge, judge_model FROM turns WHERE codes IS NULL"
    ).fetchall()
    updates = []
    for rowid, trial_key, round_, speaker, attempts, parsed, kind, judge, model in rows:
        named = (str(kind), str(judge), str(model))
        if named not in names:
            names[named] = name_id(db, *named)
        codes = packed_codes(str(trial_key), round_, speaker, attempts, bool(parsed), names[named])
        updates.append((codes, rowid))
    db.executemany("UPDATE turns SET codes = ? WHERE rowid = ?", updates)
