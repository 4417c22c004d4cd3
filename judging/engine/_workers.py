"""The worker loop both runners share: a pool pulling work from a lazy design.

Panel trials and study items differ in what one unit of work is, not in how a run goes through
them: ``concurrency`` workers take pending units from one iterator (so the design is never held
as a list), store each record as soon as it exists (so a killed run loses at most the units in
flight), report progress, and stop taking new units once ``max_failures`` have failed in this
invocation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Protocol, TypeVar

__all__ = ["FinishedRecord", "ProgressHook", "WorkOutcome", "run_workers"]

ProgressHook = Callable[[str, int, int], None]
"""Called as (stage, done, total) while a run advances."""


class FinishedRecord(Protocol):
    """What the loop reads of a stored record: whether it failed, and why."""

    @property
    def status(self) -> str: ...

    @property
    def error(self) -> str | None: ...


Unit = TypeVar("Unit")
Record = TypeVar("Record", bound=FinishedRecord)


@dataclass
class WorkOutcome:
    """What one invocation did: units run and failed, and why it stopped early, if it did."""

    run: int = 0
    failed: int = 0
    stopped: str | None = None


async def run_workers(
    pending: Iterator[Unit],
    pending_count: int,
    *,
    concurrency: int,
    work: Callable[[Unit], Awaitable[Record]],
    save: Callable[[Record], None],
    unit_name: str,
    progress: ProgressHook | None = None,
    max_failures: int | None = None,
) -> WorkOutcome:
    """Run ``work`` on every pending unit with ``concurrency`` workers and ``save`` each record.

    ``unit_name`` ("trials", "items") names the progress stage and the stop message.
    """
    outcome = WorkOutcome()
    if pending_count == 0:
        return outcome

    async def worker() -> None:
        for unit in pending:
            if outcome.stopped is not None:
                return
            record = await work(unit)
            save(record)
            outcome.run += 1
            if record.status == "failed":
                outcome.failed += 1
                if max_failures is not None and outcome.failed >= max_failures:
                    outcome.stopped = (
                        f"stopped after {outcome.failed} failed {unit_name} (--max-failures); "
                        f"last error: {record.error}"
                    )
            if progress:
                progress(unit_name, outcome.run, pending_count)

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return outcome
