"""The viewer's side file (``RUN_DIR/view-index.sqlite``): one narrow row per trial with what
the page filters on, and indexes over it, so a page of trials is an indexed query.

The store's trials carry their filter fields inside a JSON spec and their outcomes across the
turns (a moved judge, a failed parse, a label-swapped twin with another winner): filtering a
million turns in place means parsing every spec per request. So the first view reads the store
once, streaming its turns in storage order, and writes what each trial is filtered by beside
the store; the store itself (whose schema belongs to the run) is only read. The file remembers
which state of the store it describes and is rebuilt when the run has grown since.
"""

from __future__ import annotations

import json
import os
import sqlite3
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = [
    "FLIPPED",
    "INDEX_FILE",
    "INDEX_VERSION",
    "MOVED",
    "PARSE",
    "ensure_index",
    "read_only",
    "store_state",
]

INDEX_FILE = "view-index.sqlite"
INDEX_VERSION = "3"
FLIPPED, MOVED, PARSE = 1, 2, 4
"""The bits of ``trial.out`` (as the offline page's; docs/transcripts.md says what each is)."""
_VERDICT = slice(0, 8)
_SINGLE_SCORES = slice(8, 40)

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE trial (
    n INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, protocol TEXT, status TEXT, panel TEXT,
    arm TEXT, treatment TEXT, category TEXT, scenario TEXT, model TEXT,
    identA TEXT, identB TEXT, authA TEXT, authB TEXT, respA INTEGER, respB INTEGER,
    winner TEXT, out INTEGER NOT NULL, labelTwin INTEGER, orderTwin INTEGER
);
CREATE TABLE trial_judge (judge TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (judge, n))
    WITHOUT ROWID;
