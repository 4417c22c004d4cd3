"""Calls and tokens of a run, as ``summary.json`` reports them for panels and studies alike.

Tokens come twice: from the store (everything the run folder ever paid for) and from the
caller's ledger (what this invocation did, cached answers included), with the share of prompt
tokens each provider served from its prompt cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fairpanel.agents import CachingCaller, Usage
from fairpanel.judging.engine._cost import cost_by_role
from fairpanel.judging.experiment._config import Price
from fairpanel.judging.store import Store

__all__ = ["RunUsage", "cached_share", "run_usage", "usage_by_role"]


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


@dataclass(frozen=True)
class RunUsage:
    """The accounting fields every run summary carries."""

    calls_made: int
    calls_cached: int
    tokens_by_role: dict[str, dict[str, float]]
    tokens_by_role_this_invocation: dict[str, dict[str, float]]
    cost: dict[str, Any]
    cached_token_share: float


def run_usage(store: Store, caller: CachingCaller, prices: dict[str, Price]) -> RunUsage:
    """Calls of this invocation, tokens of the folder and of this invocation, and their cost."""
    stored = store.tokens_by_role()
    return RunUsage(
        calls_made=caller.ledger.calls_made,
        calls_cached=caller.ledger.calls_cached,
        tokens_by_role=usage_by_role(stored),
        tokens_by_role_this_invocation=usage_by_role(dict(caller.ledger.tokens_by_role)),
        cost=cost_by_role(
            store.tokens_by_role_and_model(batched=False),
            prices,
            store.tokens_by_role_and_model(batched=True),
        ),
        cached_token_share=cached_share(sum(stored.values(), Usage())),
    )
