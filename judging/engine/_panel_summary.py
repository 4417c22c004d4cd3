"""summary.json's per-panel block: each panel's trials, tokens and cost.

Every panel of an experiment that compares panels judges the same candidates, which the
responder wrote once, so the responder's tokens and cost are shared: each panel carries an
equal share of them, and its own judges' calls (roles named "<panel> judge:..." and
"<panel> moderator..."). A judgment is one finished trial, so cost per 1,000 judgments
compares panels at the price of what they were asked to do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["panel_summaries"]

RESPONDER = "responder"


def _own(role: str, panel: str) -> bool:
    return role.startswith(f"{panel} judge") or role.startswith(f"{panel} moderator")


def _share(value: float, panels: int) -> float:
    return value / panels if panels else 0.0


def panel_summaries(
    panels: Sequence[str],
    counts: Mapping[str, Mapping[str, int]],
    failures: Mapping[str, Mapping[str, int]],
    tokens_by_role: Mapping[str, Mapping[str, float]],
    cost: Mapping[str, Any],
) -> dict[str, dict[str, Any]]:
    """Per panel: trial counts by status, failures by reason, tokens by role (its own roles and
    its share of the responder's) and cost (``total_usd`` with the responder's share, by role,
    and the models the prices table lacked)."""
    by_role: Mapping[str, float] = cost.get("by_role") or {}
    responder_tokens = tokens_by_role.get(RESPONDER, {})
    summaries: dict[str, dict[str, Any]] = {}
    for panel in panels:
        roles = {role: dict(usage) for role, usage in tokens_by_role.items() if _own(role, panel)}
        roles[f"{RESPONDER} (shared)"] = {
            key: _share(float(value), len(panels)) for key, value in responder_tokens.items()
        }
        own_cost = {role: usd for role, usd in by_role.items() if _own(role, panel)}
        responder_cost = _share(float(by_role.get(RESPONDER, 0.0)), len(panels))
        panel_counts = counts.get(panel, {})
        summaries[panel] = {
            "trials_total": sum(panel_counts.values()),
            "trials_ok": int(panel_counts.get("ok", 0)),
            "trials_failed": int(panel_counts.get("failed", 0)),
            "failures": dict(failures.get(panel, {})),
            "tokens_by_role": roles,
            "cost": {
                "total_usd": round(sum(own_cost.values()) + responder_cost, 6),
                "by_role": {**own_cost, f"{RESPONDER} (shared)": round(responder_cost, 6)},
                "unpriced_models": list(cost.get("unpriced_models") or []),
            },
        }
    return summaries
