"""Plan a study before paying: items and calls (exact), tokens, cost and time, without a call.

Calls that happen only after some answers (``PlannedCall.conditional``) are counted as if
they all happen, so calls, tokens and cost are upper bounds; prompt tokens are estimated at
four characters a token and every answer is assumed to use its full ``max_tokens``. When a
model can be batched, the same plan in batch mode: its batch price, and its batches one after
another (the deepest ``PlannedCall.step`` plus one) times the slowest turnaround.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from fairpanel.agents import Usage
from fairpanel.judging.engine import batch_plan_of, cost_of
from fairpanel.studies._base import StudyConfig
from fairpanel.studies._registry import build_study

__all__ = ["StudyEstimate", "estimate_study"]

_CHARS_PER_TOKEN = 4
_DEFAULT_ANSWER_TOKENS = 300


@dataclass
class StudyEstimate:
    study: str
    items: int
    calls: dict[str, int]
    conditional_calls: dict[str, int]
    tokens_by_model: dict[str, Usage] = field(default_factory=dict)
    cost: dict[str, Any] = field(default_factory=dict)
    wall_seconds: float | None = None
    notes: list[str] = field(default_factory=list)
    batch: dict[str, Any] | None = None
    """The same plan in batch mode, when any of its models has a batch API."""

    def as_dict(self) -> dict[str, Any]:
        return {
            "study": self.study,
            "items": self.items,
            "calls": self.calls,
            "conditional_calls": self.conditional_calls,
            "calls_total": sum(self.calls.values()),
            "tokens_by_model": {m: u.model_dump() for m, u in self.tokens_by_model.items()},
            "cost": self.cost,
            "wall_seconds": self.wall_seconds,
            "notes": self.notes,
            **({"batch": self.batch} if self.batch is not None else {}),
        }


def estimate_study(config: StudyConfig) -> StudyEstimate:
    """Counts, tokens, cost and time of ``config``'s design; reads only local data files."""
    study = build_study(config)
    calls: Counter[str] = Counter()
    conditional: Counter[str] = Counter()
    calls_by_model: Counter[str] = Counter()
    tokens: dict[str, Usage] = {}
    items = steps = 0
    for item in study.items():
        items += 1
        for call in study.planned_calls(item):
            steps = max(steps, call.step + 1)
            calls[call.role] += 1
            if call.conditional:
                conditional[call.role] += 1
            model_id = call.model.model_id
            calls_by_model[model_id] += 1
            used = Usage(
                prompt_tokens=math.ceil(call.prompt_chars / _CHARS_PER_TOKEN),
                completion_tokens=call.model.sampling.max_tokens or _DEFAULT_ANSWER_TOKENS,
            )
            tokens[model_id] = tokens.get(model_id, Usage()) + used
    result = StudyEstimate(
        study=config.study,
        items=items,
        calls=dict(sorted(calls.items())),
        conditional_calls=dict(sorted(conditional.items())),
        tokens_by_model=tokens,
        cost=cost_of(tokens, config.prices),
    )
    result.notes.append(
        "conditional calls (made only after some answers) are counted as if all happen; tokens "
        "assume every answer uses its full max_tokens (4 characters a token)"
    )
    result.wall_seconds, note = _wall_time(config, calls_by_model, tokens)
    result.notes.append(note)
    models = [config.model_spec(role.use.model) for role in config.roles()]
    result.batch = batch_plan_of(models, config.prices, tokens, steps)
    if result.batch is not None:
        result.notes.append(
            "batch mode: the batch price, and the batches one after another times "
            "batch.expected_turnaround_s (a provider may take up to 24 h per batch)"
        )
    return result


def _wall_time(
    config: StudyConfig, calls: Counter[str], tokens: dict[str, Usage]
) -> tuple[float | None, str]:
    """The time the slowest configured limit allows, if every model has a limit."""
    bounds = []
    for model_id, usage in tokens.items():
        spec = next((s for s in config.models.values() if s.id == model_id), None)
        rpm = spec.limits.requests_per_minute if spec is not None else None
        tpm = spec.limits.tokens_per_minute if spec is not None else None
        if rpm is None and tpm is None:
            return None, f"no rate limit configured for {model_id}: time depends on its latency"
        if rpm:
            bounds.append(60.0 * calls[model_id] / rpm)
        if tpm:
            bounds.append(60.0 * (usage.prompt_tokens + usage.completion_tokens) / tpm)
    if not bounds:
        return None, "no model calls"
    return round(max(bounds), 1), "wall time at the configured rate limits (a lower bound)"
