"""``fairpanel label-bias RUN_DIR``: label bias of the verdicts a run stored, no model called."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairpanel.cli._console import EXIT_BAD_INPUT, bad_input, console, errors
from fairpanel.cli._run_tables import render_study_tables
from fairpanel.judging.store import RunFiles
from fairpanel.run_folder import require_run_folder
from fairpanel.studies import LABEL_BIAS_FILE, write_label_bias, write_label_bias_report

__all__ = ["label_bias_command"]


def label_bias_command(
    run_dir: Annotated[Path, typer.Argument(help="A judge-panel, award-audit or bscore run")],
    calibration: Annotated[
        str, typer.Option(help="renormalise (the paper's code) or softmax (its text)")
    ] = "renormalise",
) -> None:
    """RSD and BiasScore of the verdict labels stored in RUN_DIR, before and after
    leave-one-out calibration; writes RUN_DIR/label_bias.json and RUN_DIR/label_bias.html."""
    if calibration not in ("renormalise", "softmax"):
        errors.print("[bold red]error[/]: --calibration must be renormalise or softmax")
        raise typer.Exit(EXIT_BAD_INPUT)
    try:
        require_run_folder(run_dir)
        files = RunFiles.read(run_dir)  # once, for the results and the page
        results = write_label_bias(
            run_dir, "softmax" if calibration == "softmax" else "renormalise", files
        )
    except ValueError as exc:  # a BadRunFolderError, or a run it does not cover
        raise bad_input(str(exc)) from None
    page = write_label_bias_report(run_dir, results, files)
    for table in render_study_tables(results):
        console.print(table)
    console.print(f"Wrote {run_dir / LABEL_BIAS_FILE}")
    console.print(f"Report: {page}")
