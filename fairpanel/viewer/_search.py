"""Search over a run's texts: an SQLite FTS5 table in the viewer's side file, built on the
first search, or a plain table scanned with ``instr`` where SQLite lacks FTS5.

A text is indexed once where it lives: a turn's raw text, reason and parse error under its
trial; a trial's key, labels, authors and scenario under the trial; a responder's answer under
its scenario, answer and model; a task under its scenario. A hit on an answer or a task selects
every trial built on it. Words match whole, the last as a prefix, in order (an FTS5 phrase):
``quite high`` finds "rated it quite highly"; case and accents of ASCII letters are ignored.
"""

from __future__ import annotations

import itertools
import json
import re
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fairpanel.viewer._index import read_only

__all__ = ["SearchIndex", "fts5_available", "phrase"]

_WORDS = re.compile(r"\w+", re.UNICODE)
BATCH = 10_000


def fts5_available() -> bool:
    try:
        sqlite3.connect(":memory:").execute("CREATE VIRTUAL TABLE t USING fts5(body)")
    except sqlite3.OperationalError:
        return False
    return True


def phrase(query: str) -> str | None:
    """``query`` as an FTS5 phrase whose last word is a prefix, or None when it has no word."""
    words = _WORDS.findall(query.lower())
    return '"' + " ".join(words) + '"*' if words else None


class SearchIndex:
    """The side file's search table, built once (under a lock) when first asked."""

    def __init__(self, index_path: Path, store_path: Path, use_fts5: bool | None = None) -> None:
        self._index, self._store = index_path, store_path
        self.fts5 = fts5_available() if use_fts5 is None else use_fts5
        self._lock = threading.Lock()
        self._ready = False

    @property
    def table(self) -> str:
        return "search" if self.fts5 else "search_plain"

    def ensure(self) -> None:
        with self._lock:
            if self._ready:
                return
            db = sqlite3.connect(self._index, timeout=30)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                built = db.execute("SELECT value FROM meta WHERE key = ?", (self.table,))
                if built.fetchone() is None:
                    self._build(db)
            finally:
                db.close()
            self._ready = True

    def _build(self, db: sqlite3.Connection) -> None:
        """The texts go into the search table under an id whose row in ``search_ref`` says
        what they belong to; the FTS5 table keeps no copy of them (``content=''``)."""
        if self.fts5:
            db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS search USING fts5(body, content='', "
                "tokenize = 'unicode61 remove_diacritics 2')"
            )
        else:
            db.execute("CREATE TABLE IF NOT EXISTS search_plain (id INTEGER PRIMARY KEY, body)")
        db.execute(
            "CREATE TABLE IF NOT EXISTS search_ref (id INTEGER PRIMARY KEY, kind TEXT NOT NULL, "
            "n INTEGER, scenario TEXT, resp INTEGER, model TEXT)"
        )
        if not self.fts5:
            db.execute("DELETE FROM search_plain")
        db.execute("DELETE FROM search_ref")
        keys = dict(db.execute("SELECT key, n FROM trial").fetchall())
        store = read_only(self._store)
        try:
            turns = (
                (f"{raw}\n{reason}\n{error}", "t", keys[key], None, None, None)
                for key, raw, reason, error in store.execute(
                    "SELECT trial_key, raw_text, coalesce(json_extract(parsed, '$.reason'), ''), "
                    "coalesce(parse_error, '') FROM turns"
                )
                if key in keys
            )
            answers = (
                (text, "r", None, scenario, index, model)
                for scenario, index, model, text in store.execute(
                    "SELECT scenario_id, response_index, model, text FROM responses"
                )
            )
            tasks = ((task, "k", None, scenario, None, None) for scenario, task in _tasks(store))
            meta = (
                ("\n".join(str(v) for v in row[1:] if v is not None), "m", row[0], None, None, None)
                for row in db.execute(
                    "SELECT n, key, identA, identB, authA, authB, scenario FROM trial"
                )
            )
            self._insert(db, itertools.chain(turns, answers, tasks, meta))
        finally:
            store.close()
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, '1')", (self.table,))
        db.commit()

    def _insert(self, db: sqlite3.Connection, rows: Iterator[tuple[Any, ...]]) -> None:
        texts = "INSERT INTO search (rowid, body) VALUES (?, ?)"
        if not self.fts5:
            texts = "INSERT INTO search_plain (id, body) VALUES (?, ?)"
        refs = "INSERT INTO search_ref VALUES (?, ?, ?, ?, ?, ?)"
        numbered = enumerate(rows, start=1)
        while batch := list(itertools.islice(numbered, BATCH)):
            db.executemany(texts, ((i, row[0]) for i, row in batch))
            db.executemany(refs, ((i, *row[1:]) for i, row in batch))

    def fill(self, db: sqlite3.Connection, query: str) -> None:
        """Put the trials (their ``n``) whose texts hold ``query`` into ``temp.hits`` of
        ``db`` (a connection to the side file), under ``query``: in SQL, however many."""
        self.ensure()
        db.execute(
            "CREATE TEMP TABLE IF NOT EXISTS hits (q TEXT, n INTEGER, PRIMARY KEY (q, n)) "
            "WITHOUT ROWID"
        )
        if self.fts5:
            match = phrase(query)
            if match is None:
                return
            ids, params = "SELECT rowid FROM search WHERE search MATCH :m", {"q": query, "m": match}
        else:
            ids = "SELECT id FROM search_plain WHERE instr(lower(body), lower(:q)) > 0"
            params = {"q": query}
        found = f"SELECT * FROM search_ref WHERE id IN ({ids})"
        for sql in (
            f"SELECT :q, n FROM ({found}) WHERE kind IN ('t', 'm')",
            f"SELECT :q, t.n FROM ({found}) s JOIN trial t ON t.scenario = s.scenario "
            "WHERE s.kind = 'k'",
            f"SELECT :q, t.n FROM ({found}) s JOIN trial t ON t.scenario = s.scenario "
            "AND t.model = s.model AND (t.respA = s.resp OR t.respB = s.resp) WHERE s.kind = 'r'",
        ):
            db.execute(f"INSERT OR IGNORE INTO temp.hits {sql}", params)

    def trials(self, db: sqlite3.Connection, query: str) -> list[int]:
        """The trials (their ``n``) whose texts hold ``query``, in order."""
        self.fill(db, query)
        rows = db.execute("SELECT n FROM temp.hits WHERE q = ? ORDER BY n", (query,))
        return [int(n) for (n,) in rows]


def _tasks(store: sqlite3.Connection) -> list[tuple[str, str]]:
    """Each scenario's task as the responder was asked it (its first answer's request)."""
    rows = store.execute(
        "SELECT r.scenario_id, c.request FROM responses r JOIN calls c ON c.key = r.call_key "
        "WHERE r.response_index = (SELECT MIN(response_index) FROM responses "
        "WHERE scenario_id = r.scenario_id)"
    )
    found: dict[str, str] = {}
    for scenario, request in rows:
        if scenario not in found:
            found[scenario] = task_of(request)
    return list(found.items())


def task_of(request: str) -> str:
    """The last message of a stored request: the task the responder was asked."""
    messages = json.loads(request).get("messages") or []
    return str(messages[-1].get("content", "")) if messages else ""
