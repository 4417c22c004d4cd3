"""The report's figures drawn beside its statistics, on the second core.

A small run's report is mostly fixed cost: importing pandas, scipy and statsmodels for the
statistics, matplotlib for the figures, then drawing seven figures one after another. None of
the figures needs the statistics' libraries, and none needs another figure. So ``fairpanel
report`` forks one process before the statistics load (``FigureWorkers``); it imports matplotlib
and the figure modules while the report's own process imports and computes the statistics, and
when the page asks for its figures it draws them, split between itself and a fork of itself.
The report's process never imports matplotlib.

A figure is asked for by name (``FigureJob``: module, function, arguments), so the page's code
does not import the figure modules either; the results are the same PNGs, byte for byte, as
drawing them in process (``draw_here``), which is also what happens where forking is unsafe or
the drawing process fails: a figure that failed there is drawn here again, so its error, if it
has one, is raised where the report runs.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Any

__all__ = [
    "FIGURE_MODULES",
    "Draw",
    "EmbeddedFigure",
    "FigureJob",
    "FigureWorkers",
    "Pending",
    "draw_here",
]

FIGURE_MODULES = ("fairpanel.report._run_figures", "fairpanel.report._panel_figures")
"""The run page's figure modules (its jobs name them), which the drawing process imports as
soon as it starts."""
_POLL_S = 0.5


@dataclass(frozen=True)
class EmbeddedFigure:
    """A rendered figure: a ``data:image/png;base64,...`` URI and its text alternative. Defined
    here, not beside the drawing kit, so that a figure sent back from the drawing process is
    read without importing matplotlib."""

    uri: str
    alt: str
    width: int
    """CSS pixels: the PNG is drawn at 1.5x for sharp text on high-density screens."""
    height: int


@dataclass(frozen=True)
class FigureJob:
    """One figure: ``function`` of ``module`` called with ``args`` (picklable report data)."""

    module: str
    function: str
    args: tuple[Any, ...] = ()

    def draw(self) -> Any:
        return getattr(importlib.import_module(self.module), self.function)(*self.args)


Pending = Callable[[], dict[str, Any]]
"""Waits for the figures asked for: each job's figure (or ``None``) under the job's name."""
Draw = Callable[[Mapping[str, FigureJob]], Pending]
"""Starts drawing every job; the page builds the rest of itself before it waits."""


def draw_here(jobs: Mapping[str, FigureJob]) -> Pending:
    """Draws in this process, when the figures are waited for."""
    return lambda: {name: job.draw() for name, job in jobs.items()}


def _forks() -> bool:
    # macOS can fork but its system libraries are not safe in a forked child.
    return sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods()


def _attempt(job: FigureJob) -> tuple[bool, Any]:
    try:
        return True, job.draw()
    except Exception as error:  # drawn again where the report runs, which raises it
        return False, repr(error)


def _warm() -> None:
    """Draw a tiny figure with text, so the fonts are loaded before the drawing forks."""
    kit = importlib.import_module("fairpanel.report._figure")
    figure = kit.new_figure(1.0, 1.0)
    figure.text(0.5, 0.5, "0.5 warm")
    kit.embed(figure, "")


def _draw_split(jobs: Mapping[str, FigureJob]) -> dict[str, tuple[bool, Any]]:
    """Every job drawn by this process and a fork of it, each taking the next job not yet
    taken, so the two finish together whatever each figure costs."""
    names = list(jobs)
    taken = multiprocessing.get_context("fork").Value("i", 0)

    def take() -> int:
        with taken.get_lock():
            index = int(taken.value)
            taken.value = index + 1
        return index

    reader, writer = multiprocessing.get_context("fork").Pipe(duplex=False)
    child = os.fork()
    drawn: dict[str, tuple[bool, Any]] = {}
    if child == 0:
        try:
            reader.close()
            while (index := take()) < len(names):
                drawn[names[index]] = _attempt(jobs[names[index]])
            writer.send(drawn)
        finally:
            os._exit(0)
    writer.close()
    while (index := take()) < len(names):
        drawn[names[index]] = _attempt(jobs[names[index]])
    with contextlib.suppress(EOFError):  # the fork died: what it took is drawn again here
        drawn.update(reader.recv())
    reader.close()
    os.waitpid(child, 0)
    return {name: drawn.get(name, (False, "not drawn")) for name in names}


def _serve(connection: Connection, modules: tuple[str, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the report's process decides when to stop
    for module in modules:
        importlib.import_module(module)
    _warm()
    while True:
        try:
            jobs = connection.recv()
        except EOFError:
            return
        if jobs is None:
            return
        connection.send(_draw_split(jobs))


class FigureWorkers:
    """A process that draws the report's figures (``draw``), started now so that its imports
    run beside the caller's; ``draw_here`` where forking is not safe. Close it (or use it as a
    context manager) when the report is written."""

    def __init__(self, modules: tuple[str, ...] = FIGURE_MODULES) -> None:
        self._connection: Connection | None = None
        self._process: Any = None
        if not _forks() or (os.cpu_count() or 1) < 2:
            return
        context = multiprocessing.get_context("fork")
        ours, theirs = context.Pipe()
        process = context.Process(
            target=_serve, args=(theirs, modules), name="fairpanel-figures", daemon=True
        )
        try:
            process.start()
        except OSError:  # no process to spare (a limit on processes): figures are drawn here
            ours.close()
            return
        finally:
            theirs.close()
        self._process, self._connection = process, ours

    @property
    def forked(self) -> bool:
        """Whether figures are drawn in the other process (else in this one)."""
        return self._connection is not None

    def draw(self, jobs: Mapping[str, FigureJob]) -> Pending:
        """Sends ``jobs`` to the drawing process now; the returned function waits for them."""
        if not jobs or not self._send(jobs):
            return draw_here(jobs)

        def wait() -> dict[str, Any]:
            replies = self._replies()
            return {
                name: replies[name][1] if replies.get(name, (False,))[0] else job.draw()
                for name, job in jobs.items()
            }

        return wait

    def _send(self, jobs: Mapping[str, FigureJob]) -> bool:
        if self._connection is None:
            return False
        try:
            self._connection.send(dict(jobs))
        except OSError:
            self.close()
            return False
        return True

    def _replies(self) -> dict[str, tuple[bool, Any]]:
        """The drawing process's replies; none when it is gone (all is then drawn here)."""
        connection = self._connection
        if connection is None:
            return {}
        try:
            while not connection.poll(_POLL_S):
                if not self._process.is_alive():
                    raise EOFError
            replies: dict[str, tuple[bool, Any]] = connection.recv()
        except (EOFError, OSError):
            self.close()
            return {}
        return replies

    def close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(OSError):
                connection.send(None)
            connection.close()
        if self._process is not None:
            self._process.join(timeout=5)
            if self._process.is_alive():
                self._process.kill()
                self._process.join()
            self._process = None

    def __enter__(self) -> FigureWorkers:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
