"""``fairpanel compare RUN_DIR...``: reads each run folder (recomputing results.json the way
``fairpanel report`` does when it is missing), prints the leaderboard and the summary, and
writes compare.json and compare.html."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from fairpanel.analysis import SORT_COLUMNS, RunInputs, compare_runs
from fairpanel.judging import STORE_FILE
from fairpanel.report import leaderboard_table, render_compare_html

__all__ = ["BadRunFolderError", "compare_command", "load_run"]

EXIT_BAD_INPUT = 2
RESULTS_FILE = "results.json"


class BadRunFolderError(ValueError):
    """A folder given to compare that is not a judge-panel run."""


def _read_json(path: Path) -> Any:
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BadRunFolderError(f"{path} cannot be read as JSON: {exc}") from None


def load_run(run_dir: Path) -> RunInputs:
    """A run folder's files; results.json is recomputed from the store when it is missing or
    predates the effects analysis."""
    if not run_dir.is_dir():
        raise BadRunFolderError(f"{run_dir} is not a folder")
    store = run_dir / STORE_FILE
    results_path = run_dir / RESULTS_FILE
    if not store.is_file() and not results_path.is_file():
        raise BadRunFolderError(
            f"{run_dir} is not a run folder (no {STORE_FILE}, no {RESULTS_FILE})"
        )
    experiment = _read_json(run_dir / "experiment.resolved.json")
    if isinstance(experiment, dict) and experiment.get("study"):
        raise BadRunFolderError(
            f"{run_dir} is a {experiment['study']!r} study run; compare takes judge-panel runs"
        )
    results = _read_json(results_path)
    if not isinstance(results, dict) or "effects" not in results:
        if not store.is_file():
            raise BadRunFolderError(f"{results_path} has no effects and there is no store")
        from fairpanel.cli._main import write_results  # the CLI module imports this one

        results = write_results(run_dir)
    return RunInputs(
        name=run_dir.resolve().name,
        path=str(run_dir),
        results=results,
        summary=_read_json(run_dir / "summary.json"),
        experiment=experiment if isinstance(experiment, dict) else None,
        manifest=_read_json(run_dir / "manifest.json"),
    )


def _write(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}-{os.getpid()}")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _unique_names(runs: list[RunInputs]) -> list[RunInputs]:
    """Folders with the same name (runs/a/x and runs/b/x) are told apart by their parent."""
    names = [run.name for run in runs]
    out = []
    for run in runs:
        name = run.name
        if names.count(name) > 1:
            name = f"{Path(run.path).resolve().parent.name}/{name}"
        out.append(
            RunInputs(name, run.path, run.results, run.summary, run.experiment, run.manifest)
        )
    return out


def compare_command(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run folders of the same design")],
    sort: Annotated[
        str, typer.Option("--sort", help="Column: " + ", ".join(SORT_COLUMNS))
    ] = "identity_effect",
    out: Annotated[
        Path, typer.Option("--out", help="Folder for compare.json and compare.html")
    ] = Path("."),
    alpha: Annotated[float, typer.Option(help="Level for calling a difference real")] = 0.05,
) -> None:
    """Leaderboard of judge models (or panels) run on the same design: identity effect,
    position bias, control false positives, agreement, parse failures, cost; and which
    differences between runs are real. Writes compare.json and compare.html to --out."""
    console, errors = Console(), Console(stderr=True)

    def fail(message: str) -> typer.Exit:
        errors.print(f"[bold red]error[/]: {escape(message)}", highlight=False, soft_wrap=True)
        return typer.Exit(EXIT_BAD_INPUT)

    if sort not in SORT_COLUMNS:
        raise fail(f"--sort must be one of {', '.join(SORT_COLUMNS)}; got {sort!r}")
    if not 0.0 < alpha < 1.0:
        raise fail(f"--alpha must be between 0 and 1; got {alpha}")
    try:
        runs = _unique_names([load_run(path) for path in run_dirs])
    except BadRunFolderError as exc:
        raise fail(str(exc)) from None
    try:
        comparison = compare_runs(runs, sort=sort, alpha=alpha)
    except ValueError as exc:  # the same folder twice
        raise fail(str(exc)) from None
    if not comparison["same_design"]:
        fields = ", ".join(d["field"] for d in comparison["design_differences"])
        errors.print(
            f"[bold yellow]warning[/]: the runs do not share one design (differ in {fields}); "
            "the comparison is not like for like",
            highlight=False,
        )
    # Wide enough that a row stays on a line or two when the output is not a terminal.
    Console(width=max(console.width, 180)).print(leaderboard_table(comparison))
    for line in comparison["summary"]:
        console.print(f"- {escape(line)}", highlight=False, soft_wrap=True)
    out.mkdir(parents=True, exist_ok=True)
    _write(out / "compare.json", json.dumps(comparison, indent=2, allow_nan=False) + "\n")
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    _write(out / "compare.html", render_compare_html(comparison, stamp))
    console.print(f"Wrote {out / 'compare.json'} and {out / 'compare.html'}")
