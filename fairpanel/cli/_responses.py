"""``fairpanel responses export``: a run's candidate responses as JSON Lines, so a later
experiment can judge the same answers (``responses_from:``) without the run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairpanel.cli._console import bad_input, console
from fairpanel.run_folder import RESPONSES_EXPORT, BadRunFolderError, export_responses

__all__ = ["responses_app"]

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
