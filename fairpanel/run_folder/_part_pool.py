"""The parts of several arms' reports (``analysis.arm_parts``) run at once.

A million-turn run's report spends half its time in the arms' analyses, and one core does
them one after another while the other idles. The parts only read the frames and draw from
their own seeded generators, so they may run in any order and anywhere: the results are the
same, byte for byte.

All but the smallest runs fork worker processes: each inherits the frames from the parent
(copy-on-write, nothing pickled but the parts' small results) and runs without the interpreter
lock. Threads would share the frames too, but half of the analysis is Python that holds the
lock: on two cores they finish the arms of a million turns in about 7.2 s where forked
processes take 6.0 s and one thread 10.8 s, and the arms of 10k turns (67k score rows) in 1.5 s
where forked processes take 0.74 s. Runs of a few dozen trials, and platforms that do not fork
safely, use threads: the forks' start (about 0.1 s) costs more than it saves there.
"""

from __future__ import annotations

import gc
import itertools
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from fairpanel.analysis import ReportPart

__all__ = ["FORK_ROWS", "run_parts"]

FORK_ROWS = 2_000
"""Score rows from which the parts run in forked processes (about 300 judge turns): 652 rows
took 0.21 s on threads and 0.27 s forked, 4,032 rows 1.3 s on threads and 0.8 s forked."""

_PENDING: dict[int, Mapping[str, Mapping[str, ReportPart]]] = {}
"""The parts of each ``run_parts`` call in flight, by call: what a forked worker inherits."""
_CALLS = itertools.count()


def _run_pending(call: int, subset: str, part: str) -> dict[str, Any]:
    return _PENDING[call][subset][part]()


def _forks() -> bool:
    # macOS can fork but its system libraries are not safe in a forked child.
    return sys.platform == "linux" and "fork" in multiprocessing.get_all_start_methods()


@contextmanager
def _pool(
    parts: Mapping[str, Mapping[str, ReportPart]], workers: int, processes: bool
) -> Iterator[Callable[[str, str], Future[dict[str, Any]]]]:
    """A submit function of a subset's part, on processes or on threads."""
    if not processes:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="analyze") as threads:
            yield lambda subset, part: threads.submit(parts[subset][part])
        return
    call = next(_CALLS)
    _PENDING[call] = parts  # before the pool forks its workers (on the first submit)
    # Frozen, the inherited objects are left alone by the workers' garbage collector, which
    # would otherwise write to each one's header and so copy every page of the frames.
    gc.freeze()
    try:
        pool: Executor = ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("fork")
        )
        with pool:
            yield lambda subset, part: pool.submit(_run_pending, call, subset, part)
    finally:
        gc.unfreeze()
        del _PENDING[call]


def run_parts(
    parts: Mapping[str, Mapping[str, ReportPart]],
    *,
    sizes: Mapping[str, int],
    workers: int | None = None,
    processes: bool | None = None,
    alongside: Callable[[], object] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Each subset's parts' blocks, in the parts' order. ``sizes`` are the subsets' score rows:
    the largest subsets' parts start first (so the last to start are short), and their sum
    picks processes over threads (``FORK_ROWS``) unless ``processes`` says which. ``workers``
    defaults to the cores; one worker runs everything here, in order. ``alongside`` is the
    caller's own work, done here while the parts run (it would otherwise wait for them)."""
    count = sum(map(len, parts.values()))
    workers = workers or min(count, os.cpu_count() or 1)
    if workers <= 1:
        done = {name: [run() for run in own.values()] for name, own in parts.items()}
        if alongside is not None:
            alongside()
        return done
    if processes is None:
        processes = sum(sizes.values()) >= FORK_ROWS
    largest = sorted(parts, key=lambda name: -sizes[name])
    with _pool(parts, workers, processes and _forks()) as submit:
        started = {name: [submit(name, part) for part in parts[name]] for name in largest}
        if alongside is not None:
            alongside()
        return {name: [done.result() for done in started[name]] for name in parts}
