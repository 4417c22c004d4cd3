"""A running invocation's counters, for a live progress line (calls/s, waits, failures, cost).

The plain ``ProgressHook`` says only (stage, done, total). A hook that also has a ``pulse``
method (``PulseHook``) is handed a ``RunPulse`` as units are saved, at most every
``interval`` seconds and once more at the end: calls made, 429s and waits from every
endpoint's limiter, failed units, the folder's cost so far and the elapsed time. The engine
builds the numbers; how they are drawn is the caller's business (the CLI draws them with rich),
so the engine stays free of any terminal library.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Protocol, TypeVar, runtime_checkable

from fairpanel.judging.engine._session import RunSession
from fairpanel.judging.engine._workers import (
    FinishedRecord,
    ProgressHook,
    WorkOutcome,
    run_workers,
)
from fairpanel.judging.experiment._config import Price
from fairpanel.judging.store import cost_by_role

__all__ = ["PulseHook", "RunPulse", "metered", "run_metered"]

_COST_EVERY_S = 5.0
"""The cost is summed from the store (a query over every call): not on every pulse."""


@dataclass(frozen=True)
class RunPulse:
    """What an invocation has done so far."""

    unit: str
    """"trials" or "items"."""
    done: int
    total: int
    """Units pending when the invocation began."""
    failed: int
    calls_made: int
    calls_cached: int
    rate_limited: int
    """Attempts answered with HTTP 429, over every endpoint."""
    waits: int
    """Times a call slept on a pause, a backoff or the reported quota before an attempt."""
    wait_s: float
    cost_usd: float | None
    """The folder's cost so far; None when no model has a price."""
    elapsed_s: float

    @property
    def calls_per_s(self) -> float:
        return self.calls_made / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the pace so far; None before the first unit is done."""
        if self.done == 0 or self.elapsed_s <= 0:
            return None
        return (self.total - self.done) * self.elapsed_s / self.done


@runtime_checkable
class PulseHook(Protocol):
    """A progress hook that also takes the run's counters."""

    def __call__(self, stage: str, done: int, total: int) -> None: ...

    def pulse(self, event: RunPulse) -> None: ...


Unit = TypeVar("Unit")
Record = TypeVar("Record", bound=FinishedRecord)


class _Meter:
    def __init__(
        self,
        hook: PulseHook,
        session: RunSession,
        prices: dict[str, Price],
        unit: str,
        total: int,
        interval: float,
    ) -> None:
        self.hook, self.session, self.prices = hook, session, prices
        self.unit, self.total, self.interval = unit, total, interval
        self.done = self.failed = 0
        self.started = time.monotonic()
        self.last = self.cost_at = float("-inf")
        self.cost: float | None = None

    def saved(self, record: FinishedRecord) -> None:
        self.done += 1
        self.failed += record.status == "failed"
        now = time.monotonic()
        if now - self.last >= self.interval or self.done == self.total:
            self.last = now
            self.hook.pulse(self.snapshot(now))

    def _cost(self, now: float) -> float | None:
        if self.prices and (now - self.cost_at >= _COST_EVERY_S or self.done == self.total):
            self.cost_at = now
            store = self.session.store
            self.cost = cost_by_role(
                store.tokens_by_role_and_model(batched=False),
                self.prices,
                store.tokens_by_role_and_model(batched=True),
            )["total_usd"]
        return self.cost

    def snapshot(self, now: float) -> RunPulse:
        stats = self.session.registry.endpoint_stats().values()
        ledger = self.session.caller.ledger
        return RunPulse(
            unit=self.unit,
            done=self.done,
            total=self.total,
            failed=self.failed,
            calls_made=ledger.calls_made,
            calls_cached=ledger.calls_cached,
            rate_limited=sum(s.rate_limited for s in stats),
            waits=sum(s.waits + s.quota_waits for s in stats),
            wait_s=round(sum(s.wait_s for s in stats), 3),
            cost_usd=self._cost(now),
            elapsed_s=now - self.started,
        )


def metered(
    save: Callable[[Record], None],
    progress: ProgressHook | None,
    session: RunSession,
    prices: dict[str, Price],
    *,
    unit: str,
    total: int,
    interval: float = 0.5,
) -> Callable[[Record], None]:
    """``save``, then a pulse to ``progress`` when it is a ``PulseHook`` (else ``save`` as is)."""
    if not isinstance(progress, PulseHook) or total == 0:
        return save
    meter = _Meter(progress, session, prices, unit, total, interval)

    def save_and_pulse(record: Record) -> None:
        save(record)
        meter.saved(record)

    return save_and_pulse


async def run_metered(
    pending: Iterator[Unit],
    pending_count: int,
    session: RunSession,
    prices: dict[str, Price],
    *,
    unit: str,
    concurrency: int,
    work: Callable[[Unit], Awaitable[Record]],
    save: Callable[[Record], None],
    progress: ProgressHook | None,
    max_failures: int | None,
) -> WorkOutcome:
    """A run's worker loop inside its session, the one both runners run: ``run_workers`` over
    the pending units (``unit``, "trials" or "items", names the progress stage), every record
    saved, then counted for the pulses ``progress`` takes when it is a ``PulseHook``."""
    return await run_workers(
        pending,
        pending_count,
        concurrency=concurrency,
        work=work,
        save=metered(save, progress, session, prices, unit=unit, total=pending_count),
        unit_name=unit,
        progress=progress,
        max_failures=max_failures,
    )
