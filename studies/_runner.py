"""Runs a study into a run folder with the judge-panel runner's guarantees.

Items already in the store are skipped (failed ones too, unless asked to retry) and every
model call is answered from the store when it was made before, so the same command again
costs nothing and a killed run finishes only what is left. The design is streamed to a pool
of ``concurrency`` workers; it is never held as a list.

In batch mode every pending item runs at once and a batched model's calls wait in its
``BatchMode`` collector, so each step of every item (a B-score chat's turn k, an audit's
follow-up) goes out as one provider batch, the next step once its answers are in.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairpanel.agents import ModelCallError
from fairpanel.judging.engine import (
    BatchMode,
    ModelRole,
    ProgressHook,
    RunSession,
    RunTotals,
    is_batched,
    open_run_session,
    run_metered,
)
from fairpanel.judging.store import StudyItemRecord, environment
from fairpanel.studies._base import ItemFailedError, ItemSpec, Study, StudyConfig
from fairpanel.studies._context import ModelPool, StudyContext
from fairpanel.studies._registry import build_study

__all__ = ["StudySummary", "run_study"]


@dataclass(kw_only=True)
class StudySummary(RunTotals):
    """What ``summary.json`` holds for a study run: its items, then the totals every run has."""

    study: str
    items_total: int
    items_ok: int
    items_failed: int
    items_run: int
    batches: dict[str, int] = field(default_factory=dict)
    """Batches of batch mode by their last state (absent when nothing was batched)."""

    def as_dict(self) -> dict[str, Any]:
        data = super().as_dict()
        if not data["batches"]:
            data.pop("batches")
        else:
            data["batches"] = data.pop("batches")  # after the totals, as in a panel run
        return data


_PACKAGES = ("fairpanel", "openai", "anthropic", "xllamacpp", "pydantic", "scipy")


def _manifest(config: StudyConfig, study: Study[Any, Any]) -> dict[str, Any]:
    return {
        "study": config.study,
        **environment(_PACKAGES),
        "models": {role.name: config.model_spec(role.use.model).id for role in config.roles()},
        "seed": config.seed,
        **study.manifest(),
    }


def _roles(config: StudyConfig) -> list[ModelRole]:
    return [
        (role.name, config.model_spec(role.use.model), role.use.sampling) for role in config.roles()
    ]


async def run_study(
    config: StudyConfig,
    out_dir: Path,
    *,
    retry_failed: bool = False,
    progress: ProgressHook | None = None,
    warn: Callable[[str], None] | None = None,
    max_failures: int | None = None,
) -> StudySummary:
    """Run every pending item of the study into ``out_dir`` (its store and provenance files);
    ``fairpanel.run`` calls this and writes the summary, results and report."""
    started = time.perf_counter()
    study = build_study(config)
    async with open_run_session(
        out_dir,
        _roles(config),
        resolved=config.model_dump(mode="json"),
        manifest=_manifest(config, study),
        warn=warn,
        started=started,
    ) as session:
        stored = session.store.study_item_statuses(config.study)
        done = {k for k, (status, _) in stored.items() if status == "ok" or not retry_failed}
        pending_count = sum(item.key() not in done for item in study.items())
        pending = (item for item in study.items() if item.key() not in done)
        batch_mode = BatchMode(config, session.registry, session.store)
        pool = ModelPool(config, session.registry, session.caller, batch_mode)
        batched = pending_count > 0 and any(
            is_batched(config, config.model_spec(role.use.model)) for role in config.roles()
        )
        try:
            if batched:  # resume the open batches before any item asks again
                for role in config.roles():
                    await batch_mode.client(config.model_spec(role.use.model))
            outcome = await run_metered(
                pending,
                pending_count,
                session,
                config.prices,
                unit="items",
                concurrency=pending_count if batched else config.concurrency,
                work=lambda item: _run_one(study, item, pool),
                save=session.store.put_study_item,
                progress=progress,
                max_failures=max_failures,
            )
        finally:
            await batch_mode.aclose()
        session.report_replicas(warn)
        return _summary(study, session, outcome.run, outcome.stopped)


def _summary(
    study: Study[Any, Any], session: RunSession, run: int, stopped: str | None
) -> StudySummary:
    config = study.config
    statuses = session.store.study_item_statuses(config.study)
    counts = {"ok": 0, "failed": 0, "pending": 0}
    failures: dict[str, int] = {}
    for item in study.items():
        status, error = statuses.get(item.key(), ("pending", None))
        counts[status] += 1
        if status == "failed":
            reason = (error or "unknown").split(":")[0]
            failures[reason] = failures.get(reason, 0) + 1
    return StudySummary(
        **vars(session.totals(config.prices, failures=failures, stopped=stopped)),
        study=config.study,
        items_total=sum(counts.values()),
        items_ok=counts["ok"],
        items_failed=counts["failed"],
        items_run=run,
        batches=session.store.batches.summary(),
    )


async def _run_one(study: Study[Any, Any], item: ItemSpec, pool: ModelPool) -> StudyItemRecord:
    context = StudyContext(pool, route_key=item.key())
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
