"""The store's judge turns read in columns, for ``frame_columns``.

A million turns cannot go through Python one row at a time, nor through a JSON parse each: a
tuple per row costs more than SQLite's whole scan. Each turn was stored with what the analysis
reads of it packed beside its JSON (``_turn_pack``: its integers and its numbers), so SQLite
joins each range of turns' packs into two byte strings and numpy reads them with
``frombuffer``: no text column is read per turn. Python holds a handful of objects per range.
Trials that repeat one another are found from the trials' digests of their request keys (see
``repeated_trials``), without reading the turns' keys.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fairpanel.judging.store._store import Store
from fairpanel.judging.store._trial_pack import UNIT
from fairpanel.judging.store._turn_pack import CODE_FIELDS, NUMBER_FIELDS, digest

__all__ = [
    "TurnColumns",
    "TurnPacks",
    "duplicate_trials_of",
    "read_turn_packs",
    "read_turns",
    "repeated_trials",
    "stored_call_keys",
]

RANGE_TURNS = 262_144
"""Turns (by rowid) read per query: bounds the longest buffer SQLite builds and Python holds
(tens of megabytes), whatever the size of the run."""

TEXT_COLUMNS = ("round_kind", "judge", "judge_model")
_CODE = {name: index for index, name in enumerate(CODE_FIELDS)}


@dataclass(frozen=True)
class TurnColumns:
    """The judge turns, one entry per turn in trial, round and speaker order.

    ``trial`` is the turn's trial as a position in the caller's trial order; ``numbers`` has
    one column per score of ``PARSED_PATHS`` (NaN where missing or unparsed); ``call_keys``,
    when asked for, holds each turn's request keys as a tuple."""

    trial: np.ndarray
    round: np.ndarray
    attempts: np.ndarray
    parse_ok: np.ndarray
    winner_position: np.ndarray
    round_kind: pd.Categorical
    judge: pd.Categorical
    judge_model: pd.Categorical
    numbers: np.ndarray
    call_keys: list[tuple[str, ...]] | None


def _categorical(codes: np.ndarray, names: Sequence[str]) -> Any:
    """Codes into ``names`` as a categorical with sorted categories (sorting by the column
    stays lexical, as it was for strings)."""
    order = sorted(range(len(names)), key=names.__getitem__)
    rank = np.empty(len(names), dtype=np.int32)
    rank[order] = np.arange(len(names), dtype=np.int32)
    return pd.Categorical.from_codes(rank[codes], categories=pd.Index([names[i] for i in order]))


def _packed(blob: bytes | None, dtype: str, width: int, count: int, what: str) -> np.ndarray:
    values = np.frombuffer(blob or b"", dtype=dtype)
    if values.size != count * width:
        raise ValueError(f"the store holds judge turns without their packed {what}")
    return values.reshape(count, width) if width > 1 else values


class TurnPacks:
    """Every turn's packed codes and numbers (``_turn_pack``) as read, range by range, in
    the table's order; and with ``keep_keys`` its request keys."""

    def __init__(self, keep_keys: bool) -> None:
        self._codes: list[np.ndarray] = []
        self._numbers: list[np.ndarray] = []
        self.keys: list[tuple[str, ...]] | None = [] if keep_keys else None

    def add(self, row: tuple[Any, ...]) -> None:
        """One range's aggregates (see ``read_turn_packs``)."""
        count, codes, numbers, keys = row
        self._codes.append(_packed(codes, "<i8", len(CODE_FIELDS), count, "codes"))
        self._numbers.append(_packed(numbers, "<f8", NUMBER_FIELDS, count, "numbers"))
        if self.keys is not None:
            listed = json.loads(f"[{keys}]")
            self.keys.extend(tuple(map(str, found)) for found in listed)

    def codes(self) -> np.ndarray:
        return _concat(self._codes, np.int64, len(CODE_FIELDS))

    def numbers(self) -> np.ndarray:
        return _concat(self._numbers, float, NUMBER_FIELDS)


def _concat(parts: list[np.ndarray], dtype: type, width: int = 0) -> np.ndarray:
    if parts:
        return np.concatenate(parts)
    return np.empty((0, width) if width else 0, dtype=dtype)


