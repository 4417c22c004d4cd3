"""The run's SQLite file: every model call, every response, every trial and judge turn.

Calls are written the moment they return, trials (with all their turns) in one transaction
when they finish, so killing the process loses at most the calls in flight. WAL mode keeps
readers (``fairpanel report`` during a run) from blocking the writer.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fairpanel.agents import ModelReply, ModelRequest, Usage, redact
from fairpanel.judging.protocol._records import TrialRecord
from fairpanel.judging.store._batch_store import BatchRecords
from fairpanel.judging.store._replica_store import ReplicaRecords
from fairpanel.judging.store._store_schema import STORE_SCHEMA_VERSION, Transaction, prepare
from fairpanel.judging.store._trial_pack import trial_design
from fairpanel.judging.store._turn_pack import name_id, packed_codes, packed_numbers

__all__ = [
    "STORE_FILE",
    "STORE_SCHEMA_VERSION",
    "Store",
    "StudyItemRecord",
]

STORE_FILE = "fairpanel.sqlite"
_CALL_COLUMNS = (
    "key, model, endpoint, role, request, reply, finish_reason, prompt_tokens, "
    "completion_tokens, cached_tokens, latency_s, created_at, served_model, fingerprint, "
    "batch_id, replica"
)
"""The calls table's columns for its insert, named rather than positional so the insert does
not depend on where the migrations put the columns they added."""


TRIAL_COLUMNS = (
    "key, protocol, spec, status, error, consensus, schema_version, created_at, design, "
    "design_numbers, request_digest"
)
"""The trials table's columns in the order ``put_trial`` writes them."""
TURN_COLUMNS = (
    "trial_key, round, round_kind, judge, speaker_index, judge_model, raw_text, parsed, "
    "parse_error, attempts, prompt_tokens, completion_tokens, latency_s, call_keys, numbers, "
    "codes"
)
"""The turns table's columns in the order ``put_trial`` writes them."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class StudyItemRecord:
    """One finished item of a study: its spec, outcome and the keys of the calls it made."""

    key: str
    study: str
    spec: dict[str, Any]
    status: str
    error: str | None
    result: dict[str, Any] | None
    call_keys: Sequence[str] = ()


class Store:
    """One run folder's database. Implements the agents' ``CallCache``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.execute("PRAGMA busy_timeout=5000")
        prepare(self._db, path)
        self.batches = BatchRecords(self._db)
        """Batch mode's ledger (``agents.BatchLedger``)."""
        self.replicas = ReplicaRecords(self._db)
        """Failed attempts by replica (``agents.FailureLog``) and the per-replica summary."""

    def close(self) -> None:
        self._db.close()

    # -- calls (the response cache) ---------------------------------------------------------

    def get_call(self, key: str) -> ModelReply | None:
        row = self._db.execute(
            "SELECT reply, finish_reason, prompt_tokens, completion_tokens, cached_tokens, "
            "latency_s, served_model, fingerprint, replica FROM calls WHERE key = ?",
            (key,),
        ).fetchone()
        if row is None:
            return None
        return ModelReply(
            text=row[0],
            finish_reason=row[1],
            usage=Usage(prompt_tokens=row[2], completion_tokens=row[3], cached_tokens=row[4]),
            latency_s=row[5],
            served_model=row[6],
            fingerprint=row[7],
            replica=row[8],
        )

    def put_call(self, key: str, request: ModelRequest, reply: ModelReply, role: str) -> None:
        self._db.execute(
            f"INSERT OR IGNORE INTO calls ({_CALL_COLUMNS}) VALUES ({', '.join('?' * 16)})",
            (
                key,
                request.model,
                request.endpoint,
                role,
                request.model_dump_json(),
                reply.text,
                reply.finish_reason,
                reply.usage.prompt_tokens,
                reply.usage.completion_tokens,
                reply.usage.cached_tokens,
                reply.latency_s,
                _now(),
                reply.served_model,
                reply.fingerprint,
                reply.batch_id,
                None if reply.replica is None else redact(reply.replica),
            ),
        )

    def iter_served(self) -> Iterator[tuple[str, str | None, str | None, str]]:
        """(model, served model, fingerprint, created at) of every stored call, in the order
        the calls were stored."""
        for model, served, fingerprint, created in self._db.execute(
            "SELECT model, served_model, fingerprint, created_at FROM calls ORDER BY rowid"
        ):
            yield str(model), served, fingerprint, str(created)

    def call_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM calls").fetchone()[0])

    # -- responses -----------------------------------------------------------------------------

    def put_response(
        self, scenario_id: str, response_index: int, model: str, text: str, call_key: str
    ) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?)",
            (scenario_id, response_index, model, text, call_key),
        )

    def get_response(self, scenario_id: str, response_index: int, model: str) -> str | None:
        row = self._db.execute(
            "SELECT text FROM responses WHERE scenario_id=? AND response_index=? AND model=?",
            (scenario_id, response_index, model),
        ).fetchone()
        return None if row is None else str(row[0])

    def responses(self) -> list[tuple[str, int, str, str]]:
        rows = self._db.execute(
            "SELECT scenario_id, response_index, model, text FROM responses "
            "ORDER BY scenario_id, response_index"
        ).fetchall()
        return [(str(r[0]), int(r[1]), str(r[2]), str(r[3])) for r in rows]

    # -- trials ----------------------------------------------------------------------------------

    def finished_keys(self, *, include_failed: bool = True) -> set[str]:
        query = "SELECT key FROM trials" + ("" if include_failed else " WHERE status = 'ok'")
        return {str(row[0]) for row in self._db.execute(query)}

    def put_trial(self, record: TrialRecord) -> None:
        """Write a trial and all its turns atomically (replacing an earlier failed attempt)."""
        with self._transaction():
            self._db.execute("DELETE FROM turns WHERE trial_key = ?", (record.key,))
            self._db.execute(
                f"INSERT OR REPLACE INTO trials ({TRIAL_COLUMNS}) VALUES ({', '.join('?' * 11)})",
                (
                    record.key,
                    record.protocol,
                    json.dumps(record.spec, sort_keys=True),
                    record.status,
                    record.error,
                    None if record.consensus is None else json.dumps(record.consensus),
                    int(record.spec.get("schema_version", 1)),
                    _now(),
                    *trial_design(
                        record.spec,
                        record.consensus,
                        (key for turn in record.turns for key in turn.call_keys),
                    ),
                ),
            )
            named = {
                names: name_id(self._db, *names)
                for names in dict.fromkeys(
                    (turn.round_kind, turn.judge, turn.judge_model) for turn in record.turns
                )
            }
            rows = []
            for turn in record.turns:
                names = named[turn.round_kind, turn.judge, turn.judge_model]
                parsed = turn.parsed is not None
                codes = packed_codes(record.key, turn.round, turn.speaker_index, turn.attempts,
                                     parsed, names)  # fmt: skip
                rows.append(
                    (
                        record.key,
                        turn.round,
                        turn.round_kind,
                        turn.judge,
                        turn.speaker_index,
                        turn.judge_model,
                        turn.raw_text,
                        None if turn.parsed is None else json.dumps(turn.parsed),
                        turn.parse_error,
                        turn.attempts,
                        turn.usage.prompt_tokens,
                        turn.usage.completion_tokens,
                        turn.latency_s,
                        json.dumps(list(turn.call_keys)),
                        packed_numbers(turn.parsed),
                        codes,
                    )
                )
            self._db.executemany(
                f"INSERT INTO turns ({TURN_COLUMNS}) VALUES ({', '.join('?' * 16)})", rows
            )

    def trial_status_counts(self) -> dict[str, int]:
        rows = self._db.execute("SELECT status, COUNT(*) FROM trials GROUP BY status").fetchall()
        return {str(status): int(count) for status, count in rows}

    def iter_trials(self) -> Iterator[tuple[str, dict[str, Any], str, str | None, Any]]:
        for key, spec, status, error, consensus in self._db.execute(
            "SELECT key, spec, status, error, consensus FROM trials ORDER BY key"
        ):
            yield (
                str(key),
                json.loads(spec),
                str(status),
                error,
                None if consensus is None else json.loads(consensus),
            )

    def iter_turns(self) -> Iterator[dict[str, Any]]:
        cursor = self._db.execute(
            "SELECT trial_key, round, round_kind, judge, speaker_index, judge_model, raw_text, "
            "parsed, parse_error, attempts, prompt_tokens, completion_tokens, latency_s, "
            "call_keys FROM turns ORDER BY trial_key, round, speaker_index"
        )
        names = [d[0] for d in cursor.description]
        for row in cursor:
            item = dict(zip(names, row, strict=True))
            item["parsed"] = None if item["parsed"] is None else json.loads(item["parsed"])
            item["call_keys"] = tuple(str(key) for key in json.loads(item["call_keys"]))
            yield item

    def read(self, sql: str, parameters: Sequence[Any] = ()) -> sqlite3.Cursor:
        """A read-only query of the store's tables, for the readers in this package that need
        a large store in columns (``frame_columns``) rather than one record at a time."""
        return self._db.execute(sql, parameters)

    @contextmanager
    def reading_connection(self) -> Iterator[Callable[[str, Sequence[Any]], sqlite3.Cursor]]:
        """Queries on a second, read-only connection to the store, closed on leaving: a reader
        on another thread scans through it while this connection serves the caller. An
        in-memory store has no second connection: its own serves both (SQLite serializes
        them)."""
        if str(self.path) == ":memory:":
            yield self._db.execute
            return
        db = sqlite3.connect(
            f"{self.path.resolve().as_uri()}?mode=ro", uri=True, check_same_thread=False
        )
        try:
            db.execute("PRAGMA busy_timeout=5000")
            yield db.execute
        finally:
            db.close()

    def trial_call_keys(self) -> dict[str, frozenset[str]]:
        """Every request key each stored trial's judge turns made (trials without turns are
        absent), so byte-identical trials can be found without loading the frames."""
        found: dict[str, set[str]] = {}
        for trial_key, call_keys in self._db.execute("SELECT trial_key, call_keys FROM turns"):
            found.setdefault(str(trial_key), set()).update(map(str, json.loads(call_keys)))
        return {key: frozenset(keys) for key, keys in found.items()}

    # -- study items (fairpanel.studies) -------------------------------------------------------

    def put_study_item(self, record: StudyItemRecord) -> None:
        """Write one item in a single statement (replacing an earlier failed attempt)."""
        self._db.execute(
            "INSERT OR REPLACE INTO study_items VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.key,
                record.study,
                json.dumps(record.spec, sort_keys=True),
                record.status,
                record.error,
                None if record.result is None else json.dumps(record.result, sort_keys=True),
                json.dumps(list(record.call_keys)),
                _now(),
            ),
        )

    def study_item_statuses(self, study: str) -> dict[str, tuple[str, str | None]]:
        """(status, error) of every stored item of ``study``, by key."""
        rows = self._db.execute(
            "SELECT key, status, error FROM study_items WHERE study = ?", (study,)
        ).fetchall()
        return {str(key): (str(status), error) for key, status, error in rows}

    def iter_study_items(self, study: str) -> Iterator[StudyItemRecord]:
        for key, spec, status, error, result, call_keys in self._db.execute(
            "SELECT key, spec, status, error, result, call_keys FROM study_items "
            "WHERE study = ? ORDER BY key",
            (study,),
        ):
            yield StudyItemRecord(
                key=str(key),
                study=study,
                spec=json.loads(spec),
                status=str(status),
                error=error,
                result=None if result is None else json.loads(result),
                call_keys=tuple(json.loads(call_keys)),
            )

    def failed_turns(self, limit: int) -> list[dict[str, Any]]:
        """The first ``limit`` judge turns that did not parse (in trial-key and round order),
        with their trial's identities, raw text and error."""
        cursor = self._db.execute(
            "SELECT t.trial_key, t.round_kind, t.judge, t.raw_text, t.parse_error, tr.spec "
            "FROM turns t JOIN trials tr ON tr.key = t.trial_key WHERE t.parsed IS NULL "
            "ORDER BY t.trial_key, t.round, t.speaker_index LIMIT ?",
            (limit,),
        )
        names = [d[0] for d in cursor.description]
        rows = []
        for row in cursor:
            item = dict(zip(names, row, strict=True))
            item["identities"] = list(json.loads(item.pop("spec"))["identities"])
            rows.append(item)
        return rows

    def tokens_by_role(self) -> dict[str, Usage]:
        rows = self._db.execute(
            "SELECT role, SUM(prompt_tokens), SUM(completion_tokens), SUM(cached_tokens) "
            "FROM calls GROUP BY role"
        ).fetchall()
        return {
            str(role): Usage(prompt_tokens=p or 0, completion_tokens=c or 0, cached_tokens=k or 0)
            for role, p, c, k in rows
        }

    def tokens_by_role_and_model(
        self, *, batched: bool | None = None
    ) -> dict[tuple[str, str], Usage]:
        """Tokens by (role, model): of every call, or only of batch (``batched``) or online
        calls, which are priced differently."""
        where = {None: "", True: " WHERE batch_id IS NOT NULL", False: " WHERE batch_id IS NULL"}
        rows = self._db.execute(
            "SELECT role, model, SUM(prompt_tokens), SUM(completion_tokens), SUM(cached_tokens) "
            f"FROM calls{where[batched]} GROUP BY role, model"
        ).fetchall()
        return {
            (str(role), str(model)): Usage(
                prompt_tokens=p or 0, completion_tokens=c or 0, cached_tokens=k or 0
            )
            for role, model, p, c, k in rows
        }

    def _transaction(self) -> Transaction:
        return Transaction(self._db)
