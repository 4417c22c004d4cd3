"""The ``fairpanel`` command line: a thin layer over the runner, the store and the analysis."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

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
from fairpanel.analysis import analyze, control_false_positives
from fairpanel.cli._compare import compare_command
from fairpanel.cli._simulate import simulate_command
from fairpanel.cli._tables import render_tables
from fairpanel.inputs import InputFileError
from fairpanel.judging import (
    EXIT_RUN_FOLDER_BUSY,
    EXPORT_COLUMNS,
    STORE_FILE,
    ExperimentConfig,
    ExportFormat,
    RunFolderBusyError,
    RunFrames,
    RunSummary,
    Store,
    design_of,
    export_frame,
    load_experiment,
    load_frames,
    run_experiment,
)
from fairpanel.judging import estimate as estimate_experiment
from fairpanel.judging.engine import injection_robustness, write_export
from fairpanel.personas import load_identities, load_judge_personas
from fairpanel.report import write_report
from fairpanel.scenarios import load_scenarios

__all__ = ["app", "write_results"]

app = typer.Typer(
    name="fairpanel",
    help="Measure identity bias in LLM judges and judge panels.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
# soft_wrap: an error names a file path and line that users (and tests) search for; a
# terminal-width line break inside it would split them.
errors = Console(stderr=True, soft_wrap=True)

EXIT_BAD_INPUT = 2
EXIT_RUN_FAILED = 1


def _load_or_exit(path: Path | None) -> ExperimentConfig:
    try:
        return load_experiment(path)
    except InputFileError as exc:
        for problem in exc.problems:
            errors.print(f"[bold red]error[/]: {escape(problem)}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None


def _is_study(path: Path) -> bool:
    """Whether ``path`` is a study file (a ``study:`` field), handled by fairpanel.studies."""
    # Imported here: the studies build on this package, so it cannot import them at load time.
    from fairpanel.studies import study_name

    try:
        return study_name(path) is not None
    except InputFileError as exc:
        for problem in exc.problems:
            errors.print(f"[bold red]error[/]: {escape(problem)}", highlight=False)
        raise typer.Exit(EXIT_BAD_INPUT) from None


def _treatment_order(run_dir: Path, found: list[str]) -> list[str]:
    """Treatments in the experiment's order (the first is the baseline), then any others."""
    resolved = run_dir / "experiment.resolved.json"
    configured: list[str] = []
    if resolved.is_file():
        data = json.loads(resolved.read_text(encoding="utf-8"))
        configured = [t["name"] for t in data.get("treatments", [])]
    ordered = [name for name in configured if name in found]
    return ordered + [name for name in found if name not in ordered] or ["none"]


def _analyze(frames: RunFrames) -> dict[str, Any]:
    return analyze(frames.scores, frames.verdicts, frames.turns, consensus=frames.consensus)


def write_results(run_dir: Path, frames: RunFrames | None = None) -> dict[str, Any]:
    """Analyse a run folder's store and write ``results.json`` beside it. Pass the store's
    ``frames`` when the caller already loaded them (for the report), to read them once."""
    store = Store(run_dir / STORE_FILE)
    try:
        frames = frames if frames is not None else load_frames(store)
        robustness = injection_robustness(store)
    finally:
        store.close()
    treatments = _treatment_order(run_dir, frames.values("treatment"))
    baseline = frames.where(arm="main", treatment=treatments[0])
    results = _analyze(baseline)
    results["design"] = {
        "arms": frames.values("arm"),
        "treatments": treatments,
        "signals": frames.values("signal"),
        "note": f"the sections above cover the main arm under treatment {treatments[0]!r}",
    }
    results["by_treatment"] = {
        name: _analyze(frames.where(arm="main", treatment=name)) for name in treatments[1:]
    }
    results["control_arms"] = {
        arm: _analyze(frames.where(arm=arm)) for arm in frames.values("arm") if arm != "main"
    }
    results["injection_robustness"] = robustness  # empty unless arms.injection is on
    results["control_false_positives"] = control_false_positives(
        {
            arm: frames.where(arm=arm).verdicts
            for arm in frames.values("arm")
            if arm not in ("main", "injection")
        }
    )
    (run_dir / "results.json").write_text(
        json.dumps(results, indent=2, allow_nan=False) + "\n", encoding="utf-8"
    )
    return results


