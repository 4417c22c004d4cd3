"""Runs an experiment into a run folder: responses first, then every pending trial.

Trials already in the store are skipped (failed ones too, unless asked to retry), and every
model call is answered from the store when it was made before, so running the same command
again costs nothing and a killed run finishes only what is left. With ``responses_from`` the
responder is never called: the earlier run's responses are copied into the store first and
every trial reads its candidates from there.

Detached (``detach=True``), a trial whose call waits on a batch still running is deferred: it
is not stored (neither ok nor failed) and counts as pending; the next invocation replays it
from the cache up to that call, which the resumed batch then answers.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairpanel.agents import BATCH_PENDING, ModelCallError
from fairpanel.judging.engine._batch_mode import BatchMode
from fairpanel.judging.engine._design import Design, design_of
from fairpanel.judging.engine._failures import (
    failure_reason,
    manipulation_refused,
    responder_failed,
)
from fairpanel.judging.engine._frozen_responses import FrozenResponses, frozen_responses
from fairpanel.judging.engine._panel_summary import panel_summaries
from fairpanel.judging.engine._pulse import run_metered
from fairpanel.judging.engine._responder import (
    stored_responses,
    writing_sampling,
    written_responses,
)
from fairpanel.judging.engine._rewrites import (
    ManipulationRefusedError,
    Writer,
    manipulated_responses,
    writer_models,
)
from fairpanel.judging.engine._session import ModelRole, RunSession, open_run_session
from fairpanel.judging.engine._usage import RunTotals
from fairpanel.judging.engine._workers import ProgressHook, WorkOutcome
from fairpanel.judging.experiment._config import ExperimentConfig
from fairpanel.judging.experiment._design import TrialSpec
from fairpanel.judging.protocol._records import TrialRecord
from fairpanel.judging.protocol._trial import run_trial
from fairpanel.judging.store import Store, environment, report_similar_responses

__all__ = ["RunSummary", "run_experiment"]


@dataclass(kw_only=True)
class RunSummary(RunTotals):
    """What ``summary.json`` holds for a judge-panel run: its trials, then the totals."""

    trials_total: int
    trials_ok: int
    trials_failed: int
    trials_run: int
    trials_pending: int = 0
    """Trials neither ok nor failed: deferred by a detached run, or never started."""
    pending_batches: dict[str, str] = field(default_factory=dict)
    """A detached run's batches left open: provider id -> state at its one status read."""
    panels: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per panel of an experiment that compares panels (``panel_summaries``); empty for one."""
    batches: dict[str, int] = field(default_factory=dict)
    """Batches of batch mode by their last state (absent when nothing was batched)."""

    def as_dict(self) -> dict[str, Any]:
        data = super().as_dict()
        if not data["trials_pending"]:
            del data["trials_pending"]
        for optional in ("pending_batches", "panels", "batches"):  # after the totals, if any
            value = data.pop(optional)
            if value:
                data[optional] = value
        return data


_DEFERRED = "deferred"
"""A detached run's trial that waits on an open batch: not stored, run again next time."""

_PACKAGES = ("fairpanel", "autogen-agentchat", "autogen-ext", "openai", "xllamacpp", "pydantic")


def _manifest(config: ExperimentConfig, frozen: FrozenResponses | None) -> dict[str, Any]:
    """What produced the run, for anyone re-reading it later."""
    panels = {
        name: {
            "judges": {
                seat.persona: config.model_spec(str(seat.model)).id for seat in panel.seats()
            },
            "answer_format": panel.answer_format,
        }
        for name, panel in config.panel_items()
    }
    first = next(iter(panels.values()))
    manifest: dict[str, Any] = {
        **environment(_PACKAGES),
        "models": {"responder": config.responder_spec.id, "judges": first["judges"]},
        "seed": config.seed,
    }
    if config.multi_panel:
        manifest["panels"] = panels
    if frozen is not None:
        manifest["responses_from"] = frozen.manifest()
    return manifest


