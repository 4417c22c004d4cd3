"""``fairpanel compare RUN_DIR...``: the leaderboard and the summary of judge-panel runs of one
design, written to compare.json and compare.html."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fairpanel.analysis import SORT_COLUMNS
from fairpanel.cli._console import bad_input, console, errors
from fairpanel.report import compare_columns, leaderboard_cells
from fairpanel.run_folder import compare, write_comparison

__all__ = ["compare_command", "leaderboard_table", "pairing_line"]

SHORT_HEADERS = {
    "identity_effect": "identity effect",
    "detected": "detected",
    "mde": "finds (80%)",
    "position_bias": "1st-position wins",
    "false_positives": "control FP",
    "bias_profile": "biases called",
    "agreement": "alpha",
    "parse_failures": "parse fail",
    "cost": "USD/1k",
    "rank_interval": "rank (95% interval)",
}
"""Headers of the terminal table where the page's (``COLUMNS``) are too wide."""


def pairing_line(comparison: Mapping[str, Any]) -> str:
    """Which comparison was made and why, for the terminal."""
    reason = escape(str(comparison.get("pairing_reason") or ""))
    if comparison.get("pairing") == "paired":
        return f"[bold]Paired trial by trial[/]: {reason}."
    return f"[bold]Independent comparison[/] (runs as independent samples): {reason}."


def leaderboard_table(comparison: Mapping[str, Any]) -> Table:
    """The leaderboard for the terminal; a design mismatch shows in the title."""
    title = "Judge leaderboard"
    if not comparison["same_design"]:
        title += " [bold red](designs differ: not like for like)[/]"
    sort = comparison["sort"]
    table = Table(
        title=title,
        caption=f"sorted by {sort['by']}, {sort['order']}; columns in docs/compare.md",
    )
    columns = compare_columns(comparison)
    for key, header in columns:
        table.add_column(SHORT_HEADERS.get(key, header), overflow="fold")
    for row in comparison["leaderboard"]:
        cells = leaderboard_cells(row)
        table.add_row(*(cells[key] for key, _ in columns))
    return table


def compare_command(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run folders of the same design")],
    sort: Annotated[
        str, typer.Option("--sort", help="Column: " + ", ".join(SORT_COLUMNS))
    ] = "identity_effect",
    out: Annotated[
        Path, typer.Option("--out", help="Folder for compare.json and compare.html")
    ] = Path("."),
    alpha: Annotated[float, typer.Option(help="Level for calling a difference real")] = 0.05,
    independent: Annotated[
        bool,
        typer.Option(
            "--independent",
            help="Compare the runs as independent samples even when they judged the same "
            "candidates on the same trials (then they are paired trial by trial)",
        ),
    ] = False,
) -> None:
    """Leaderboard of judge models (or panels) run on the same design: identity effect,
    position bias, the control arms' own verdicts, agreement, parse failures, cost; and which
    differences between runs are real, paired trial by trial when the runs judged the same
    candidates on the same trials. Writes compare.json and compare.html to --out."""
    if sort not in SORT_COLUMNS:
        raise bad_input(f"--sort must be one of {', '.join(SORT_COLUMNS)}; got {sort!r}")
    if not 0.0 < alpha < 1.0:
        raise bad_input(f"--alpha must be between 0 and 1; got {alpha}")
    try:
        comparison = compare(run_dirs, sort=sort, alpha=alpha, independent=independent)
    except ValueError as exc:  # not a run folder, a study run, or the same folder twice
        raise bad_input(str(exc)) from None
    if not comparison["same_design"]:
        fields = ", ".join(d["field"] for d in comparison["design_differences"])
        errors.print(
            f"[bold yellow]warning[/]: the runs do not share one design (differ in {fields}); "
            "the comparison is not like for like",
            highlight=False,
            soft_wrap=False,
        )
    for warning in comparison.get("warnings") or []:
        errors.print(f"[bold yellow]warning[/]: {escape(warning)}", highlight=False, soft_wrap=True)
    console.print(pairing_line(comparison), highlight=False, soft_wrap=True)
    # Wide enough that a row stays on a line or two when the output is not a terminal.
    Console(width=max(console.width, 180)).print(leaderboard_table(comparison))
    for line in comparison["summary"]:
        console.print(f"- {escape(line)}", highlight=False, soft_wrap=True)
    json_path, page_path = write_comparison(comparison, out)
    console.print(f"Wrote {json_path} and {page_path}")
