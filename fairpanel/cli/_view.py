"""``fairpanel view``: a run's transcripts, served from its store on loopback, or written as one
offline page (``--out``) for a small run or a filtered subset."""

from __future__ import annotations

import importlib
import webbrowser
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import parse_qsl

import typer

from fairpanel.cli._console import bad_input, console
from fairpanel.viewer import (
    NotViewableError,
    TooBigForOnePageError,
    serve_run,
    trials_for_one_page,
)

__all__ = ["view_command"]


def _page_writer() -> Any:
    """``run_folder.write_transcripts``, imported only for ``--out``: it brings the report and
    the store's analysis readers (pandas), which serving the run never needs."""
    return importlib.import_module("fairpanel.run_folder").write_transcripts


def _write(run_dir: Path, out: Path, only: str | None, no_open: bool) -> None:
    store = run_dir / "fairpanel.sqlite"
    if not store.is_file():
        raise bad_input(f"{run_dir} is not a run folder (no fairpanel.sqlite)")
    filters = dict(parse_qsl(only.lstrip("#"))) if only else None
    try:
        keys = trials_for_one_page(run_dir, store, filters)
    except ValueError as exc:
        raise bad_input(str(exc)) from None
    if keys is not None and not keys:
        raise bad_input(f"no trial of {run_dir} matches --only {only!r}")
    try:
        path, trials = _page_writer()(run_dir, out, keys)
    except ValueError as exc:  # BadRunFolderError
        raise bad_input(str(exc)) from None
    console.print(f"Wrote {trials} trials to {path}")
    if not no_open:
        webbrowser.open(path.resolve().as_uri())


def view_command(
    run_dir: Annotated[Path, typer.Argument(help="A run folder")],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Write one self-contained page here instead of serving (a small run, or "
            "--only's trials)",
        ),
    ] = None,
    only: Annotated[
        str | None,
        typer.Option(
            "--only",
            help="With --out: the trials these filters select (the page's hash format, e.g. "
            "'category=gender&identity=female&outcome=flipped') and their twins",
        ),
    ] = None,
    no_open: Annotated[
        bool, typer.Option("--no-open", help="Print the address (or write the page) only")
    ] = False,
) -> None:
    """Serve the run's transcripts (every trial: the task, both candidates, each judge's turn in
    every round, the consensus and the verdict; filters and search, docs/transcripts.md) from its
    store on 127.0.0.1 behind a one-time token, and open them; Ctrl-C stops. With --out, write
    them as one offline page instead."""
    if out is not None:
        _write(run_dir, out, only, no_open)
        return
    if only is not None:
        raise bad_input("--only selects the trials of an --out page; the viewer filters itself")
    try:
        server = serve_run(run_dir)
    except (NotViewableError, TooBigForOnePageError) as exc:
        raise bad_input(str(exc)) from None
    console.print(
        f"Serving the transcripts of {run_dir} at {server.url} (Ctrl-C stops)", soft_wrap=True
    )
    server.prepare_search()
    if not no_open:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