def _roles(config: ExperimentConfig) -> list[ModelRole]:
    """Every (role, model, sampling) the experiment will call (not the responder when the
    responses come from an earlier run: its credentials are not needed either)."""
    roles: list[ModelRole] = []
    if config.responses_from is None:
        roles.append(("responder", config.responder_spec, config.responder.sampling))
    for model in writer_models(config):
        roles.append((f"responder {model}", config.model_spec(model), config.responder.sampling))
    for name, panel in config.panel_items():
        prefix = f"{name} " if config.multi_panel else ""
        for seat in panel.seats():
            spec = config.model_spec(str(seat.model))
            roles.append((f"{prefix}judge {seat.persona}", spec, seat.sampling))
        if panel.consensus == "moderator":
            roles.append((f"{prefix}moderator", config.model_spec(panel.model), panel.sampling))
    return roles


async def run_experiment(
    config: ExperimentConfig,
    out_dir: Path,
    *,
    retry_failed: bool = False,
    progress: ProgressHook | None = None,
    warn: Callable[[str], None] | None = None,
    max_failures: int | None = None,
    detach: bool = False,
) -> RunSummary:
    """Run every pending trial of ``config`` into ``out_dir`` (its store and provenance files).

    The run folder's summary, results and report are written by ``fairpanel.run``, which calls
    this; here only the trials are run and counted. ``detach``: see the module docstring.
    """
    started = time.perf_counter()
    design = design_of(config)
    frozen = None
    if config.responses_from is not None:
        frozen = frozen_responses(config, [scenario.id for scenario in design.scenarios])
    async with open_run_session(
        out_dir,
        _roles(config),
        resolved=config.model_dump(mode="json"),
        manifest=_manifest(config, frozen),
        warn=warn,
        started=started,
    ) as session:
        store = session.store
        if frozen is not None:
            frozen.copy_into(store)
        finished = store.finished_keys(include_failed=not retry_failed)
        total = pending_count = 0
        pending_by_panel: dict[str, int] = {}
        for spec in design.trials():
            total += 1
            is_pending = spec.key() not in finished
            pending_count += is_pending
            if spec.panel is not None:
                pending_by_panel[spec.panel] = pending_by_panel.get(spec.panel, 0) + is_pending
        pending = (spec for spec in design.trials() if spec.key() not in finished)
        outcome, pending_batches = await _run_pending(
            design,
            pending,
            pending_count,
            session,
            progress,
            pending_by_panel,
            max_failures,
            detach,
        )
        # A design problem only the responses reveal: the same answer written twice.
        report_similar_responses(store, session.warnings, warn)
        session.report_replicas(warn)
        statuses = {key: (status, error) for key, _, status, error, _ in store.iter_trials()}
        counts: dict[str, int] = {"ok": 0, "failed": 0}
        failures: dict[str, int] = {}
        panel_counts: dict[str, dict[str, int]] = {}
        panel_failures: dict[str, dict[str, int]] = {}
        for spec in design.trials():
            status, error = statuses.get(spec.key(), ("pending", None))
            counts[status] = counts.get(status, 0) + 1
            of_panel = panel_counts.setdefault(spec.panel or "", {})
            of_panel[status] = of_panel.get(status, 0) + 1
            if status == "failed":
                reason = failure_reason(error)
                failures[reason] = failures.get(reason, 0) + 1
                failed = panel_failures.setdefault(spec.panel or "", {})
                failed[reason] = failed.get(reason, 0) + 1
        totals = session.totals(config.prices, failures=failures, stopped=outcome.stopped)
        return RunSummary(
            **vars(totals),
            trials_total=total,
            trials_ok=counts["ok"],
            trials_failed=counts["failed"],
            trials_run=outcome.run,
            trials_pending=counts.get("pending", 0),
            pending_batches=pending_batches,
            panels=panel_summaries(
                [name for name, _ in config.panel_items()] if config.multi_panel else [],
                panel_counts,
                panel_failures,
                totals.tokens_by_role,
                totals.cost,
            ),
            batches=store.batches.summary(),
        )


class _PanelProgress:
    """Beside the run's progress stage, one stage per panel ("trials: <panel>")."""

    def __init__(self, hook: ProgressHook, pending: dict[str, int]) -> None:
        self.hook, self.pending = hook, pending
        self.done = dict.fromkeys(pending, 0)

    def saved(self, record: TrialRecord) -> None:
        panel = record.spec.get("panel")
        if panel in self.done:
            self.done[panel] += 1
            self.hook(f"trials: {panel}", self.done[panel], self.pending[panel])


