"""The bias profile for ``--tables``: every manipulation row of every panel (effect, interval,
Holm p, call), where the short answer lists only the called ones."""

from __future__ import annotations

from rich.table import Table

from fairpanel.analysis import RunResults
from fairpanel.report import (
    format_p,
    profile_estimate,
    profile_interval,
    profile_panels,
    profile_state,
)

__all__ = ["profile_table"]

_CALL = {
    "called": "called",
    "misfired": "control called: rule misfired",
    "clear": "not called",
    "untested": "not tested",
}


def profile_table(results: RunResults) -> Table | None:
    """One row per panel, manipulation and protocol (the same-text control last, as the
    analysis orders them); None for a run without manipulation arms."""
    panels = profile_panels(results)
    if not panels:
        return None
    several = len(panels) > 1
    level = f"{panels[0].rows[0].confidence:.0%}"
    table = Table(
        title="Bias profile: manipulated minus untouched twin",
        caption="pts: score points (0-10); pp: the manipulated candidate's win share; "
        "Holm over each panel's manipulations; control: the same text, judged afresh",
    )
    if several:
        table.add_column("Panel", overflow="fold")
    table.add_column("Manipulation", overflow="fold")
    table.add_column("Protocol")
    table.add_column("Estimate", justify="right", no_wrap=True)
    table.add_column(f"{level} CI", justify="right", no_wrap=True)
    table.add_column("p Holm", justify="right")
    table.add_column("Call")
    for panel in panels:
        for row in panel.rows:
            name = f"{row.manipulation} (control)" if row.control else row.manipulation
            cells = [
                name,
                row.protocol,
                profile_estimate(row, interval=False),
                profile_interval(row),
                format_p(row.p_holm, missing="-", digits=4),
                _CALL[profile_state(row)],
            ]
            table.add_row(*([panel.name] if several else []), *cells)
    return table
