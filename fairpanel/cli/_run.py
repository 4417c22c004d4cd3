"""``fairpanel run`` and ``fairpanel report``, for experiment and study
files alike (``fairpanel.run_folder.load`` tells them apart by the file's ``study:`` field)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from fairpanel import agents, report, run_folder
from fairpanel.cli._answer import print_answer, run_answer, study_answer
from fairpanel.cli._console import (
    EXIT_BAD_INPUT,
    EXIT_RUN_FAILED,
    FILE_HELP,
    bad_input,
    console,
    errors,
    load_or_exit,
    print_error,
    problems_exit,
)
from fairpanel.cli._live import run_progress
from fairpanel.cli._run_tables import (
    render_study_tables,
    replica_table,
    summary_table,
)
from fairpanel.cli._tables import render_tables
from fairpanel.inputs import InputFileError
from fairpanel.judging import engine, store
from fairpanel.studies import StudyConfig

__all__ = ["report_command", "run_command"]


_TABLES_HELP = "Print every analysis table (wide) instead of the short summary"
Tables = Annotated[bool, typer.Option("--tables", help=_TABLES_HELP)]


def _print_results(results: Mapping[str, Any], *, study: bool) -> None:
    for table in render_study_tables(results) if study else render_tables(results):
        console.print(table)


def _print_answer(
    results: Mapping[str, Any] | None,
    summary: Mapping[str, Any] | None,
    *,
    study: bool,
    run_dir: Path,
    report_file: Path | None,
) -> None:
    answer = study_answer if study else run_answer
    print_answer(console, answer(results, summary, run_dir=run_dir, report_file=report_file))


def _warn(text: str) -> None:
    errors.print(f"[bold yellow]warning[/]: {text}")


def run_command(
    experiment: Annotated[Path | None, typer.Argument(help=FILE_HELP)] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="Run folder (default: runs/<experiment name>)")
    ] = None,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Run failed trials again")
    ] = False,
    max_failures: Annotated[
        int | None,
        typer.Option("--max-failures", min=1, help="Stop after this many failed trials"),
    ] = None,
    no_report: Annotated[
        bool,
        typer.Option(
            "--no-report",
            help="Store the trials and summary.json only; analyse later with `fairpanel report`",
        ),
    ] = False,
    tables: Tables = False,
    detach: Annotated[
        bool,
        typer.Option(
            "--detach",
            help="Batch mode: submit, read each open batch once, and exit while batches run; "
            "run the same command again (or check `fairpanel status RUN_DIR`) to go on",
        ),
    ] = False,
) -> None:
    """Run an experiment (resumable: finished trials and calls are never repeated)."""
    config = load_or_exit(experiment)
    if detach and isinstance(config, StudyConfig):
        raise bad_input("--detach runs judge-panel experiments; a study runs attached")
    run_dir = out or run_folder.default_run_dir(config)
    with run_progress(console) as advance:
        try:
            outcome = run_folder.run(  # the run side loads only when a run starts
                config,
                run_dir,
                report=not no_report,
                retry_failed=retry_failed,
                progress=advance,
                warn=_warn,
                max_failures=max_failures,
                detach=detach,
            )
        except (
            agents.MissingApiKeyError,
            agents.LocalModelUnavailableError,
            agents.PluginError,
        ) as exc:
            print_error(str(exc))
            raise typer.Exit(EXIT_BAD_INPUT) from None
        except InputFileError as exc:  # responses_from changed since the file was loaded
            raise problems_exit(exc) from None
        except agents.ModelCallError as exc:
            errors.print(f"[bold red]run stopped[/]: {exc}")
            raise typer.Exit(EXIT_RUN_FAILED) from None
        except engine.RunFolderBusyError as exc:
            print_error(str(exc))
            raise typer.Exit(engine.EXIT_RUN_FOLDER_BUSY) from None
    pending = getattr(outcome.summary, "pending_batches", {})
    if pending:
        _print_detached(outcome.summary.as_dict(), experiment, out, run_dir)
        return
    study = isinstance(config, StudyConfig)
    if tables:
        console.print(summary_table(outcome.summary))
        if outcome.results is not None:
            _print_results(outcome.results, study=study)
    else:
        _print_answer(
            outcome.results,
            outcome.summary.as_dict(),
            study=study,
            run_dir=run_dir,
            report_file=outcome.report_file,
        )
    replicas = replica_table(outcome.summary.replicas)
    if replicas is not None:
        console.print(replicas)
    if outcome.summary.stopped is not None:
        errors.print(f"[bold red]run stopped[/]: {outcome.summary.stopped}")
        raise typer.Exit(EXIT_RUN_FAILED)
    files = f" (report.html, summary.json, results.json, {store.STORE_FILE})" if tables else ""
    console.print(f"Run folder: [bold]{run_dir}[/]{files}")


def _print_detached(
    summary: Mapping[str, Any], experiment: Path | None, out: Path | None, run_dir: Path
) -> None:
    """What a detached pass left running, and the two commands that go on from there."""
    batches = summary["pending_batches"]
    states = ", ".join(f"{batch_id} ({state})" for batch_id, state in batches.items())
    console.print(
        f"[bold]Submitted.[/] {summary['trials_ok']} trials ok, {summary['trials_failed']} "
        f"failed, {summary.get('trials_pending', 0)} waiting on {len(batches)} open "
        f"batch{'es' if len(batches) != 1 else ''}: {states}",
        soft_wrap=True,
    )
    again = ["fairpanel run", *([str(experiment)] if experiment else [])]
    again += [*(["--out", str(out)] if out else []), "--detach"]
    console.print(f"Go on later:  [bold]{' '.join(again)}[/]  (without --detach: wait to the end)")
    console.print(f"Check:        [bold]fairpanel status {run_dir}[/]")


def report_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder")], tables: Tables = False
) -> None:
    """Write RUN_DIR/results.json and RUN_DIR/report.html; print the verdict and what it rests
    on (every analysis table with --tables)."""
    # The figures' process starts first, so it imports matplotlib while this one imports the
    # statistics (the report side loads only in report_run).
    with report.FigureWorkers() as figures:
        try:
            reported = run_folder.report_run(run_dir, figures.draw)
        except run_folder.BadRunFolderError as exc:
            print_error(str(exc))
            raise typer.Exit(EXIT_BAD_INPUT) from None
    study = reported.study is not None
    if tables:
        _print_results(reported.results, study=study)
    else:
        _print_answer(
            reported.results,
            reported.files.summary,  # None for a run that never finished; the answer prints
            study=study,
            run_dir=run_dir,
            report_file=reported.report_file,
        )
    console.print(f"Wrote {run_dir / run_folder.RESULTS_FILE} and {reported.report_file}")
