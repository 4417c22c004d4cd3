"""The store's judge turns read in columns, for ``frame_columns``.

A million turns cannot go through Python one row at a time, nor through a JSON parse each: a
tuple per row costs more than SQLite's whole scan. So SQLite aggregates each range of turns
into a few long texts (``group_concat``: every turn's trial, round, judge and so on), the
numbers and request-key digests packed beside each turn when it was stored (``_turn_pack``)
are joined into one buffer per range, and numpy reads both. Python holds a handful of objects
per range, and finding trials that repeat one another needs no Python set per trial (see
``repeated_trials``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from fairpanel.judging.engine._store import Store
from fairpanel.judging.engine._turn_pack import NUMBER_FIELDS

__all__ = [
    "TurnColumns",
    "duplicate_trials_of",
    "read_turns",
    "repeated_trials",
    "stored_call_keys",
]

RANGE_TURNS = 262_144
"""Turns (by rowid) read per query: bounds the longest text SQLite builds and Python splits
(tens of megabytes), whatever the size of the run."""

_UNIT, _RECORD = "\x1f", "\x1e"
TEXT_COLUMNS = ("round_kind", "judge", "judge_model")


@dataclass(frozen=True)
class TurnColumns:
    """The judge turns, one entry per turn in trial, round and speaker order.

    ``trial`` is the turn's trial as a position in the caller's trial order; ``numbers`` has
    one column per score of ``PARSED_PATHS`` (NaN where missing or unparsed). A turn's
    request keys are ``key_turn`` (the turn's position, one entry per key) with ``key_hash``
    (the key's 64-bit digest) and, when asked for, the keys as tuples in ``call_keys``."""

    trial: np.ndarray
    round: np.ndarray
    attempts: np.ndarray
    parse_ok: np.ndarray
    winner_position: np.ndarray
    round_kind: pd.Categorical
    judge: pd.Categorical
    judge_model: pd.Categorical
    numbers: np.ndarray
    key_turn: np.ndarray
    key_hash: np.ndarray
    call_keys: list[tuple[str, ...]] | None


def _ints(text: str, count: int) -> np.ndarray:
    values = np.fromstring(text, dtype=np.int64, sep=",")
    if values.size != count:
        raise ValueError("the store's turns table holds a value that is not an integer")
    return values


def _categorical(codes: np.ndarray, names: Sequence[str]) -> Any:
    """Codes into ``names`` as a categorical with sorted categories (sorting by the column
    stays lexical, as it was for strings)."""
    order = sorted(range(len(names)), key=names.__getitem__)
    rank = np.empty(len(names), dtype=np.int32)
    rank[order] = np.arange(len(names), dtype=np.int32)
    return pd.Categorical.from_codes(rank[codes], categories=pd.Index([names[i] for i in order]))


class _Ranges:
    """Accumulates the per-range arrays."""

    def __init__(self, keep_keys: bool, trial_keys: pd.Index) -> None:
        self.trial_keys = trial_keys
        self.ints: dict[str, list[np.ndarray]] = {
            name: [] for name in ("rowid", "round", "speaker", "attempts", "ok")
        }
        self.trial: list[np.ndarray] = []
        self.texts: list[np.ndarray] = []
        self.text_names: list[str] = []
        self.numbers: list[np.ndarray] = []
        self.key_rowid: list[np.ndarray] = []
        self.key_hash: list[np.ndarray] = []
        self.keys: list[tuple[str, ...]] | None = [] if keep_keys else None

    def add(self, row: tuple[Any, ...]) -> None:
        """One range's aggregates (see ``read_turns``)."""
        (
            rowids,
            trial_keys,
            rounds,
            speakers,
            attempts,
            ok,
            texts,
            lengths,
            numbers,
            hashes,
            keys,
        ) = row
        count = rowids.count(",") + 1
        for name, text in zip(self.ints, (rowids, rounds, speakers, attempts, ok), strict=True):
            self.ints[name].append(_ints(text, count))
        codes, unique = pd.factorize(np.array(trial_keys.split(_UNIT), dtype=object))
        if len(codes) != count:
            raise ValueError("a trial key holds a control character")
        self.trial.append(self.trial_keys.get_indexer(pd.Index(unique))[codes])
        codes, unique = pd.factorize(np.array(texts.split(_RECORD), dtype=object))
        if len(codes) != count:
            raise ValueError("a judge, round kind or model name holds a control character")
        known = {name: index for index, name in enumerate(self.text_names)}
        for name in unique:
            known.setdefault(name, len(known))
        self.text_names.extend(list(known)[len(self.text_names) :])
        self.texts.append(np.asarray([known[name] for name in unique], dtype=np.int32)[codes])
        packed = np.frombuffer(numbers or b"", dtype="<f8")
        if packed.size != count * NUMBER_FIELDS:
            raise ValueError("the store holds judge turns without their packed numbers")
        self.numbers.append(packed.reshape(count, NUMBER_FIELDS))
        per_turn = _ints(lengths, count) // 8
        self.key_rowid.append(np.repeat(self.ints["rowid"][-1], per_turn))
        self.key_hash.append(np.frombuffer(hashes or b"", dtype="<i8"))
        if self.key_hash[-1].size != per_turn.sum():
            raise ValueError("the store holds judge turns without their request-key digests")
        if self.keys is not None:
            listed = json.loads(f"[{keys}]")
            self.keys.extend(tuple(map(str, found)) for found in listed)


def _concat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts) if parts else np.empty(0, dtype=dtype)


def read_turns(store: Store, trial_keys: Sequence[str], *, keep_keys: bool) -> TurnColumns:
    """Every judge turn of ``store``; a turn's ``trial`` is the position of its trial's key
    in ``trial_keys``. With ``keep_keys`` the request keys are also returned as a tuple per
    turn."""
    ranges = _Ranges(keep_keys, pd.Index(trial_keys))
    # Aggregates see the rows in one order, the range's rowid order (checked above: rowids
    # must ascend). Blobs concatenate byte for byte; a missing blob makes a length mismatch.
    keys_column = "group_concat(call_keys)" if keep_keys else "NULL"
    range_sql = (
        "SELECT group_concat(rowid), group_concat(trial_key, char(31)), group_concat(round), "
        "group_concat(speaker_index), group_concat(attempts), group_concat(parsed IS NOT NULL), "
        "group_concat(round_kind || char(31) || judge || char(31) || judge_model, char(30)), "
        "group_concat(coalesce(length(key_hashes), -8)), "
        "CAST(group_concat(numbers, '') AS BLOB), CAST(group_concat(key_hashes, '') AS BLOB), "
        f"{keys_column} FROM turns WHERE rowid BETWEEN ? AND ?"
    )
    low, high = store.read("SELECT min(rowid), max(rowid) FROM turns").fetchone()
    for start in range(int(low or 0), int(high or -1) + 1, RANGE_TURNS):
        row = store.read(range_sql, (start, start + RANGE_TURNS - 1)).fetchone()
        if row[0] is not None:
            ranges.add(row)
    return _assemble(ranges)


def _assemble(ranges: _Ranges) -> TurnColumns:
    ints = {name: _concat(parts, np.int64) for name, parts in ranges.ints.items()}
    trial = _concat(ranges.trial, np.int64)
    if (trial < 0).any():
        raise ValueError("the store holds judge turns of a trial it does not hold")
    order = np.lexsort((ints["speaker"], ints["round"], trial))
    texts = _concat(ranges.texts, np.int32)[order]
    parts = [name.split(_UNIT) for name in ranges.text_names]
    if any(len(part) != len(TEXT_COLUMNS) for part in parts):
        raise ValueError("a judge, round kind or model name holds a control character")
    columns: dict[str, pd.Categorical] = {}
    for index, column in enumerate(TEXT_COLUMNS):
        names = list(dict.fromkeys(part[index] for part in parts))
        of_combination = np.asarray([names.index(part[index]) for part in parts], dtype=np.int32)
        columns[column] = _categorical(of_combination[texts], names)
    numbers = _concat(ranges.numbers, float).reshape(-1, NUMBER_FIELDS)[order]
    # Rowids ascend (each range is read in rowid order), so a key's turn is a search away.
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    rowids = ints["rowid"]
    if (np.diff(rowids) <= 0).any():
        raise RuntimeError("SQLite aggregated the turns out of rowid order")
    key_turn = position[np.searchsorted(rowids, _concat(ranges.key_rowid, np.int64))]
    key_order = np.argsort(key_turn, kind="stable")
    keys = ranges.keys
    return TurnColumns(
        trial=trial[order],
        round=ints["round"][order],
        attempts=ints["attempts"][order],
        parse_ok=ints["ok"][order].astype(bool),
        winner_position=numbers[:, 0].copy(),
        round_kind=columns["round_kind"],
        judge=columns["judge"],
        judge_model=columns["judge_model"],
        numbers=np.ascontiguousarray(numbers[:, 1:]),
        key_turn=key_turn[key_order],
        key_hash=_concat(ranges.key_hash, np.int64)[key_order],
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
    store: Store, turns: TurnColumns, trial_keys: Sequence[str], trial_panels: np.ndarray
) -> dict[str, str]:
    """The trials that repeat an earlier trial of their own panel (``duplicate_trials_of``;
    two identical panels asked the same thing are two panels' observations). Only a trial
    that shares a request key with another trial of its panel can repeat one: those are found
    from the key hashes in one vectorised pass, and only they are compared key by key."""
    if not len(turns.key_turn):
        return {}
    owner = turns.trial[turns.key_turn]
    pairs = pd.DataFrame(
        {"panel": trial_panels[owner], "hash": turns.key_hash, "trial": owner}
    ).drop_duplicates()
    shared = pairs.duplicated(["panel", "hash"], keep=False).to_numpy()
    if not shared.any():
        return {}
    candidates = np.unique(pairs["trial"].to_numpy()[shared])
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
