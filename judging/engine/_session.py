"""A run's hold on its folder, shared by the panel runner and the study runner.

Everything a run must settle before its first call is settled here, in this order: every
model's credentials (a missing key fails before the folder is touched), the sampling settings
a provider will not take (reported, then left out), the folder lock (a second run on the folder
is refused), the provenance files, then the store (which keeps every failed attempt the
clients report) and the caching caller that answers repeated calls from it. Leaving the session
closes the clients and the store and releases the lock, however the run ended; a run that ended
without an error first adds to its manifest what the servers said they ran (``_served``).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairpanel.agents import CachingCaller, ModelRegistry, ModelSpec, Sampling
from fairpanel.judging.engine._lock import RunFolderLock
from fairpanel.judging.engine._usage import RunTotals, run_totals
from fairpanel.judging.experiment._config import Price
from fairpanel.judging.store import (
    MANIFEST_FILE,
    STORE_FILE,
    Store,
    record_served,
    write_provenance,
)

__all__ = ["ModelRole", "RunSession", "open_run_session", "unsupported_settings"]

ModelRole = tuple[str, ModelSpec, Sampling | None]
"""A role a run calls (its name in summaries), the model it calls and the role's sampling."""


def unsupported_settings(registry: ModelRegistry, roles: Sequence[ModelRole]) -> list[str]:
    """Sampling settings a provider will not take, reported before any call is made."""
    return [
        f"{role}: {spec.id} does not take '{setting}'; it will not be sent"
        for role, spec, sampling in roles
        for setting in registry.unsupported_settings(spec, sampling)
    ]


@dataclass
class RunSession:
    """What a runner works with while it holds the folder."""

    registry: ModelRegistry
    store: Store
    caller: CachingCaller
    warnings: list[str]
    started: float
    """``time.perf_counter()`` when the run began, for its wall time."""

    def wall_seconds(self) -> float:
        return round(time.perf_counter() - self.started, 3)

    def totals(
        self, prices: dict[str, Price], *, failures: dict[str, int], stopped: str | None
    ) -> RunTotals:
        """The summary's totals now: calls, tokens, cost, wall time and the warnings so far."""
        return run_totals(
            self.store,
            self.caller,
            prices,
            wall_seconds=self.wall_seconds(),
            failures=failures,
            warnings=self.warnings,
            stopped=stopped,
        )

    def report_replicas(self, warn: Callable[[str], None] | None) -> None:
        """Add a warning per replica taken out during the run (summary.json), printed too."""
        for line in self.registry.replica_warnings():
            self.warnings.append(line)
            if warn is not None:
                warn(line)


@asynccontextmanager
async def open_run_session(
    out_dir: Path,
    roles: Sequence[ModelRole],
    *,
    resolved: Mapping[str, Any],
    manifest: Mapping[str, Any],
    warn: Callable[[str], None] | None = None,
    started: float | None = None,
) -> AsyncIterator[RunSession]:
    """Check, lock and open ``out_dir`` for a run calling ``roles``; see the module docstring."""
    started = time.perf_counter() if started is None else started
    registry = ModelRegistry()
    for _role, spec, _sampling in roles:
        registry.check_credentials(spec)
    warnings = unsupported_settings(registry, roles)
    if warn is not None:
        for warning in warnings:
            warn(warning)
    out_dir.mkdir(parents=True, exist_ok=True)
    lock = RunFolderLock(out_dir).acquire()  # a second run on this folder is refused here
    try:
        write_provenance(out_dir, resolved, manifest)
        store = Store(out_dir / STORE_FILE)
        registry.keep_failures(store.replicas)
        try:
            async with registry:
                yield RunSession(registry, store, CachingCaller(store), warnings, started)
            record_served(out_dir / MANIFEST_FILE, store)
        finally:
            store.close()
    finally:
        lock.release()
