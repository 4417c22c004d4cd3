"""Runs an experiment into a run folder: responses first, then every pending trial.

Trials already in the store are skipped (failed ones too, unless asked to retry), and every
model call is answered from the store when it was made before, so running the same command
again costs nothing and a killed run finishes only what is left.
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

from fairpanel.agents import (
    CachingCaller,
    Message,
    ModelCallError,
    ModelClient,
    ModelRegistry,
    ModelRequest,
    ModelSpec,
    Sampling,
    Usage,
)
from fairpanel.judging.engine._cost import cost_by_role
from fairpanel.judging.engine._failures import failure_reason, responder_failed
from fairpanel.judging.engine._lock import RunFolderLock
from fairpanel.judging.engine._store import STORE_FILE, Store
from fairpanel.judging.experiment._config import ExperimentConfig, selected_bases_from
from fairpanel.judging.experiment._design import TrialSpec, iter_trials
from fairpanel.judging.protocol._prompts import responder_messages, rewrite_messages
from fairpanel.judging.protocol._trial import run_trial
from fairpanel.personas import IdentitySet, JudgePersona, load_identities, load_judge_personas
from fairpanel.scenarios import DerivedScenario

__all__ = ["Design", "RunSummary", "design_of", "run_experiment"]

ProgressHook = Callable[[str, int, int], None]
"""Called as (stage, done, total) while a run advances."""


@dataclass
class RunSummary:
    trials_total: int
    trials_ok: int
    trials_failed: int
    trials_run: int
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


@dataclass
class Design:
    """What an experiment needs before any call: scenarios, identities, personas, trials."""

    config: ExperimentConfig
    scenarios: list[DerivedScenario]
    identities: IdentitySet
    personas: dict[str, JudgePersona]

    def trials(self) -> Iterator[TrialSpec]:
        return iter_trials(self.config, self.scenarios, self.identities)


def design_of(config: ExperimentConfig) -> Design:
    bases = selected_bases_from(config, Path.cwd())
    scenarios = []
    for base in bases:
        derived = base.derived()
        scenarios.extend(derived[: config.scenarios.derived_per_base or len(derived)])
    identities = load_identities(Path(config.identities.file) if config.identities.file else None)
    personas_path = Path(config.personas_file) if config.personas_file else None
    personas = {p.name: p for p in load_judge_personas(personas_path)}
    return Design(config=config, scenarios=scenarios, identities=identities, personas=personas)


def _cached_share(usage: Usage) -> float:
    return round(usage.cached_tokens / usage.prompt_tokens, 4) if usage.prompt_tokens else 0.0


def _usage_dict(usage: dict[str, Usage]) -> dict[str, dict[str, float]]:
    """Tokens by role as the servers reported them, with the share of prompt tokens that the
    provider served from its prompt cache (what the shared-prefix prompt layout is for)."""
    return {
        role: {**value.model_dump(), "cached_share": _cached_share(value)}
        for role, value in sorted(usage.items())
    }


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def _write_provenance(out_dir: Path, config: ExperimentConfig) -> None:
    """The resolved config and what produced the run, for anyone re-reading it later."""
    (out_dir / "experiment.resolved.json").write_text(
        json.dumps(config.model_dump(mode="json"), indent=2) + "\n", encoding="utf-8"
    )
    packages = ("fairpanel", "autogen-agentchat", "autogen-ext", "openai", "xllamacpp", "pydantic")
    manifest = {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": {name: _version(name) for name in packages},
        "models": {
            "responder": config.responder_spec.id,
            "judges": {
                seat.persona: config.model_spec(str(seat.model)).id for seat in config.panel.seats()
            },
        },
        "seed": config.seed,
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def _roles(config: ExperimentConfig) -> list[tuple[str, ModelSpec, Sampling | None]]:
    """Every (role, model, sampling) the experiment will call."""
    roles: list[tuple[str, ModelSpec, Sampling | None]] = [
        ("responder", config.responder_spec, config.responder.sampling)
    ]
    for seat in config.panel.seats():
        roles.append((f"judge {seat.persona}", config.model_spec(str(seat.model)), seat.sampling))
    if config.panel.consensus == "moderator":
        roles.append(("moderator", config.panel_spec, config.panel.sampling))
    return roles


def _unsupported_settings(registry: ModelRegistry, config: ExperimentConfig) -> list[str]:
    """Sampling settings a provider will not take, reported before any call is made."""
    warnings = []
    for role, spec, sampling in _roles(config):
        for setting in registry.unsupported_settings(spec, sampling):
            warnings.append(f"{role}: {spec.id} does not take '{setting}'; it will not be sent")
    return warnings


async def _responses_for(
    scenario: DerivedScenario,
    config: ExperimentConfig,
    client: ModelClient,
    caller: CachingCaller,
    store: Store,
) -> dict[int, str]:
    """Response 1, then response 2 written from it with the same steps (MALIBU 3.2)."""
    spec = config.responder_spec
    sampling = spec.sampling.merged(config.responder.sampling)
    texts: dict[int, str] = {}
    for index in (1, 2):
        pairs = (
            responder_messages(scenario.prompt)
            if index == 1
            else rewrite_messages(scenario.prompt, texts[1])
        )
        request = ModelRequest(
            model=client.model_id,
            endpoint=client.endpoint,
            messages=tuple(Message(role=role, content=text) for role, text in pairs),
            sampling=sampling,
        )
        reply = await caller.call(client, request, "responder")
        texts[index] = reply.text.strip()
        store.put_response(scenario.id, index, spec.id, texts[index], request.key())
    return texts


async def run_experiment(
    config: ExperimentConfig,
    out_dir: Path,
    *,
    retry_failed: bool = False,
    progress: ProgressHook | None = None,
    warn: Callable[[str], None] | None = None,
    max_failures: int | None = None,
) -> RunSummary:
    started = time.perf_counter()
    design = design_of(config)
    registry = ModelRegistry()
    for _role, model, _sampling in _roles(config):
        registry.check_credentials(model)
    warnings = _unsupported_settings(registry, config)
    for warning in warnings:
        if warn is not None:
            warn(warning)
    out_dir.mkdir(parents=True, exist_ok=True)
    lock = RunFolderLock(out_dir).acquire()  # a second run on this folder is refused here
    _write_provenance(out_dir, config)
    store = Store(out_dir / STORE_FILE)
    caller = CachingCaller(store)
    try:
        finished = store.finished_keys(include_failed=not retry_failed)
        total = pending_count = 0
        for spec in design.trials():
            total += 1
            pending_count += spec.key() not in finished
        pending = (spec for spec in design.trials() if spec.key() not in finished)
        async with registry:
            outcome = await _run_pending(
                design, pending, pending_count, registry, caller, store, progress, max_failures
            )
        statuses = {key: (status, error) for key, _, status, error, _ in store.iter_trials()}
        counts: dict[str, int] = {"ok": 0, "failed": 0}
        failures: dict[str, int] = {}
        for spec in design.trials():
            status, error = statuses.get(spec.key(), ("pending", None))
            counts[status] = counts.get(status, 0) + 1
            if status == "failed":
                reason = failure_reason(error)
                failures[reason] = failures.get(reason, 0) + 1
        return RunSummary(
            trials_total=total,
            trials_ok=counts["ok"],
            trials_failed=counts["failed"],
            trials_run=outcome.run,
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
    finally:
        store.close()
        lock.release()


@dataclass
class _Outcome:
    run: int = 0
    failed: int = 0
    stopped: str | None = None


async def _run_pending(
    design: Design,
    pending: Iterator[TrialSpec],
    pending_count: int,
    registry: ModelRegistry,
    caller: CachingCaller,
    store: Store,
    progress: ProgressHook | None,
    max_failures: int | None,
) -> _Outcome:
    """Run pending trials with ``concurrency`` workers pulling from the lazy design.

    Responses are written the first time a trial needs its scenario. With ``max_failures``
    the run stops taking new trials once that many have failed in this invocation.
    """
    config = design.config
    outcome = _Outcome()
    if pending_count == 0:
        return outcome
    responder = await registry.client(config.responder_spec)
    references = {config.panel.model, *(str(seat.model) for seat in config.panel.seats())}
    judge_clients = {ref: await registry.client(config.model_spec(ref)) for ref in references}
    scenarios = {s.id: s for s in design.scenarios}
    responses: dict[str, asyncio.Task[dict[int, str]]] = {}

    def responses_of(scenario_id: str) -> asyncio.Task[dict[int, str]]:
        if scenario_id not in responses:
            responses[scenario_id] = asyncio.create_task(
                _responses_for(scenarios[scenario_id], config, responder, caller, store)
            )
        return responses[scenario_id]

    async def worker() -> None:
        for spec in pending:
            if outcome.stopped is not None:
                return
            try:
                responses_shown = await responses_of(spec.scenario_id)
            except ModelCallError as exc:
                record = responder_failed(spec, exc)
            else:
                record = await run_trial(
                    spec,
                    task=scenarios[spec.scenario_id].prompt,
                    responses=responses_shown,
                    personas=design.personas,
                    clients=judge_clients,
                    caller=caller,
                )
            store.put_trial(record)
            outcome.run += 1
            if record.status == "failed":
                outcome.failed += 1
                if max_failures is not None and outcome.failed >= max_failures:
                    outcome.stopped = (
                        f"stopped after {outcome.failed} failed trials (--max-failures); "
                        f"last error: {record.error}"
                    )
            if progress:
                progress("trials", outcome.run, pending_count)

    await asyncio.gather(*(worker() for _ in range(config.concurrency)))
    return outcome
