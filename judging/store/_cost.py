"""What tokens cost, from the experiment's price table (USD per million tokens)."""

from __future__ import annotations

from typing import Any

from fairpanel.agents import Usage
from fairpanel.judging.experiment._config import Price

__all__ = ["cost_by_role", "cost_of"]


def _dollars(usage: Usage, price: Price) -> float:
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    cached_rate = price.input if price.cached_input is None else price.cached_input
    return (
        (usage.prompt_tokens - cached) * price.input
        + cached * cached_rate
        + usage.completion_tokens * price.output
    ) / 1_000_000


def cost_of(
    usage_by_model: dict[str, Usage],
    prices: dict[str, Price],
    batched: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """USD for the tokens of each model; models without a price are listed, not guessed.
    Models in ``batched`` are priced with their ``batch_discount`` taken off."""
    total = 0.0
    by_model: dict[str, float] = {}
    unpriced = []
    for model, usage in sorted(usage_by_model.items()):
        price = prices.get(model)
        if price is None:
            if usage.prompt_tokens or usage.completion_tokens:
                unpriced.append(model)
            continue
        dollars = _dollars(usage, price)
        if model in batched:
            dollars *= 1.0 - price.batch_discount
        by_model[model] = round(dollars, 6)
        total += dollars
    return {"total_usd": round(total, 6), "by_model": by_model, "unpriced_models": unpriced}


def cost_by_role(
    usage: dict[tuple[str, str], Usage],
    prices: dict[str, Price],
    batched: dict[tuple[str, str], Usage] | None = None,
) -> dict[str, Any]:
    """USD by role (responder, judge:first, ...) from tokens keyed by (role, model).

    ``batched`` are the tokens of calls a provider batch answered, priced with the model's
    ``batch_discount`` taken off; when there are any, ``batch_usd`` says what they cost and
    ``batch_saved_usd`` what the same tokens would have cost more online.
    """
    roles: dict[str, float] = {}
    unpriced: set[str] = set()
    batch_usd = saved = 0.0
    for (role, model), tokens, discounted in [
        *((k, v, False) for k, v in usage.items()),
        *((k, v, True) for k, v in (batched or {}).items()),
    ]:
        price = prices.get(model)
        if price is None:
            if tokens.prompt_tokens or tokens.completion_tokens:
                unpriced.add(model)
            continue
        dollars = _dollars(tokens, price)
        if discounted:
            saved += dollars * price.batch_discount
            dollars *= 1.0 - price.batch_discount
            batch_usd += dollars
        roles[role] = roles.get(role, 0.0) + dollars
    cost: dict[str, Any] = {
        "total_usd": round(sum(roles.values()), 6),
        "by_role": {role: round(value, 6) for role, value in sorted(roles.items())},
        "unpriced_models": sorted(unpriced),
    }
    if batched:
        cost["batch_usd"] = round(batch_usd, 6)
        cost["batch_saved_usd"] = round(saved, 6)
    return cost
