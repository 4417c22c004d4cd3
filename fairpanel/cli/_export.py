"""``fairpanel export``: one row per judge turn of a run, as CSV or Parquet, or the whole run as
an Inspect AI eval log."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

from fairpanel.cli._console import bad_input, console
from fairpanel.judging.store import EXPORT_COLUMNS
from fairpanel.run_folder import BadRunFolderError, MissingExtraError, export_inspect, export_run

__all__ = ["EXPORT_EPILOG", "export_command"]

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
