"""The store's record of batch mode's batches (``agents.BatchLedger``).

A batch's row and items are written before it is sent (state ``sending``), its provider id as
soon as the provider accepts it; the row's ``created_at`` (written before the submission began,
to the second, rounded down), ``items`` and its items' keys are what a resumed run looks for
the batch by if the run died before its id was written; every status read updates its state;
it is ``closed`` once its results are in the calls table (or it was refused or lost). Open
rows are what a resumed run polls. Failed items keep their error, so the retry bound counts
over every run.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from fairpanel.agents import ModelRequest, OpenBatch
from fairpanel.judging.store._store_schema import Transaction

__all__ = ["BatchRecords"]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class BatchRecords:
    """Batches and their items in the run's SQLite file."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def open_batches(self, scope: str) -> list[OpenBatch]:
        rows = self._db.execute(
            "SELECT id, provider_batch_id, created_at FROM batches WHERE scope = ? AND closed = 0 "
            "ORDER BY created_at, rowid",
            (scope,),
        ).fetchall()
        found = []
        for local_id, provider_id, created_at in rows:
            items = {
                str(key): (ModelRequest.model_validate_json(request), str(role))
                for key, role, request in self._db.execute(
                    "SELECT key, role, request FROM batch_items WHERE batch_id = ?", (local_id,)
                )
            }
            created = datetime.fromisoformat(created_at)
            found.append(OpenBatch(str(local_id), provider_id, items, created))
        return found

    def record_batch(
        self, local_id: str, scope: str, items: dict[str, tuple[ModelRequest, str]]
    ) -> None:
        now = _now()
        with Transaction(self._db):
            self._db.execute(
                "INSERT INTO batches (id, scope, provider_batch_id, state, closed, items, "
                "created_at, updated_at) VALUES (?, ?, NULL, 'sending', 0, ?, ?, ?)",
                (local_id, scope, len(items), now, now),
            )
            self._db.executemany(
                "INSERT INTO batch_items (batch_id, key, role, request) VALUES (?, ?, ?, ?)",
                [(local_id, k, role, r.model_dump_json()) for k, (r, role) in items.items()],
            )

    def batch_submitted(self, local_id: str, provider_batch_id: str) -> None:
        self._db.execute(
            "UPDATE batches SET provider_batch_id = ?, state = 'submitted', updated_at = ? "
            "WHERE id = ?",
            (provider_batch_id, _now(), local_id),
        )

    def batch_state(
        self, local_id: str, state: str, *, closed: bool = False, detail: str | None = None
    ) -> None:
        self._db.execute(
            "UPDATE batches SET state = ?, closed = MAX(closed, ?), "
            "detail = COALESCE(?, detail), updated_at = ? WHERE id = ?",
            (state, int(closed), detail, _now(), local_id),
        )

    def item_failed(self, local_id: str, key: str, error: str) -> int:
        self._db.execute(
            "UPDATE batch_items SET error = ? WHERE batch_id = ? AND key = ?",
            (error, local_id, key),
        )
        row = self._db.execute(
            "SELECT COUNT(*) FROM batch_items WHERE key = ? AND error IS NOT NULL", (key,)
        ).fetchone()
        return int(row[0])

    def summary(self) -> dict[str, int]:
        """Batches by state (closed or not), for the run's summary."""
        rows = self._db.execute("SELECT state, COUNT(*) FROM batches GROUP BY state").fetchall()
        return {str(state): int(count) for state, count in rows}

    def submissions(self) -> list[str]:
        """Every provider batch id recorded, oldest first."""
        rows = self._db.execute(
            "SELECT provider_batch_id FROM batches WHERE provider_batch_id IS NOT NULL "
            "ORDER BY created_at, rowid"
        ).fetchall()
        return [str(row[0]) for row in rows]
