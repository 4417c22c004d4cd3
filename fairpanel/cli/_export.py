"""``fairpanel export``: one row per judge turn of a run, as CSV or Parquet."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairpanel.cli._console import bad_input, console
from fairpanel.judging import EXPORT_COLUMNS, ExportFormat
from fairpanel.run_folder import BadRunFolderError, export_run

__all__ = ["EXPORT_EPILOG", "export_command"]

EXPORT_EPILOG = "Columns: " + ", ".join(c.name for c in EXPORT_COLUMNS) + " (docs/export.md)."


def export_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder")],
    fmt: Annotated[ExportFormat, typer.Option("--format", help="csv or parquet")] = "csv",
    out: Annotated[
        Path | None, typer.Option("--out", help="Output file (default: RUN_DIR/turns.<format>)")
    ] = None,
) -> None:
    """Write one row per judge turn (every round, parse failures included) with its trial's
    design, scores, verdict, tokens and latency."""
    try:
        path, rows = export_run(run_dir, fmt, out)
    except BadRunFolderError as exc:
        raise bad_input(str(exc)) from None
    console.print(f"Wrote {rows} judge turns to {path}")
