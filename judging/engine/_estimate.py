"""Plan before paying: trials, calls, tokens, cost and time of an experiment, without a call.

Trial and call counts are exact (the design is enumerated; re-asks excluded). Tokens are
estimated from the prompt text fairpanel will send (4 characters a token) with every answer
assumed to use its full ``max_tokens``, so token and cost figures are upper-leaning
estimates. Cost uses the experiment's ``prices`` table; time uses the configured endpoint
limits, when there are any.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fairpanel.agents import ModelSpec, Usage, find_provider
from fairpanel.judging.engine._design import design_of
from fairpanel.judging.engine._trial_tokens import Tally, TrialCounts, tokens
from fairpanel.judging.experiment._config import ExperimentConfig, Price
from fairpanel.judging.protocol._prompts import RESPONDER_SYSTEM
from fairpanel.judging.store import cost_of

__all__ = ["Estimate", "estimate"]

_DEFAULT_RESPONSE_TOKENS = 300


@dataclass
class Estimate:
    trials: dict[str, int]
    trials_total: int
    calls: dict[str, int]
    tokens_by_model: dict[str, Usage] = field(default_factory=dict)
    cost: dict[str, Any] = field(default_factory=dict)
    wall_seconds: float | None = None
    notes: list[str] = field(default_factory=list)
    batch: dict[str, Any] | None = None
    """The same plan in batch mode (``batch_plan``), when any of its models has a batch API."""
    panels: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per panel of an experiment that compares panels: its trials, judge calls, tokens and
    cost (the responder's calls are shared by every panel and counted once, above)."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "trials": self.trials,
            "trials_total": self.trials_total,
            "calls": self.calls,
            "calls_total": sum(self.calls.values()),
            "tokens_by_model": {m: u.model_dump() for m, u in self.tokens_by_model.items()},
            "cost": self.cost,
            "wall_seconds": self.wall_seconds,
            "notes": self.notes,
            **({"batch": self.batch} if self.batch is not None else {}),
            **({"panels": self.panels} if self.panels else {}),
        }


def estimate(config: ExperimentConfig) -> Estimate:
    """Counts, tokens, cost and time for ``config``; reads only local data files."""
    design = design_of(config)
    personas = {name: tokens(persona.system_message) for name, persona in design.personas.items()}
    tasks = {s.id: s.prompt for s in design.scenarios}
    responder = config.responder_spec
    response_tokens = (
        responder.sampling.merged(config.responder.sampling).max_tokens or _DEFAULT_RESPONSE_TOKENS
    )
    counts = TrialCounts(personas, response_tokens)
    scenarios_used: set[str] = set()
    for spec in design.trials():
        scenarios_used.add(spec.scenario_id)
        counts.add(spec, tasks[spec.scenario_id])
    tally = Tally()
    trials: Counter[str] = Counter()
    panels: dict[str, tuple[Counter[str], Tally]] = {}
    counts.into(tally, trials, panels)
    steps = counts.steps
    # Frozen candidates (responses_from) are read from an earlier run: no responder calls.
    responded = sorted(scenarios_used) if config.responses_from is None else []
    for scenario_id in responded:
        first = tokens(RESPONDER_SYSTEM + tasks[scenario_id]) + 20
        tally.add("responder", responder.id, first, response_tokens)
        tally.add("responder", responder.id, first + response_tokens + 60, response_tokens)
    steps += 2 if responded else 0  # the two response steps come first
    result = Estimate(
        trials=dict(sorted(trials.items())),
        trials_total=sum(trials.values()),
        calls=dict(sorted(tally.calls.items())),
        tokens_by_model=tally.tokens,
        cost=cost_of(tally.tokens, config.prices),
        panels={
            name: {
                "trials_total": sum(counts.values()),
                "calls_total": sum(panel_tally.calls.values()),
                "tokens_by_model": {m: u.model_dump() for m, u in panel_tally.tokens.items()},
                "cost": cost_of(panel_tally.tokens, config.prices),
            }
            for name, (counts, panel_tally) in panels.items()
        },
    )
    if config.responses_from is not None:
        result.notes.append(f"no responder calls: the responses come from {config.responses_from}")
    result.notes.append(
        "calls exclude re-asks after invalid answers; tokens assume every answer uses its full "
        "max_tokens (4 characters a token)"
    )
    result.wall_seconds, note = _wall_time(config, tally)
    result.notes.append(note)
    result.batch = batch_plan(config, tally.tokens, steps)
    if result.batch is not None:
        result.notes.append(
            "batch mode: the batch price, and the batches one after another times "
            "batch.expected_turnaround_s (a provider may take up to 24 h per batch)"
        )
    return result


def batch_plan(
    config: ExperimentConfig, tokens: dict[str, Usage], steps: int
) -> dict[str, Any] | None:
    """Cost and time with every model that has a batch API in batch mode (unless its own
    ``execution`` keeps it online): the batch price, and the batches one after another times
    the slowest model's ``batch.expected_turnaround_s``."""
    specs = [config.model_spec(ref) for ref in _references(config)]
    return batch_plan_of(specs, config.prices, tokens, steps)


def batch_plan_of(
    models: Iterable[ModelSpec], prices: dict[str, Price], tokens: dict[str, Usage], steps: int
) -> dict[str, Any] | None:
    """``batch_plan`` for any run (an experiment's or a study's) calling ``models``, whose
    ``steps`` batches go one after another; None when no model has a batch API."""
    specs = {spec.id: spec for spec in models}
    batched = {
        model_id: spec
        for model_id, spec in specs.items()
        if spec.execution != "online" and find_provider(spec.provider).batch is not None
    }
    if not batched:
        return None
    turnaround = max(spec.batch.expected_turnaround_s for spec in batched.values())
    return {
        "models": sorted(batched),
        "cost": cost_of(tokens, prices, frozenset(batched)),
        "batches_in_sequence": steps,
        "wall_seconds": round(steps * turnaround, 1),
    }


def _references(config: ExperimentConfig) -> set[str]:
    found = {config.responder.model} if config.responses_from is None else set()
    for _name, panel in config.panel_items():
        found.add(panel.model)
        found.update(str(seat.model) for seat in panel.seats())
    return found


def _summed_limit(limits: list[Any], name: str) -> float | None:
    """One per-minute limit over a model's endpoints: their sum when every endpoint sets it
    (replicas take the load together), else None (an unlimited replica bounds nothing)."""
    values: list[float | None] = [getattr(one, name, None) for one in limits]
    present = [float(v) for v in values if v]
    return sum(present) if values and len(present) == len(values) else None


def _wall_time(config: ExperimentConfig, tally: Tally) -> tuple[float | None, str]:
    """The time the slowest configured limit allows, if every model has a limit; a model on
    replicas is limited by the sum of its replicas' limits."""
    bounds = []
    for model_id, usage in tally.tokens.items():
        spec = next((s for s in config.models.values() if s.id == model_id), None)
        if spec is None:
            limits: list[Any] = []
        else:
            limits = [one.limits for one in spec.replica_specs()] or [spec.limits]
        rpm = _summed_limit(limits, "requests_per_minute")
        tpm = _summed_limit(limits, "tokens_per_minute")
        if rpm is None and tpm is None:
            return None, f"no rate limit configured for {model_id}: time depends on its latency"
        if rpm:
            bounds.append(60.0 * tally.calls_by_model[model_id] / rpm)
        if tpm:
            bounds.append(60.0 * (usage.prompt_tokens + usage.completion_tokens) / tpm)
    if not bounds:
        return None, "no model calls"
    return round(max(bounds), 1), "wall time at the configured rate limits (a lower bound)"