"""
INDEXES = (
    "protocol", "status", "panel", "arm", "treatment", "category", "scenario", "identA",
    "identB", "out",
)  # fmt: skip


def read_only(path: Path) -> sqlite3.Connection:
    """A connection that cannot write ``path`` (SQLite refuses it, whatever the caller)."""
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False)


def store_state(store: sqlite3.Connection) -> str:
    """What the index was built from: the store's trial count and last trial and turn rows
    (a trial replaced or added changes them). Each is one b-tree descent."""
    row = store.execute(
        "SELECT (SELECT count(*) FROM trials), (SELECT max(rowid) FROM trials), "
        "(SELECT max(rowid) FROM turns)"
    ).fetchone()
    return json.dumps(list(row))


def _current(path: Path, state: str) -> bool:
    if not path.is_file():
        return False
    try:
        with read_only(path) as db:
            found = dict(db.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.DatabaseError:
        return False
    return found.get("version") == INDEX_VERSION and found.get("state") == state


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


_UNIT, _MISSING = "\x1f", "\x1d"
"""How the store's ``design`` column joins a trial's texts and marks an absent one (the
store's trial pack; read here without importing the store, which brings numpy)."""
_DESIGN = struct.Struct("<4d")
"""The first numbers of ``design_numbers``: replicate, identities, the two response indices."""
_DEFAULTS = (None, "main", "none", "explicit")
"""What a spec without protocol, arm, treatment or signal means (the design's first four)."""
_EXTRAS = "json_extract(spec, '$.responder_model', '$.authors', '$.label_position')"


def _spec_row(spec: dict[str, Any], consensus_text: str | None) -> tuple[Any, ...]:
    """A trial stored without its design (before schema 6), read from its spec."""
    consensus = json.loads(consensus_text) if consensus_text else None
    ids = list(spec.get("identities") or ())
    resp = [int(r) for r in spec.get("response_indices") or ()]
    winner = consensus.get("winner") if isinstance(consensus, dict) else None
    return (
        spec["protocol"], spec.get("panel"), spec.get("arm", "main"), spec.get("treatment", "none"),
        spec["category"], spec["scenario_id"], *(([*ids, None, None])[:2]),
        *(([*resp, None, None])[:2]), _text(winner), spec.get("signal", "explicit"),
        int(spec.get("replicate") or 0),
    )  # fmt: skip


def _design_row(design: str, numbers: bytes) -> tuple[Any, ...]:
    """The same fields from the trial's ``design`` texts and numbers (no JSON parsed)."""
    texts = [None if t == _MISSING else t for t in design.split(_UNIT)]
    for index, default in enumerate(_DEFAULTS):
        if texts[index] is None:
            texts[index] = default
    protocol, arm, treatment, signal, panel, _, scenario, category, id_a, id_b, _, winner = texts
    replicate, _, first, second = _DESIGN.unpack_from(numbers)
    resp = [None if r < 0 else int(r) for r in (first, second)]
    return (
        protocol, panel, arm, treatment, category, scenario, id_a, id_b, *resp, winner, signal,
        int(replicate),
    )  # fmt: skip


def _trials(store: sqlite3.Connection) -> Iterator[tuple[Any, ...]]:
    """The index's columns of every trial, in key order (``out`` and twins not yet set): from
    the trial's ``design`` columns and three fields of its spec read by SQLite."""
    rows = store.execute(
        f"SELECT key, status, design, design_numbers, {_EXTRAS}, "
        "CASE WHEN design IS NULL THEN spec END, CASE WHEN design IS NULL THEN consensus END "
        "FROM trials ORDER BY key"
    )
    shared: dict[Any, Any] = {}
    for n, (key, status, design, numbers, extras, spec, consensus) in enumerate(rows):
        model, authors, position = json.loads(extras)
        if design is None:
            fields = _spec_row(json.loads(spec), consensus)
        else:
            fields = _design_row(design, numbers)
        protocol, panel, arm, treatment, category, scenario, id_a, id_b = fields[:8]
        resp_a, resp_b, winner, signal, replicate = fields[8:]
        auth = [str(a) for a in authors or ()]
        row = (
            n, key, protocol, status, panel, arm, treatment, category, scenario, model or "",
            id_a, id_b, *(([*auth, None, None])[:2]), resp_a, resp_b, winner,
            (signal, "tag" if position is None else position, replicate),
        )  # fmt: skip
        # A hundred thousand trials name a few dozen values: one string each, not one a trial.
        yield tuple(shared.setdefault(v, v) if isinstance(v, str | tuple) else v for v in row)


def _twins(rows: list[tuple[Any, ...]]) -> tuple[list[int | None], list[int | None]]:
    """Each pair trial's label-swapped twin (same answers and order, labels swapped) and
    order-swapped twin (the same labelled answers in the opposite order)."""
    where: dict[tuple[Any, ...], int] = {}
    units: list[tuple[Any, ...] | None] = []
    for row in rows:
        n, _, protocol, _, panel, arm, treatment, _, scenario = row[:9]
        i0, i1, _, _, r0, r1 = row[10:16]
        if protocol != "pair" or None in (i0, i1, r0, r1):
            units.append(None)
            continue
        unit = (panel, arm, treatment, scenario, *row[17])
        units.append(unit)
        where[(unit, r0, i0, r1, i1)] = n
    label: list[int | None] = [None] * len(rows)
    order: list[int | None] = [None] * len(rows)
    for row, found in zip(rows, units, strict=True):
        if found is None:
            continue
        n, (i0, i1, _, _, r0, r1) = row[0], row[10:16]
        if i0 != i1:
            label[n] = where.get((found, r0, i1, r1, i0))
        if r0 != r1:
            order[n] = where.get((found, r1, i1, r0, i0))
    return label, order


def _turn_outcomes(
    store: sqlite3.Connection, side: sqlite3.Connection, keys: dict[str, int], protocols: list[str]
) -> dict[int, int]:
    """Each trial's ``MOVED`` and ``PARSE`` bits (its judges go into ``side``'s ``trial_judge``)
    from one pass over the turns in storage order (a trial's turns are written together; one
    that is not is read again)."""
    bits: dict[int, int] = {}
    judges: list[tuple[str, int]] = []
    done: set[str] = set()

    def close(key: str, turns: list[tuple[Any, ...]]) -> None:
        if key not in keys:  # a trial stored after the trials were read
            return
        if key in done:
            turns = store.execute(
                "SELECT trial_key, round, judge, parsed IS NULL, substr(numbers, 1, 40) "
                "FROM turns WHERE trial_key = ?",
                (key,),
            ).fetchall()
        done.add(key)
        n = keys[key]
        first: dict[str, tuple[int, bytes]] = {}
        last: dict[str, tuple[int, bytes]] = {}
        out = 0
        for _, round_, judge, failed, numbers in turns:
            if failed:
                out |= PARSE
            packed = numbers or b""
            if judge not in first or round_ < first[judge][0]:
                first[judge] = (round_, packed)
            if judge not in last or round_ > last[judge][0]:
                last[judge] = (round_, packed)
        part = _VERDICT if protocols[n] == "pair" else _SINGLE_SCORES
        for judge, (round_, packed) in first.items():
            end_round, end = last[judge]
            if end_round != round_ and packed[part] != end[part]:
                out |= MOVED
        bits[n] = bits.get(n, 0) | out
        judges.extend((judge, n) for judge in first)
        if len(judges) > 10_000:
            side.executemany("INSERT OR IGNORE INTO trial_judge VALUES (?, ?)", judges)
            judges.clear()

    current: str | None = None
    batch: list[tuple[Any, ...]] = []
    for row in store.execute(
        "SELECT trial_key, round, judge, parsed IS NULL, substr(numbers, 1, 40) FROM turns"
    ):
        if row[0] != current:
            if current is not None:
                close(current, batch)
            current, batch = row[0], []
        batch.append(row)
    if current is not None:
        close(current, batch)
    side.executemany("INSERT OR IGNORE INTO trial_judge VALUES (?, ?)", judges)
    return bits


def _build(store: sqlite3.Connection, path: Path, state: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.unlink(missing_ok=True)
    db = sqlite3.connect(temporary)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(SCHEMA)
        rows = list(_trials(store))
        keys = {row[1]: row[0] for row in rows}
        outcomes = _turn_outcomes(store, db, keys, [row[2] for row in rows])
        label, order = _twins(rows)
        winners = [row[16] for row in rows]
        for n, twin in enumerate(label):
            if twin is not None and winners[n] is not None and winners[twin] not in (
                None, winners[n]
            ):  # fmt: skip
                outcomes[n] = outcomes.get(n, 0) | FLIPPED
        db.executemany(
            f"INSERT INTO trial VALUES ({', '.join('?' * 20)})",
            ((*row[:17], outcomes.get(row[0], 0), label[row[0]], order[row[0]]) for row in rows),
        )
        for column in INDEXES:
            db.execute(f"CREATE INDEX trial_{column} ON trial({column})")
        db.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [("version", INDEX_VERSION), ("state", state), ("turns", str(_turns(store)))],
        )
        db.commit()
    finally:
        db.close()
    os.replace(temporary, path)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _turns(store: sqlite3.Connection) -> int:
    return int(store.execute("SELECT count(*) FROM turns").fetchone()[0])


def ensure_index(run_dir: Path, store_path: Path) -> Path:
    """The run's side file, built (or rebuilt, when the store has changed since) now."""
    path = run_dir / INDEX_FILE
    store = read_only(store_path)
    try:
        state = store_state(store)
        if not _current(path, state):
            _build(store, path, state)
    finally:
        store.close()
    return path