def _range_sql(keep_keys: bool) -> str:
    # Aggregates of one query see the rows in one order; blobs concatenate byte for byte and a
    # missing one makes a length mismatch.
    keys_column = "group_concat(call_keys)" if keep_keys else "NULL"
    return (
        "SELECT count(*), CAST(group_concat(codes, '') AS BLOB), "
        f"CAST(group_concat(numbers, '') AS BLOB), {keys_column} "
        "FROM turns WHERE rowid BETWEEN ? AND ?"
    )


Query = Callable[[str, Sequence[Any]], sqlite3.Cursor]


def _ranges(read: Query) -> range:
    # Two subqueries: each is one b-tree descent, where a single min/max pair scans the table.
    low, high = read(
        "SELECT (SELECT min(rowid) FROM turns), (SELECT max(rowid) FROM turns)", ()
    ).fetchone()
    return range(int(low or 0), int(high or -1) + 1, RANGE_TURNS)


def read_turn_packs(store: Store, *, keep_keys: bool) -> TurnPacks:
    """Every judge turn's packs, read on a connection of its own: SQLite's joins of the
    packs (most of a large store's reading) then run on another thread while this one reads
    the trials. Python threads share one interpreter, but SQLite works without it."""
    packs = TurnPacks(keep_keys)
    sql = _range_sql(keep_keys)
    with store.reading_connection() as read:
        for start in _ranges(read):
            row = read(sql, (start, start + RANGE_TURNS - 1)).fetchone()
            if row[0]:
                packs.add(row)
    return packs


def read_turns(store: Store, packs: TurnPacks, trial_keys: Sequence[str]) -> TurnColumns:
    """Every judge turn of ``store`` from its ``packs``; a turn's ``trial`` is the position of
    its trial's key in ``trial_keys``."""
    codes = packs.codes()
    trial = _trial_positions(store, codes[:, _CODE["trial"]], trial_keys)
    return _assemble(store, packs, codes, trial)


def _trial_positions(store: Store, digests: np.ndarray, trial_keys: Sequence[str]) -> np.ndarray:
    """Each turn's trial (by the digest packed with it) as a position in ``trial_keys``."""
    known = np.fromiter((digest(key) for key in trial_keys), dtype=np.int64, count=len(trial_keys))
    order = np.argsort(known, kind="stable")
    ordered = known[order]
    if len(ordered) > 1 and (np.diff(ordered) == 0).any():
        return _trial_positions_by_key(store, trial_keys)  # two trials' digests collide
    found = np.minimum(np.searchsorted(ordered, digests), max(len(ordered) - 1, 0))
    if len(digests) and (len(ordered) == 0 or (ordered[found] != digests).any()):
        raise ValueError("the store holds judge turns of a trial it does not hold")
    return np.asarray(order[found], dtype=np.int64)


def _trial_positions_by_key(store: Store, trial_keys: Sequence[str]) -> np.ndarray:
    """The same from the turns' trial keys themselves (read only when digests collide)."""
    parts = []
    index = pd.Index(trial_keys)
    for start in _ranges(store.read):
        (text,) = store.read(
            "SELECT group_concat(trial_key, char(31)) FROM turns WHERE rowid BETWEEN ? AND ?",
            (start, start + RANGE_TURNS - 1),
        ).fetchone()
        if text is not None:
            parts.append(index.get_indexer(pd.Index(text.split(UNIT))))
    trial = _concat(parts, np.int64)
    if (trial < 0).any():
        raise ValueError("the store holds judge turns of a trial it does not hold")
    return trial


def _names(store: Store, ids: np.ndarray) -> dict[str, pd.Categorical]:
    """The round kind, judge and model of each turn from its ``turn_names`` row; only names
    some turn has become categories (a replaced trial's judges may be named and unused)."""
    rows = store.read("SELECT id, round_kind, judge, judge_model FROM turn_names").fetchall()
    used = set(np.unique(ids).tolist())
    rows = [row for row in rows if int(row[0]) in used]
    if len(rows) != len(used):
        raise ValueError("the store holds judge turns whose names it does not hold")
    row_ids = np.asarray([int(row[0]) for row in rows], dtype=np.int64)
    of_turn = np.searchsorted(np.sort(row_ids), ids)
    by_id = sorted(rows, key=lambda row: int(row[0]))
    columns: dict[str, pd.Categorical] = {}
    for index, column in enumerate(TEXT_COLUMNS):
        names = list(dict.fromkeys(str(row[1 + index]) for row in by_id))
        of_row = np.asarray([names.index(str(row[1 + index])) for row in by_id], dtype=np.int32)
        columns[column] = _categorical(of_row[of_turn], names)
    return columns