async def _run_pending(
    design: Design,
    pending: Iterator[TrialSpec],
    pending_count: int,
    session: RunSession,
    progress: ProgressHook | None,
    pending_by_panel: dict[str, int],
    max_failures: int | None,
    detach: bool,
) -> tuple[WorkOutcome, dict[str, str]]:
    """Run pending trials with ``concurrency`` workers pulling from the lazy design.

    Responses are written the first time a trial needs its scenario (or read from the store,
    where ``responses_from`` put them). With ``max_failures`` the run stops taking new trials
    once that many have failed in this invocation. Returns the batches a detached run left
    open beside the outcome (whose ``run`` leaves out the deferred trials).
    """
    config = design.config
    if pending_count == 0:
        return WorkOutcome(), {}
    registry, caller, store = session.registry, session.caller, session.store
    batch_mode = BatchMode(config, registry, store, detached=detach)
    responder = None
    if config.responses_from is None:
        responder = await batch_mode.client(config.responder_spec)
    references = {
        reference
        for _name, panel in config.panel_items()
        for reference in (panel.model, *(str(seat.model) for seat in panel.seats()))
    }
    judge_clients = {ref: await batch_mode.client(config.model_spec(ref)) for ref in references}
    writers: dict[str | None, Writer] = {
        model: (await batch_mode.client(config.model_spec(model)), writing_sampling(config, model))
        for model in writer_models(config)
    }
    if responder is not None:
        writers[None] = (responder, writing_sampling(config, config.responder.model))
    scenarios = {s.id: s for s in design.scenarios}
    responses: dict[str, asyncio.Task[dict[int, str]]] = {}

    def responses_of(scenario_id: str) -> asyncio.Task[dict[int, str]]:
        if scenario_id not in responses:
            scenario = scenarios[scenario_id]
            responses[scenario_id] = asyncio.create_task(
                stored_responses(scenario, config, store)
                if responder is None
                else written_responses(scenario, config, responder, caller, store)
            )
        return responses[scenario_id]

    async def trial(spec: TrialSpec) -> TrialRecord:
        record = await attempt(spec)
        if detach and record.status == "failed" and BATCH_PENDING in (record.error or ""):
            return dataclasses.replace(record, status=_DEFERRED)
        return record

    async def attempt(spec: TrialSpec) -> TrialRecord:
        task = scenarios[spec.scenario_id].prompt
        try:
            responses_shown = await manipulated_responses(
                spec, task, await responses_of(spec.scenario_id), writers=writers, caller=caller
            )
        except ModelCallError as exc:
            return responder_failed(spec, exc)
        except ManipulationRefusedError as exc:
            return manipulation_refused(spec, str(exc))
        return await run_trial(
            spec,
            task=task,
            responses=responses_shown,
            personas=design.personas,
            clients=judge_clients,
            caller=caller,
        )

    stored = _saver(store, progress, pending_by_panel)
    deferred = 0

    def save(record: TrialRecord) -> None:
        nonlocal deferred
        if record.status == _DEFERRED:
            deferred += 1
        else:
            stored(record)

    try:
        # Batched: every pending trial at once, so each round of all of them is one batch.
        outcome = await run_metered(
            pending,
            pending_count,
            session,
            config.prices,
            unit="trials",
            concurrency=pending_count if batch_mode.active else config.concurrency,
            work=trial,
            save=save,
            progress=progress,
            max_failures=max_failures,
        )
    finally:
        await batch_mode.aclose()
    outcome.run -= deferred
    return outcome, batch_mode.pending()


def _saver(
    store: Store, progress: ProgressHook | None, pending_by_panel: dict[str, int]
) -> Callable[[TrialRecord], None]:
    """Store a trial, then advance its panel's progress stage (when there are panels)."""
    if progress is None or not pending_by_panel:
        return store.put_trial
    panels = _PanelProgress(progress, pending_by_panel)

    def save(record: TrialRecord) -> None:
        store.put_trial(record)
        panels.saved(record)

    return save
