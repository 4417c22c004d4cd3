"""Where a run folder stands, read without taking its lock: ``fairpanel status``.

A detached batch run (``fairpanel run --detach``) leaves batches open at the provider; whoever
comes back (a person, a cron job, a CI loop) needs to know, without starting the run side or
AutoGen, what is still running, what it has cost and whether to run the command again. The
store is opened read-only, so a run may be writing it meanwhile.

The remaining time is an estimate: the debate's steps still to go (a panel's steps, as
``fairpanel estimate`` counts them, with the two response steps when the responder is batched,
less the steps whose batches have all closed) times the slowest batched model's
``batch.expected_turnaround_s``. A step is the batches created in one second (a step's batches
go out together: one per model, or several where a provider's size limit splits it), so a
batch that only retries items counts as a step too.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from fairpanel.agents import BatchSettings, Usage
from fairpanel.judging.experiment._config import ExperimentConfig, PanelConfig, Price
from fairpanel.judging.store._cost import cost_by_role
from fairpanel.judging.store._provenance import RESOLVED_CONFIG_FILE
from fairpanel.judging.store._run_files import SUMMARY_FILE, BadRunFolderError
from fairpanel.judging.store._store import STORE_FILE

__all__ = ["EXIT_PENDING", "BatchView", "RunStatus", "run_status"]

EXIT_PENDING = 4
"""``fairpanel status``'s exit code while trials of the design are still to run, which is while
their batches are open (0 once every trial is stored, ok or failed)."""

_ESTIMATE = (
    "remaining steps (the debate's batch steps less those whose batches have all closed) x "
    "the slowest batched model's batch.expected_turnaround_s"
)


class BatchView(BaseModel):
    """One batch as the store records it, with its items' outcomes so far."""

    model_config = ConfigDict(frozen=True)

    local_id: str
    provider_batch_id: str | None
    model: str
    state: str
    open: bool
    items: int
    answered: int
    """Items this batch answered (their calls are in the calls table)."""
    failed: int
    """Items that failed on their own (an error line, an ``errored`` result)."""
    expired_or_cancelled: int
    created_at: str
    updated_at: str


class RunStatus(BaseModel):
    """Where the folder stands; ``finished``: every trial of the design is stored (a batch
    still open then, whose trial failed on another call, holds nothing the run needs)."""

    model_config = ConfigDict(frozen=True)

    run_dir: str
    finished: bool
    unit: str
    """"trials" for a judge panel, "items" for a study: what the counts below count."""
    trials_total: int | None
    """The design's trials, from the last ``summary.json`` (None before any invocation ended)."""
    trials_ok: int
    trials_failed: int
    trials_pending: int | None
    batches: list[BatchView]
    open_batches: int
    items_waiting: int
    """Items of the open batches, not answered yet."""
    cost: dict[str, Any]
    remaining_steps: int | None
    remaining_s: float | None
    estimate: str = _ESTIMATE

    @property
    def exit_code(self) -> int:
        return 0 if self.finished else EXIT_PENDING


def _query(db: sqlite3.Connection, sql: str) -> list[tuple[Any, ...]]:
    """Rows of ``sql``; none when the table is not there (a store from before batch mode)."""
    try:
        return db.execute(sql).fetchall()
    except sqlite3.OperationalError:
        return []


_BATCHES = """
SELECT b.id, b.provider_batch_id, b.scope, b.state, b.closed, b.items, b.created_at,
       b.updated_at,
       (SELECT COUNT(*) FROM batch_items i JOIN calls c ON c.key = i.key
        WHERE i.batch_id = b.id AND c.batch_id = b.provider_batch_id),
       (SELECT COUNT(*) FROM batch_items i WHERE i.batch_id = b.id AND i.error IS NOT NULL
        AND NOT (i.error LIKE '%expired%' OR i.error LIKE '%cancel%')),
       (SELECT COUNT(*) FROM batch_items i WHERE i.batch_id = b.id AND i.error IS NOT NULL
        AND (i.error LIKE '%expired%' OR i.error LIKE '%cancel%'))
FROM batches b ORDER BY b.created_at, b.rowid
"""