def _assemble(store: Store, packs: TurnPacks, codes: np.ndarray, trial: np.ndarray) -> TurnColumns:
    order = np.lexsort((codes[:, _CODE["speaker"]], codes[:, _CODE["round"]], trial))
    names = _names(store, codes[order, _CODE["names"]])
    numbers = packs.numbers()[order]
    keys = packs.keys
    return TurnColumns(
        trial=trial[order],
        round=codes[order, _CODE["round"]],
        attempts=codes[order, _CODE["attempts"]],
        parse_ok=codes[order, _CODE["parsed"]].astype(bool),
        winner_position=numbers[:, 0].copy(),
        round_kind=names["round_kind"],
        judge=names["judge"],
        judge_model=names["judge_model"],
        numbers=np.ascontiguousarray(numbers[:, 1:]),
        call_keys=None if keys is None else [keys[i] for i in order],
    )


def duplicate_trials_of(call_keys: Mapping[str, Iterable[str]]) -> dict[str, str]:
    """Trials that repeat an earlier one: dropped trial key -> the trial it repeats.

    ``call_keys`` maps a trial key to the request keys of all its judge turns. A trial whose
    complete set of keys equals that of a trial earlier in trial-key order asked the judges
    nothing new (every answer came from the same requests), so it adds no observation. A trial
    with no keys (frames built by hand, simulated frames) is never a duplicate of another.
    """
    first: dict[frozenset[str], str] = {}
    dropped: dict[str, str] = {}
    for trial_key in sorted(call_keys):
        keys = frozenset(call_keys[trial_key])
        if not keys:
            continue
        if keys in first:
            dropped[trial_key] = first[keys]
        else:
            first[keys] = trial_key
    return dropped


def repeated_trials(
    store: Store,
    request_digests: np.ndarray,
    asked: np.ndarray,
    trial_keys: Sequence[str],
    trial_panels: np.ndarray,
) -> dict[str, str]:
    """The trials that repeat an earlier trial of their own panel (``duplicate_trials_of``;
    two identical panels asked the same thing are two panels' observations). A trial that
    ``asked`` anything can repeat one only if the digest of its set of request keys
    (``request_digests``, see ``_trial_pack``) equals that of another trial of its panel:
    those are found in one vectorised pass, and only they are compared key by key."""
    candidates = np.flatnonzero(asked)
    if not len(candidates):
        return {}
    pairs = pd.DataFrame({"panel": trial_panels[candidates], "digest": request_digests[candidates]})
    shared = pairs.duplicated(["panel", "digest"], keep=False).to_numpy()
    if not shared.any():
        return {}
    candidates = candidates[shared]
    keys = stored_call_keys(store, [trial_keys[index] for index in candidates])
    panel_of = {trial_keys[index]: trial_panels[index] for index in candidates}
    return duplicate_trials_of(
        {key: {f"{panel_of[key]}\0{one}" for one in found} for key, found in keys.items()}
    )


KEYS_PER_QUERY = 500
"""Values per ``IN (...)`` query (well under SQLite's bound on parameters)."""


def stored_call_keys(store: Store, trial_keys: Sequence[str]) -> dict[str, list[str]]:
    """The request keys of the judge turns of ``trial_keys`` (trials without turns are
    absent), read from the store itself: a few trials' keys, without reading every turn."""
    found: dict[str, list[str]] = {}
    for start in range(0, len(trial_keys), KEYS_PER_QUERY):
        chunk = list(trial_keys[start : start + KEYS_PER_QUERY])
        marks = ", ".join("?" * len(chunk))
        for trial_key, keys in store.read(
            f"SELECT trial_key, call_keys FROM turns WHERE trial_key IN ({marks})", chunk
        ):
            found.setdefault(str(trial_key), []).extend(map(str, json.loads(keys)))
    return found
