"""The progress display of ``fairpanel run``: a bar per stage and, under them, one line of the
engine's counters (``RunPulse``): calls per second, rate-limit waits, failures, cost and ETA.

A user watching a long run wants to know whether it is throttled, failing or costing more than
planned before it ends, not only how far it is; the line says so in under 80 columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

if TYPE_CHECKING:
    from fairpanel.judging.engine import RunPulse


__all__ = ["LiveProgress", "pulse_line", "run_progress"]


def _duration(seconds: float) -> str:
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}"


def pulse_line(pulse: RunPulse) -> str:
    """One line, e.g. ``12.5 calls/s | 429s 3, waits 4 (2.1 s) | 1 failed | $0.0123 | ETA
    0:01:05``; the cost reads "unpriced" when no model has a price."""
    waits = f"429s {pulse.rate_limited}, waits {pulse.waits}"
    if pulse.wait_s:
        waits += f" ({pulse.wait_s:,.1f} s)"
    cost = "unpriced" if pulse.cost_usd is None else f"${pulse.cost_usd:,.4f}"
    eta = pulse.eta_s
    return " | ".join(
        (
            f"{pulse.calls_per_s:,.1f} calls/s",
            waits,
            f"{pulse.failed} failed",
            cost,
            "ETA " + ("-" if eta is None else _duration(eta)),
        )
    )


class _PulseProgress(Progress):
    """Rich's progress bars with the latest pulse line under them."""

    line = ""

    def get_renderables(self) -> Iterable[RenderableType]:
        yield self.make_tasks_table(self.tasks)
        if self.line:
            yield Text(self.line, style="dim", no_wrap=True, overflow="ellipsis")


class LiveProgress:
    """The hook ``run`` hands the engine: advances a bar per stage (``__call__``) and shows
    the counters (``pulse``; the engine sends pulses to a hook that has this method)."""

    def __init__(self, bar: _PulseProgress) -> None:
        self.bar = bar
        self.tasks: dict[str, TaskID] = {}
        self.last: RunPulse | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage not in self.tasks:
            self.tasks[stage] = self.bar.add_task(stage, total=total)
        self.bar.update(self.tasks[stage], completed=done, total=total)

    def pulse(self, event: RunPulse) -> None:
        self.last = event
        self.bar.line = pulse_line(event)
        self.bar.refresh()


@contextmanager
def run_progress(console: Console) -> Iterator[LiveProgress]:
    """Bars and the counters line while the block runs; both stay on screen afterwards."""
    with _PulseProgress(
        TextColumn("[bold]{task.description}"),
        BarColumn(bar_width=30),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as bar:
        yield LiveProgress(bar)
