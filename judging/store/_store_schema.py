"""The run store's tables and the steps that bring an older file up to date.

``SCHEMA`` is the version-1 layout; every later change is a step in ``MIGRATIONS``, applied in
order to fresh and older files alike, so a fresh file and an upgraded one end up the same and a
run folder written by an earlier fairpanel stays readable (and resumable) after an upgrade.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

from fairpanel.judging.store._trial_pack import backfill_trial_designs
from fairpanel.judging.store._turn_pack import backfill_turn_codes, backfill_turns

__all__ = [
    "BACKFILLS",
    "MIGRATIONS",
    "SCHEMA",
    "STORE_SCHEMA_VERSION",
    "Transaction",
    "prepare",
]

STORE_SCHEMA_VERSION = 7

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS calls (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    role TEXT NOT NULL,
    request TEXT NOT NULL,
    reply TEXT NOT NULL,
    finish_reason TEXT,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL,
    latency_s REAL NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS responses (
    scenario_id TEXT NOT NULL,
    response_index INTEGER NOT NULL,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    call_key TEXT NOT NULL,
    PRIMARY KEY (scenario_id, response_index, model)
);
CREATE TABLE IF NOT EXISTS trials (
    key TEXT PRIMARY KEY,
    protocol TEXT NOT NULL,
    spec TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    error TEXT,
    consensus TEXT,
    schema_version INTEGER NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS turns (
    trial_key TEXT NOT NULL REFERENCES trials(key) ON DELETE CASCADE,
    round INTEGER NOT NULL,
    round_kind TEXT NOT NULL,
    judge TEXT NOT NULL,
    speaker_index INTEGER NOT NULL,
    judge_model TEXT NOT NULL,
    raw_text TEXT NOT NULL,
    parsed TEXT,
    parse_error TEXT,
    attempts INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_s REAL NOT NULL,
    call_keys TEXT NOT NULL,
    PRIMARY KEY (trial_key, round, judge)
);
"""

MIGRATIONS: dict[int, str] = {
    # 2: studies other than the judge panel (fairpanel.studies) store one row per design item.
    2: """
    CREATE TABLE IF NOT EXISTS study_items (
        key TEXT PRIMARY KEY,
        study TEXT NOT NULL,
        spec TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
        error TEXT,
        result TEXT,
        call_keys TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    """,
    # 3: what the server said it ran, with every call (None for calls stored before, and for
    # servers that say nothing): the model name it reported and its fingerprint.
    3: """
    ALTER TABLE calls ADD COLUMN served_model TEXT;
    ALTER TABLE calls ADD COLUMN fingerprint TEXT;
    """,
    # 4: batch mode. Every batch is stored with its items before it is sent and its provider
    # id once accepted, so a killed run resumes polling instead of sending it again; a call a
    # batch answered names that batch (it is priced at the batch rate).
    4: """
    CREATE TABLE IF NOT EXISTS batches (
        id TEXT PRIMARY KEY,
        scope TEXT NOT NULL,
        provider_batch_id TEXT,
        state TEXT NOT NULL,
        closed INTEGER NOT NULL DEFAULT 0,
        detail TEXT,
        items INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS batch_items (
        batch_id TEXT NOT NULL REFERENCES batches(id),
        key TEXT NOT NULL,
        role TEXT NOT NULL,
        request TEXT NOT NULL,
        error TEXT,
        PRIMARY KEY (batch_id, key)
    );
    CREATE INDEX IF NOT EXISTS batch_items_key ON batch_items(key);
    ALTER TABLE calls ADD COLUMN batch_id TEXT;
    """,
    # 5: what the analysis reads of a turn, packed beside its JSON (see ``_turn_pack``), so a
    # large store is read without parsing a JSON document per turn; ``BACKFILLS`` fills the
    # turns stored before. ``key_hashes`` (a digest per request key) is unused since 6, which
    # finds repeated trials from ``trials.request_digest``: it stays NULL.
    5: """
    ALTER TABLE turns ADD COLUMN numbers BLOB;
    ALTER TABLE turns ADD COLUMN key_hashes BLOB;
    """,
    # 6: the rest of what the analysis reads, so a report parses no spec and reads no text
    # per turn: each trial's design fields (``_trial_pack``), each turn's integers packed
    # (``codes``) with its round kind, judge and model named once in ``turn_names``.
    6: """
    ALTER TABLE trials ADD COLUMN design TEXT;
    ALTER TABLE trials ADD COLUMN design_numbers BLOB;
    ALTER TABLE trials ADD COLUMN request_digest BLOB;
    ALTER TABLE turns ADD COLUMN codes BLOB;
    CREATE TABLE IF NOT EXISTS turn_names (
        id INTEGER PRIMARY KEY,
        round_kind TEXT NOT NULL,
        judge TEXT NOT NULL,
        judge_model TEXT NOT NULL,
        UNIQUE (round_kind, judge, judge_model)
    );
    """,
    # 7: which replica answered each call (NULL for calls stored before), and every failed
    # attempt with the replica it failed on, so a summary counts failures per replica over
    # every invocation on the folder (``_replica_store``).
    7: """
    ALTER TABLE calls ADD COLUMN replica TEXT;
    CREATE TABLE IF NOT EXISTS call_failures (
        id INTEGER PRIMARY KEY,
        call_key TEXT NOT NULL,
        model TEXT NOT NULL,
        replica TEXT NOT NULL,
        kind TEXT NOT NULL,
        status INTEGER,
        latency_s REAL NOT NULL,
        error TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    """,
}


def _backfill_designs_and_codes(db: sqlite3.Connection) -> None:
    backfill_trial_designs(db)
    backfill_turn_codes(db)


BACKFILLS: dict[int, Callable[[sqlite3.Connection], None]] = {
    5: backfill_turns,
    6: _backfill_designs_and_codes,
}
"""Steps in Python after a version's statements: values derived from rows already stored."""

_ADD_COLUMN = re.compile(r"^\s*ALTER TABLE (\w+) ADD COLUMN (\w+)\b", re.IGNORECASE)


def _apply(db: sqlite3.Connection, statement: str) -> None:
    """Run one migration statement. Adding a column the table already has is skipped: SQLite
    has no ``ADD COLUMN IF NOT EXISTS``, and a step must be safe to apply to a file that is
    already partly there (as ``CREATE TABLE IF NOT EXISTS`` is)."""
    added = _ADD_COLUMN.match(statement)
    if added is not None:
        table, column = added.groups()
        columns = {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}
        if column in columns:
            return
    db.execute(statement)


def prepare(db: sqlite3.Connection, path: Path) -> None:
    """Create the tables of a fresh file and bring any file to ``STORE_SCHEMA_VERSION`` (a
    fresh file starts at version 1); a file newer than this fairpanel is refused."""
    db.executescript(SCHEMA)
    with Transaction(db):
        found = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        version = 1 if found is None else int(found[0])
        if found is None:
            db.execute("INSERT INTO meta(key, value) VALUES ('schema_version', '1')")
        if version > STORE_SCHEMA_VERSION:
            raise RuntimeError(
                f"{path} has store schema {version}; this fairpanel reads "
                f"{STORE_SCHEMA_VERSION} and older"
            )
        for target in range(version + 1, STORE_SCHEMA_VERSION + 1):
            for statement in MIGRATIONS[target].split(";"):
                if statement.strip():
                    _apply(db, statement)
            if target in BACKFILLS:
                BACKFILLS[target](db)
            db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(target),))


class Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` when the block raised)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self._db.execute("ROLLBACK" if exc_type is not None else "COMMIT")
