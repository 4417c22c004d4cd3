"""``fairpanel export``: one row per judge turn of a run, as CSV or Parquet, or the whole run as
an Inspect AI eval log; ``fairpanel responses export``: a run's candidate responses as JSON
Lines, so a later experiment can judge the same answers (``responses_from:``) without the run
folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from fairpanel.cli._console import bad_input, console
from fairpanel.judging.store import EXPORT_COLUMNS
from fairpanel.run_folder import (
    RESPONSES_EXPORT,
    BadRunFolderError,
    MissingExtraError,
    export_inspect,
    export_responses,
    export_run,
)

__all__ = ["EXPORT_EPILOG", "export_command", "responses_app"]

EXPORT_EPILOG = (
    "Columns: "
    + ", ".join(c.name for c in EXPORT_COLUMNS)
    + ". --format inspect writes an Inspect AI eval log instead, one sample per trial "
    "(RUN_DIR/inspect.eval; --out x.json for Inspect's JSON format) (docs/export.md)."
)


def export_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder")],
    fmt: Annotated[
        Literal["csv", "parquet", "inspect"],
        typer.Option("--format", help="csv, parquet or inspect (an Inspect AI eval log)"),
    ] = "csv",
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", help="Output file (default: RUN_DIR/turns.<format>, RUN_DIR/inspect.eval)"
        ),
    ] = None,
) -> None:
    """Write one row per judge turn (every round, parse failures included) with its trial's
    design, scores, verdict, tokens and latency; or, with --format inspect, one Inspect sample
    per trial (fairpanel[inspect] extra)."""
    try:
        if fmt == "inspect":
            path, samples = export_inspect(run_dir, out)
        else:
            path, rows = export_run(run_dir, fmt, out)
    except (BadRunFolderError, MissingExtraError) as exc:
        raise bad_input(str(exc)) from None
    if fmt == "inspect":
        console.print(f"Wrote {samples} trials as an Inspect eval log to {path}", soft_wrap=True)
    else:
        console.print(f"Wrote {rows} judge turns to {path}")


responses_app = typer.Typer(
    help="Candidate responses of a run, to judge the same answers in later runs.",
    no_args_is_help=True,
)


@responses_app.command("export")
def export_responses_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder (it may still be running)")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help=f"Output .jsonl file (default: RUN_DIR/{RESPONSES_EXPORT})"),
    ] = None,
) -> None:
    """Write every stored response (scenario_id, index, text, responder_model, call_key), one
    JSON object a line; an experiment's `responses_from:` takes the file like a run folder."""
    try:
        path, count, digest = export_responses(run_dir, out)
    except BadRunFolderError as exc:
        raise bad_input(str(exc)) from None
    console.print(f"Wrote {count} responses to {path} (digest {digest})", soft_wrap=True)