def _batches(db: sqlite3.Connection) -> list[BatchView]:
    found = []
    for row in _query(db, _BATCHES):
        local_id, provider_id, scope, state, closed, items, created, updated = row[:8]
        answered, failed, ended = (int(count) for count in row[8:])
        found.append(
            BatchView(
                local_id=str(local_id),
                provider_batch_id=provider_id,
                model=str(scope).partition("|")[0],
                state=str(state),
                open=not closed,
                items=int(items),
                answered=answered,
                failed=failed,
                expired_or_cancelled=ended,
                created_at=str(created),
                updated_at=str(updated),
            )
        )
    return found


def _tokens(db: sqlite3.Connection, batched: bool) -> dict[tuple[str, str], Usage]:
    where = "IS NOT NULL" if batched else "IS NULL"
    rows = _query(
        db,
        "SELECT role, model, SUM(prompt_tokens), SUM(completion_tokens), SUM(cached_tokens) "
        f"FROM calls WHERE batch_id {where} GROUP BY role, model",
    )
    return {
        (str(role), str(model)): Usage(
            prompt_tokens=p or 0, completion_tokens=c or 0, cached_tokens=k or 0
        )
        for role, model, p, c, k in rows
    }


def _panel_steps(panel: PanelConfig) -> int:
    """A panel's batch steps, as ``fairpanel estimate`` counts them."""
    seats = len(panel.seats())
    first = 1 + (seats > 1)
    final = 1 if panel.final_vote == "blind" else seats
    return first + seats * panel.discussion_rounds + final + (panel.consensus == "moderator")


def _remaining(
    config: ExperimentConfig | None, batches: list[BatchView], finished: bool
) -> tuple[int | None, float | None]:
    if finished:
        return 0, 0.0
    if config is None or not batches:
        return None, None
    models = {batch.model for batch in batches}
    steps = max(_panel_steps(panel) for _, panel in config.panel_items())
    if config.responses_from is None and config.responder_spec.id in models:
        steps += 2
    closed: dict[str, bool] = {}
    for batch in batches:
        closed[batch.created_at] = closed.get(batch.created_at, True) and not batch.open
    remaining = max(steps - sum(closed.values()), 1)
    specs = [config.model_spec(reference) for reference in config.models]
    turnaround = max(
        (spec.batch.expected_turnaround_s for spec in specs if spec.id in models),
        default=BatchSettings().expected_turnaround_s,
    )
    return remaining, remaining * turnaround


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def run_status(run_dir: Path) -> RunStatus:
    """Read ``run_dir``'s store and JSON files (raises ``BadRunFolderError`` without a store)."""
    store = run_dir / STORE_FILE
    if not store.is_file():
        raise BadRunFolderError(f"{run_dir} is not a run folder: it has no {STORE_FILE}")
    resolved = _read_json(run_dir / RESOLVED_CONFIG_FILE)
    summary = _read_json(run_dir / SUMMARY_FILE) or {}
    study = resolved is not None and "study" in resolved
    unit, table = ("items", "study_items") if study else ("trials", "trials")
    config = None
    if resolved is not None and not study:
        try:
            config = ExperimentConfig.model_validate(resolved)
        except ValueError:
            config = None
    prices = {
        model: Price.model_validate(price)
        for model, price in ((resolved or {}).get("prices") or {}).items()
    }
    db = sqlite3.connect(f"{store.resolve().as_uri()}?mode=ro", uri=True)
    try:
        db.execute("PRAGMA busy_timeout=5000")
        batches = _batches(db)
        counts = dict(_query(db, f"SELECT status, COUNT(*) FROM {table} GROUP BY status"))
        cost = cost_by_role(_tokens(db, False), prices, _tokens(db, True))
    finally:
        db.close()
    ok, failed = int(counts.get("ok", 0)), int(counts.get("failed", 0))
    total = summary.get(f"{unit}_total")
    pending = None if total is None else max(int(total) - ok - failed, 0)
    open_batches = [batch for batch in batches if batch.open]
    finished = pending == 0  # a batch still open then has no trial waiting on it
    steps, seconds = _remaining(config, batches, finished)
    return RunStatus(
        run_dir=str(run_dir),
        finished=finished,
        unit=unit,
        trials_total=None if total is None else int(total),
        trials_ok=ok,
        trials_failed=failed,
        trials_pending=pending,
        batches=batches,
        open_batches=len(open_batches),
        items_waiting=sum(batch.items - batch.answered for batch in open_batches),
        cost=cost,
        remaining_steps=steps,
        remaining_s=seconds,
    )