def _read_frames(run_dir: Path) -> RunFrames:
    store = Store(run_dir / STORE_FILE)
    try:
        return load_frames(store)
    finally:
        store.close()


def _print_results(results: dict[str, Any]) -> None:
    for table in render_tables(results):
        console.print(table)


def _print_summary(summary: RunSummary) -> None:
    table = Table(title="Run summary", show_header=False)
    for key in (
        "trials_total",
        "trials_ok",
        "trials_failed",
        "trials_run",
        "calls_made",
        "calls_cached",
        "wall_seconds",
    ):
        table.add_row(key, str(getattr(summary, key)))
    table.add_row("cached_token_share", f"{summary.cached_token_share:.1%}")
    if summary.cost.get("total_usd") or summary.cost.get("unpriced_models"):
        table.add_row("cost_usd", str(summary.cost["total_usd"]))
    console.print(table)


@app.command()
def run(
    experiment: Annotated[
        Path | None, typer.Argument(help="Experiment YAML; the built-in default when omitted")
    ] = None,
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
) -> None:
    """Run an experiment (resumable: finished trials and calls are never repeated)."""
    if experiment is not None and _is_study(experiment):
        from fairpanel.cli._studies import run_command

        run_command(
            experiment,
            out,
            retry_failed=retry_failed,
            max_failures=max_failures,
            console=console,
            errors=errors,
            no_report=no_report,
        )
        return
    config = _load_or_exit(experiment)
    run_dir = out or Path("runs") / config.name
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as bar:
        tasks: dict[str, Any] = {}

        def advance(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        try:
            summary = asyncio.run(
                run_experiment(
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
            errors.print(f"[bold red]error[/]: {escape(str(exc))}", highlight=False, soft_wrap=True)
            raise typer.Exit(EXIT_RUN_FOLDER_BUSY) from None
    (run_dir / "summary.json").write_text(
        json.dumps(summary.as_dict(), indent=2) + "\n", encoding="utf-8"
    )
    _print_summary(summary)
    if not no_report:
        frames = _read_frames(run_dir)
        results = write_results(run_dir, frames)
        _print_results(results)
        write_report(run_dir, results, frames.scores)
    if summary.stopped is not None:
        errors.print(f"[bold red]run stopped[/]: {summary.stopped}")
        raise typer.Exit(EXIT_RUN_FAILED)
    console.print(
        f"Run folder: [bold]{run_dir}[/] (report.html, summary.json, results.json, {STORE_FILE})"
    )


@app.command()
def report(run_dir: Annotated[Path, typer.Argument(help="A run folder")]) -> None:
    """Print the analysis tables of a run; write RUN_DIR/results.json and RUN_DIR/report.html."""
    if not (run_dir / STORE_FILE).is_file():
        errors.print(f"[bold red]error[/]: {run_dir} is not a run folder (no {STORE_FILE})")
        raise typer.Exit(EXIT_BAD_INPUT)
    from fairpanel.cli._studies import report_command
    from fairpanel.studies import config_from_run

    study = config_from_run(run_dir)
    if study is not None:
        report_command(run_dir, study, console)
        return
    frames = _read_frames(run_dir)
    results = write_results(run_dir, frames)
    _print_results(results)
    report_file = write_report(run_dir, results, frames.scores)
    console.print(f"Wrote {run_dir / 'results.json'} and {report_file}")


@app.command(epilog="Columns: " + ", ".join(c.name for c in EXPORT_COLUMNS) + " (docs/export.md).")
def export(
    run_dir: Annotated[Path, typer.Argument(help="A run folder")],
    fmt: Annotated[ExportFormat, typer.Option("--format", help="csv or parquet")] = "csv",
    out: Annotated[
        Path | None, typer.Option("--out", help="Output file (default: RUN_DIR/turns.<format>)")
    ] = None,
) -> None:
    """Write one row per judge turn (every round, parse failures included) with its trial's
    design, scores, verdict, tokens and latency."""
    if not (run_dir / STORE_FILE).is_file():
        errors.print(f"[bold red]error[/]: {run_dir} is not a run folder (no {STORE_FILE})")
        raise typer.Exit(EXIT_BAD_INPUT)
    store = Store(run_dir / STORE_FILE)
    try:
        frame = export_frame(store)
    finally:
        store.close()
    path = write_export(frame, out or run_dir / f"turns.{fmt}", fmt)
    console.print(f"Wrote {len(frame)} judge turns to {path}")


@app.command("label-bias")
def label_bias(
    run_dir: Annotated[Path, typer.Argument(help="A judge-panel, award-audit or bscore run")],
    calibration: Annotated[
        str, typer.Option(help="renormalise (the paper's code) or softmax (its text)")
    ] = "renormalise",
) -> None:
    """RSD and BiasScore of the verdict labels stored in RUN_DIR, before and after
    leave-one-out calibration; writes RUN_DIR/label_bias.json."""
    from fairpanel.studies import label_bias_command

    if calibration not in ("renormalise", "softmax"):
        errors.print("[bold red]error[/]: --calibration must be renormalise or softmax")
        raise typer.Exit(EXIT_BAD_INPUT)
    code = label_bias_command(run_dir, calibration, console, errors)  # type: ignore[arg-type]
    if code:
        raise typer.Exit(code)


@app.command()
def estimate(
    experiment: Annotated[
        Path | None, typer.Argument(help="Experiment YAML; the built-in default when omitted")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables")] = False,
) -> None:
    """Trials, calls, tokens, cost and time of an experiment, without calling a model."""
    if experiment is not None and _is_study(experiment):
        from fairpanel.cli._studies import estimate_command

        estimate_command(experiment, as_json=as_json, console=console, errors=errors)
        return
    plan = estimate_experiment(_load_or_exit(experiment)).as_dict()
    if as_json:
        typer.echo(json.dumps(plan, indent=2))
        return
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


@app.command()
def schema(
    study: Annotated[
        str | None, typer.Option("--study", help="A study name: the schema of its study files")
    ] = None,
) -> None:
    """Print the JSON Schema of experiment files (or of one study's files)."""
    if study is None:
        typer.echo(json.dumps(ExperimentConfig.model_json_schema(), indent=2))
        return
    from fairpanel.studies import STUDIES

    if study not in STUDIES:
        errors.print(f"[bold red]error[/]: unknown study {study!r}; known: {', '.join(STUDIES)}")
        raise typer.Exit(EXIT_BAD_INPUT)
    typer.echo(json.dumps(STUDIES[study].config_model.model_json_schema(), indent=2))


@app.command()
def scenarios(
    experiment: Annotated[
        Path | None, typer.Argument(help="Show the scenarios this experiment uses")
    ] = None,
) -> None:
    """List base scenarios and their derived scenarios."""
    if experiment is not None:
        design = design_of(_load_or_exit(experiment))
        table = Table(title="Derived scenarios in this experiment")
        table.add_column("id")
        table.add_column("prompt")
        for scenario in design.scenarios:
            table.add_row(scenario.id, scenario.prompt)
        console.print(table)
        return
    try:
        bases = load_scenarios()
    except InputFileError as exc:
        errors.print(str(exc))
        raise typer.Exit(EXIT_BAD_INPUT) from None
    table = Table(title=f"{len(bases)} base scenarios")
    for column in ("id", "domain", "derived", "stereotype probed"):
        table.add_column(column)
    for base in bases:
        table.add_row(base.id, base.domain, str(len(base.variations)), base.stereotype)
    console.print(table)


@app.command()
def personas() -> None:
    """List identities (by category) and judge personas."""
    identities = load_identities()
    table = Table(title="Identities")
    for column in ("category", "label", "explicit label", "name cues"):
        table.add_column(column)
    for category in identities.categories:
        for identity in category.identities:
            table.add_row(
                category.name, identity.label, identity.explicit, ", ".join(identity.names[:4])
            )
    console.print(table)
    judges = Table(title="Judge personas")
    for column in ("name", "title", "responsibility"):
        judges.add_column(column)
    for persona in load_judge_personas():
        judges.add_row(persona.name, persona.title, persona.responsibility)
    console.print(judges)


app.command("compare")(compare_command)
app.command("simulate")(simulate_command)
