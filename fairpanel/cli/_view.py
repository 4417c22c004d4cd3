"""``fairpanel view``: a run's transcripts page, written and opened in the browser."""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Annotated

import typer

from fairpanel.cli._console import bad_input, console
from fairpanel.run_folder import BadRunFolderError, write_transcripts

__all__ = ["view_command"]


def view_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder")],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Output file (default: RUN_DIR/transcripts.html)"),
    ] = None,
    no_open: Annotated[
        bool, typer.Option("--no-open", help="Write the page without opening a browser")
    ] = False,
) -> None:
    """Write the run's transcripts (every trial: the task, both candidates, each judge's turn in
    every round, the consensus and the verdict; filters and search, docs/transcripts.md) as one
    offline page, and open it."""
    try:
        path, trials = write_transcripts(run_dir, out)
    except BadRunFolderError as exc:
        raise bad_input(str(exc)) from None
    console.print(f"Wrote {trials} trials to {path}")
    if not no_open:
        webbrowser.open(path.resolve().as_uri())
