"""Calls and tokens of a run, as ``summary.json`` reports them for panels and studies alike.

Tokens come twice: from the store (everything the run folder ever paid for) and from the
caller's ledger (what this invocation did, cached answers included), with the share of prompt
tokens each provider served from its prompt cache. ``RunTotals`` is the part of
``summary.json`` every run writes after its own counts; the panel runner's and the study
runner's summaries subclass it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from fairpanel.agents import CachingCaller, Usage
from fairpanel.judging.experiment._config import Price
from fairpanel.judging.store import Store, cost_by_role

__all__ = ["RunTotals", "cached_share", "run_totals", "usage_by_role"]


def cached_share(usage: Usage) -> float:
    """The share of prompt tokens served from the provider's prompt cache."""
    return round(usage.cached_tokens / usage.prompt_tokens, 4) if usage.prompt_tokens else 0.0


def usage_by_role(usage: dict[str, Usage]) -> dict[str, dict[str, float]]:
    """Tokens by role as the servers reported them, with the share of prompt tokens that the
    provider served from its prompt cache (what the shared-prefix prompt layout is for)."""
    return {
        role: {**value.model_dump(), "cached_share": cached_share(value)}
        for role, value in sorted(usage.items())
    }


@dataclass(kw_only=True)
class RunTotals:
    """What every run summary carries beside its own counts: calls, tokens, wall time,
    failures by reason, warnings, why the run stopped early (if it did), cost, and the
    calls, failures and latency of each replica."""

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
    replicas: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    """Per model, per replica that answered or failed: calls, failed attempts and latency,
    over every invocation on the folder (``Store.replicas.summary``)."""

    def as_dict(self) -> dict[str, Any]:
        """``summary.json``: a subclass's own fields (its counts) first, then these totals."""
        data = self.__dict__.copy()
        totals = {name.name: data.pop(name.name) for name in fields(RunTotals)}
        return {**data, **totals}


def run_totals(
    store: Store,
    caller: CachingCaller,
    prices: dict[str, Price],
    *,
    wall_seconds: float,
    failures: dict[str, int],
    warnings: list[str],
    stopped: str | None,
) -> RunTotals:
    """Calls of this invocation, tokens of the folder and of this invocation, and their cost."""
    stored = store.tokens_by_role()
    return RunTotals(
        calls_made=caller.ledger.calls_made,
        calls_cached=caller.ledger.calls_cached,
        tokens_by_role=usage_by_role(stored),
        tokens_by_role_this_invocation=usage_by_role(dict(caller.ledger.tokens_by_role)),
        wall_seconds=wall_seconds,
        failures=failures,
        warnings=warnings,
        stopped=stopped,
        cost=cost_by_role(
            store.tokens_by_role_and_model(batched=False),
            prices,
            store.tokens_by_role_and_model(batched=True),
        ),
        cached_token_share=cached_share(sum(stored.values(), Usage())),
        replicas=store.replicas.summary(),
    )
