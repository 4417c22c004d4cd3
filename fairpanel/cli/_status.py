"""``fairpanel status``: what a run folder still waits on, read without the run side (no model
clients' work, no AutoGen), so a cron job or CI loop can ask every few minutes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from fairpanel.cli._console import bad_input, console
from fairpanel.judging.store import EXIT_PENDING, BadRunFolderError, RunStatus, run_status

__all__ = ["status_command"]


def _duration(seconds: float) -> str:
    hours, rest = divmod(round(seconds), 3600)
    return f"{hours} h {rest // 60:02d} min" if hours else f"{rest // 60} min {rest % 60:02d} s"


def _moment(iso: str) -> str:
    """``2026-11-29T03:46:11+00:00`` as ``11-29 03:46`` (UTC)."""
    return f"{iso[5:10]} {iso[11:16]}" if len(iso) >= 16 else iso


def _batch_table(status: RunStatus) -> Table:
    table = Table(title="Batches (times UTC)")
    table.add_column("batch", no_wrap=True)
    table.add_column("provider id", overflow="fold")
    table.add_column("model", overflow="fold")
    table.add_column("state")
    table.add_column("answered", justify="right", no_wrap=True)
    table.add_column("failed", justify="right")
    table.add_column("expired/ cancelled", justify="right")
    table.add_column("created", no_wrap=True)
    table.add_column("updated", no_wrap=True)
    for batch in status.batches:
        table.add_row(
            batch.local_id[:8],
            batch.provider_batch_id or "-",
            batch.model,
            f"[bold]{batch.state}[/] (open)" if batch.open else batch.state,
            f"{batch.answered}/{batch.items}",
            str(batch.failed),
            str(batch.expired_or_cancelled),
            _moment(batch.created_at),
            _moment(batch.updated_at),
        )
    return table


def _summary_table(status: RunStatus) -> Table:
    table = Table(title=f"Status of {status.run_dir}", show_header=False)
    total = "?" if status.trials_total is None else str(status.trials_total)
    pending = "?" if status.trials_pending is None else str(status.trials_pending)
    unit = status.unit
    table.add_row(unit, f"{status.trials_ok} ok, {status.trials_failed} failed of {total}")
    table.add_row(f"{unit} pending", pending)
    table.add_row("open batches", f"{status.open_batches} ({status.items_waiting} items waiting)")
    cost = status.cost
    if cost.get("total_usd") or cost.get("unpriced_models"):
        line = f"${cost['total_usd']:,.4f}"
        if cost.get("batch_usd"):
            line += f" (batched ${cost['batch_usd']:,.4f}, saved ${cost['batch_saved_usd']:,.4f})"
        if cost.get("unpriced_models"):
            line += f" (no price for {', '.join(cost['unpriced_models'])})"
        table.add_row("cost so far", line)
    if status.remaining_s is not None and not status.finished:
        table.add_row(
            "expected remaining",
            f"{_duration(status.remaining_s)} ({status.remaining_steps} steps)",
        )
    table.add_row("state", "finished" if status.finished else f"pending (exit {EXIT_PENDING})")
    return table


def status_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables")] = False,
) -> None:
    """Where a run stands: its batches (open ones first to watch), trials done, failed and
    pending, cost so far and the expected remaining time of a batched run. Exits 0 when every
    trial is stored (ok or failed), 4 while any is pending (docs/batch.md)."""
    try:
        status = run_status(run_dir)
    except BadRunFolderError as exc:
        raise bad_input(str(exc)) from None
    if as_json:
        typer.echo(status.model_dump_json(indent=2))
    else:
        if status.batches:
            console.print(_batch_table(status))
        console.print(_summary_table(status))
        if status.remaining_s is not None and not status.finished:
            console.print(f"[dim]expected remaining: {status.estimate}[/]")
    raise typer.Exit(status.exit_code)
