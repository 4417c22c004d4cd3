"""Tables the run, report and estimate commands print: the run summary, the plan, and a
study's result tables (the panel's are in ``_tables``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from fairpanel import studies
from fairpanel.judging import engine

__all__ = ["plan_table", "render_study_tables", "replica_table", "summary_table"]


def summary_table(summary: engine.RunSummary | studies.StudySummary) -> Table:
    """What a run did: units, calls, time (and tokens from the cache, cost when priced)."""
    if isinstance(summary, studies.StudySummary):
        table = Table(title=f"Run summary ({summary.study})", show_header=False)
        unit = "items"
    else:
        table = Table(title="Run summary", show_header=False)
        unit = "trials"
    for key in (
        f"{unit}_total",
        f"{unit}_ok",
        f"{unit}_failed",
        f"{unit}_run",
        "calls_made",
        "calls_cached",
        "wall_seconds",
    ):
        table.add_row(key, str(getattr(summary, key)))
    if isinstance(summary, engine.RunSummary):
        table.add_row("cached_token_share", f"{summary.cached_token_share:.1%}")
    if summary.cost.get("total_usd") or summary.cost.get("unpriced_models"):
        table.add_row("cost_usd", str(summary.cost["total_usd"]))
    for name, panel in (getattr(summary, "panels", None) or {}).items():
        usd = panel["cost"]["total_usd"]
        table.add_row(
            f"panel {name}",
            f"{panel['trials_ok']}/{panel['trials_total']} trials ok"
            + (f", ${usd:,.4f}" if usd else ""),
        )
    return table


_LATENCY = ("mean", "p50", "p95")


def replica_table(replicas: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> Table | None:
    """Per replica of each model served by several (``summary.json``'s ``replicas``): calls
    answered, failed attempts and latency; None when every model has one server, which has
    nothing to compare."""
    shared = {model: found for model, found in replicas.items() if len(found) > 1}
    if not shared:
        return None
    table = Table(title="Replicas (every run on this folder)")
    for column in ("replica", "calls", "failed", "latency s (mean/p50/p95)"):
        table.add_column(column, justify="left" if column == "replica" else "right")
    for model, found in shared.items():
        if len(shared) > 1:
            table.add_row(f"[bold]{model}[/]", "", "", "")
        for replica, numbers in found.items():
            latency = numbers.get("latency_s")
            table.add_row(
                replica,
                f"{numbers['calls']:,}",
                f"{numbers['failures']:,}",
                "-" if not latency else " / ".join(f"{latency[k]:.2f}" for k in _LATENCY),
            )
    return table


def plan_table(plan: Mapping[str, Any]) -> Table:
    """An estimate (``Estimate.as_dict()`` or ``StudyEstimate.as_dict()``) as a table."""
    if "study" in plan:
        table = Table(title=f"Plan ({plan['study']})", show_header=False)
        table.add_row("items", str(plan["items"]))
        for role, count in plan["calls"].items():
            conditional = plan["conditional_calls"].get(role, 0)
            table.add_row(f"calls {role}", f"{count}" + (" (at most)" if conditional else ""))
    else:
        table = Table(title="Plan", show_header=False)
        for name, count in plan["trials"].items():
            table.add_row(f"trials {name}", str(count))
        table.add_row("trials total", str(plan["trials_total"]))
        for role, count in plan["calls"].items():
            table.add_row(f"calls {role}", str(count))
    table.add_row("calls total", str(plan["calls_total"]))
    for model, usage in plan["tokens_by_model"].items():
        table.add_row(
            f"tokens {model}", f"{usage['prompt_tokens']:,} in / {usage['completion_tokens']:,} out"
        )
    table.add_row("cost", _priced(plan["cost"]))
    for name, panel in (plan.get("panels") or {}).items():
        table.add_row(
            f"panel {name}",
            f"{panel['trials_total']} trials, {panel['calls_total']} judge calls, "
            f"{_priced(panel['cost'])}",
        )
    wall = plan["wall_seconds"]
    table.add_row("wall time", "unknown" if wall is None else f"{wall / 60:,.1f} min")
    batch = plan.get("batch")
    if batch:
        table.add_row("cost in batch mode", _priced(batch["cost"]))
        table.add_row(
            "wall time in batch mode",
            f"{batch['wall_seconds'] / 3600:,.1f} h ({batch['batches_in_sequence']} batches "
            "one after another)",
        )
    return table


def _priced(cost: Mapping[str, Any]) -> str:
    priced = f"${cost['total_usd']:,.2f}"
    if cost["unpriced_models"]:
        priced += f" (no price for {', '.join(cost['unpriced_models'])})"
    return priced


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1e-3 and value != 0 else f"{value:.3f}"
    return str(value)


def render_study_tables(results: Mapping[str, Any]) -> list[Table]:
    """Rich tables from the ``tables`` a study's analysis put in its results."""
    rendered = []
    for spec in results.get("tables", []):
        table = Table(title=spec["title"], caption=spec.get("note"))
        for column in spec["columns"]:
            table.add_column(str(column))
        for row in spec["rows"]:
            table.add_row(*(_cell(value) for value in row))
        rendered.append(table)
    return rendered
