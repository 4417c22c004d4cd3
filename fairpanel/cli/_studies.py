"""The ``fairpanel`` commands for study files (``run``, ``estimate``, ``report``, ``schema``).

``fairpanel.judging``'s CLI hands a file over here when it has a ``study:`` field, and a run
folder when its resolved config names a study; exit codes match the panel commands.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from fairpanel.agents import (
    LocalModelUnavailableError,
    MissingApiKeyError,
    ModelCallError,
    PluginError,
)
from fairpanel.inputs import InputFileError
from fairpanel.judging import EXIT_RUN_FOLDER_BUSY, STORE_FILE, RunFolderBusyError
from fairpanel.report import write_study_report
from fairpanel.studies import (
    StudyConfig,
    StudySummary,
    build_study,
    estimate_study,
    load_study,
    render_study_tables,
    run_study,
    write_study_results,
)

__all__ = ["estimate_command", "report_command", "run_command"]

EXIT_BAD_INPUT = 2
EXIT_RUN_FAILED = 1


def _load_or_exit(path: Path, errors: Console) -> StudyConfig:
    try:
        return load_study(path)
    except InputFileError as exc:
        for problem in exc.problems:
            errors.print(f"[bold red]error[/]: {escape(problem)}", highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None


def _print_results(results: dict[str, Any], console: Console) -> None:
    for table in render_study_tables(results):
        console.print(table)


def _print_summary(summary: StudySummary, console: Console) -> None:
    table = Table(title=f"Run summary ({summary.study})", show_header=False)
    for key in (
        "items_total",
        "items_ok",
        "items_failed",
        "items_run",
        "calls_made",
        "calls_cached",
        "wall_seconds",
    ):
        table.add_row(key, str(getattr(summary, key)))
    if summary.cost.get("total_usd") or summary.cost.get("unpriced_models"):
        table.add_row("cost_usd", str(summary.cost["total_usd"]))
    console.print(table)


def run_command(
    path: Path,
    out: Path | None,
    *,
    retry_failed: bool,
    max_failures: int | None,
    console: Console,
    errors: Console,
    no_report: bool = False,
) -> None:
    config = _load_or_exit(path, errors)
    run_dir = out or Path("runs") / config.name
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    ) as bar:
        tasks: dict[str, Any] = {}

        def advance(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        try:
            summary = asyncio.run(
                run_study(
                    config,
                    run_dir,
                    retry_failed=retry_failed,
                    progress=advance,
                    warn=lambda text: errors.print(f"[bold yellow]warning[/]: {text}"),
                    max_failures=max_failures,
                )
            )
        except (MissingApiKeyError, LocalModelUnavailableError, PluginError) as exc:
            errors.print(f"[bold red]error[/]: {escape(str(exc))}", highlight=False)
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except ModelCallError as exc:
            errors.print(f"[bold red]run stopped[/]: {exc}")
            raise typer.Exit(EXIT_RUN_FAILED) from None
        except RunFolderBusyError as exc:
            errors.print(f"[bold red]error[/]: {escape(str(exc))}", highlight=False)
            raise typer.Exit(EXIT_RUN_FOLDER_BUSY) from None
    (run_dir / "summary.json").write_text(
        json.dumps(summary.as_dict(), indent=2) + "\n", encoding="utf-8"
    )
    _print_summary(summary, console)
    if not no_report:
        results = write_study_results(run_dir, config)
        _print_results(results, console)
        write_study_report(run_dir, results, build_study(config).report(results))
    if summary.stopped is not None:
        errors.print(f"[bold red]run stopped[/]: {summary.stopped}")
        raise typer.Exit(EXIT_RUN_FAILED)
    console.print(
        f"Run folder: [bold]{run_dir}[/] (report.html, summary.json, results.json, {STORE_FILE})"
    )


def report_command(run_dir: Path, config: StudyConfig, console: Console) -> None:
    results = write_study_results(run_dir, config)
    _print_results(results, console)
    written = write_study_report(run_dir, results, build_study(config).report(results))
    console.print(f"Wrote {run_dir / 'results.json'} and {written}")


def estimate_command(path: Path, *, as_json: bool, console: Console, errors: Console) -> None:
    plan = estimate_study(_load_or_exit(path, errors)).as_dict()
    if as_json:
        typer.echo(json.dumps(plan, indent=2))
        return
    table = Table(title=f"Plan ({plan['study']})", show_header=False)
    table.add_row("items", str(plan["items"]))
    for role, count in plan["calls"].items():
        conditional = plan["conditional_calls"].get(role, 0)
        table.add_row(f"calls {role}", f"{count}" + (" (at most)" if conditional else ""))
    table.add_row("calls total", str(plan["calls_total"]))
    for model, usage in plan["tokens_by_model"].items():
        table.add_row(
            f"tokens {model}", f"{usage['prompt_tokens']:,} in / {usage['completion_tokens']:,} out"
        )
    cost = plan["cost"]
    priced = f"${cost['total_usd']:,.2f}"
    if cost["unpriced_models"]:
        priced += f" (no price for {', '.join(cost['unpriced_models'])})"
    table.add_row("cost", priced)
    wall = plan["wall_seconds"]
    table.add_row("wall time", "unknown" if wall is None else f"{wall / 60:,.1f} min")
    console.print(table)
    for note in plan["notes"]:
        console.print(f"[dim]{note}[/]")
