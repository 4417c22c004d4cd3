"""Runs a study into a run folder with the judge-panel runner's guarantees.

Items already in the store are skipped (failed ones too, unless asked to retry) and every
model call is answered from the store when it was made before, so the same command again
costs nothing and a killed run finishes only what is left. The design is streamed to a pool
of ``concurrency`` workers; it is never held as a list.
"""

from __future__ import annotations

import asyncio
import json
import platform
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from fairpanel.agents import CachingCaller, ModelCallError, ModelRegistry, Usage
from fairpanel.judging import (
    STORE_FILE,
    RunFolderLock,
    Store,
    StudyItemRecord,
    cost_by_role,
)
from fairpanel.studies._base import ItemFailedError, ItemSpec, Study, StudyConfig
from fairpanel.studies._context import ModelPool, StudyContext
from fairpanel.studies._load import RESOLVED_CONFIG_FILE
from fairpanel.studies._registry import build_study

__all__ = ["ProgressHook", "StudySummary", "run_study", "study_warnings"]

ProgressHook = Callable[[str, int, int], None]
"""Called as (stage, done, total) while a run advances."""


@dataclass
class StudySummary:
    """What ``summary.json`` holds for a study run."""

    study: str
    items_total: int
    items_ok: int
    items_failed: int
    items_run: int
    calls_made: int
    calls_cached: int
    tokens_by_role: dict[str, dict[str, float]]
    tokens_by_role_this_invocation: dict[str, dict[str, float]]
    wall_seconds: float
    failures: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    stopped: str | None = None
    cost: dict[str, Any] = field(default_factory=dict)
    cached_token_share: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def _cached_share(usage: Usage) -> float:
    return round(usage.cached_tokens / usage.prompt_tokens, 4) if usage.prompt_tokens else 0.0


def _usage_dict(usage: dict[str, Usage]) -> dict[str, dict[str, float]]:
    return {
        role: {**value.model_dump(), "cached_share": _cached_share(value)}
        for role, value in sorted(usage.items())
    }


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _write_provenance(out_dir: Path, config: StudyConfig, study: Study[Any, Any]) -> None:
    (out_dir / RESOLVED_CONFIG_FILE).write_text(
        json.dumps(config.model_dump(mode="json"), indent=2) + "\n", encoding="utf-8"
    )
    packages = ("fairpanel", "openai", "anthropic", "xllamacpp", "pydantic", "scipy")
    manifest = {
        "study": config.study,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": {name: _version(name) for name in packages},
        "models": {role.name: config.model_spec(role.use.model).id for role in config.roles()},
        "seed": config.seed,
        **study.manifest(),
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def study_warnings(registry: ModelRegistry, config: StudyConfig) -> list[str]:
    """Sampling settings a provider will not take, reported before any call is made."""
    warnings = []
    for role in config.roles():
        spec = config.model_spec(role.use.model)
        for setting in registry.unsupported_settings(spec, role.use.sampling):
            warnings.append(
                f"{role.name}: {spec.id} does not take '{setting}'; it will not be sent"
            )
    return warnings


async def run_study(
    config: StudyConfig,
    out_dir: Path,
    *,
    retry_failed: bool = False,
    progress: ProgressHook | None = None,
    warn: Callable[[str], None] | None = None,
    max_failures: int | None = None,
) -> StudySummary:
    started = time.perf_counter()
    study = build_study(config)
    registry = ModelRegistry()
    for role in config.roles():
        registry.check_credentials(config.model_spec(role.use.model))
    warnings = study_warnings(registry, config)
    for warning in warnings:
        if warn is not None:
            warn(warning)
    out_dir.mkdir(parents=True, exist_ok=True)
    lock = RunFolderLock(out_dir).acquire()  # one run per folder, as for experiment runs
    _write_provenance(out_dir, config, study)
    store = Store(out_dir / STORE_FILE)
    caller = CachingCaller(store)
    try:
        stored = store.study_item_statuses(config.study)
        done = {k for k, (status, _) in stored.items() if status == "ok" or not retry_failed}
        pending_count = sum(item.key() not in done for item in study.items())
        pending = (item for item in study.items() if item.key() not in done)
        async with registry:
            outcome = await _run_pending(
                study,
                pending,
                pending_count,
                ModelPool(config, registry, caller),
                store,
                progress,
                max_failures,
            )
        return _summary(study, store, caller, outcome, warnings, started)
    finally:
        store.close()
        lock.release()


def _summary(
    study: Study[Any, Any],
    store: Store,
    caller: CachingCaller,
    outcome: _Outcome,
    warnings: list[str],
    started: float,
) -> StudySummary:
    config = study.config
    statuses = store.study_item_statuses(config.study)
    counts = {"ok": 0, "failed": 0, "pending": 0}
    failures: dict[str, int] = {}
    for item in study.items():
        status, error = statuses.get(item.key(), ("pending", None))
        counts[status] += 1
        if status == "failed":
            reason = (error or "unknown").split(":")[0]
            failures[reason] = failures.get(reason, 0) + 1
    return StudySummary(
        study=config.study,
        items_total=sum(counts.values()),
        items_ok=counts["ok"],
        items_failed=counts["failed"],
        items_run=outcome.run,
        calls_made=caller.ledger.calls_made,
        calls_cached=caller.ledger.calls_cached,
        tokens_by_role=_usage_dict(store.tokens_by_role()),
        tokens_by_role_this_invocation=_usage_dict(dict(caller.ledger.tokens_by_role)),
        wall_seconds=round(time.perf_counter() - started, 3),
        failures=failures,
        warnings=warnings,
        stopped=outcome.stopped,
        cost=cost_by_role(store.tokens_by_role_and_model(), config.prices),
        cached_token_share=_cached_share(sum(store.tokens_by_role().values(), Usage())),
    )


@dataclass
class _Outcome:
    run: int = 0
    failed: int = 0
    stopped: str | None = None


async def _run_one(study: Study[Any, Any], item: ItemSpec, pool: ModelPool) -> StudyItemRecord:
    context = StudyContext(pool)
    result: dict[str, Any] | None = None
    error: str | None = None
    try:
        result = await study.run_item(item, context)
    except ModelCallError as exc:
        error = f"model_call: {exc}"
    except ItemFailedError as exc:
        error = f"item: {exc}"
    return StudyItemRecord(
        key=item.key(),
        study=study.name,
        spec=item.model_dump(mode="json"),
        status="ok" if error is None else "failed",
        error=error,
        result=result,
        call_keys=tuple(context.call_keys),
    )


async def _run_pending(
    study: Study[Any, Any],
    pending: Iterator[ItemSpec],
    pending_count: int,
    pool: ModelPool,
    store: Store,
    progress: ProgressHook | None,
    max_failures: int | None,
) -> _Outcome:
    """Workers pull items from the lazy design; with ``max_failures`` they stop taking new
    items once that many have failed in this invocation (finished items stay stored)."""
    outcome = _Outcome()
    if pending_count == 0:
        return outcome

    async def worker() -> None:
        for item in pending:
            if outcome.stopped is not None:
                return
            record = await _run_one(study, item, pool)
            store.put_study_item(record)
            outcome.run += 1
            if record.status == "failed":
                outcome.failed += 1
                if max_failures is not None and outcome.failed >= max_failures:
                    outcome.stopped = (
                        f"stopped after {outcome.failed} failed items (--max-failures); "
                        f"last error: {record.error}"
                    )
            if progress:
                progress("items", outcome.run, pending_count)

    await asyncio.gather(*(worker() for _ in range(study.config.concurrency)))
    return outcome
