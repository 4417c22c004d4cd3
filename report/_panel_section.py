"""The report's section for a run that compares panels on the same trials: the leaderboard
(with rank intervals), the sentences, and every paired difference with its adjusted p
(weighted Holm).

It renders what ``panel_comparison`` in results.json holds and computes nothing.
"""

from __future__ import annotations

from typing import Any

from fairpanel.analysis import PanelComparisonBlock
from fairpanel.report._compare_page import COLUMNS, leaderboard_cells, profiled_columns

__all__ = ["PANEL_COLUMNS", "panel_context"]

PANEL_COLUMNS = (
    ("rank_interval", "rank (95% interval)"),
    ("run", "panel"),
    *((key, header) for key, header in COLUMNS if key not in ("rank", "run")),
)
"""The leaderboard's columns on the report: the rank interval first, then compare's columns."""


def panel_context(block: PanelComparisonBlock | None) -> dict[str, Any] | None:
    """What the template's panels section reads, or None for a run with one panel."""
    if block is None:
        return None
    rows = []
    for row in block.leaderboard:
        cells = leaderboard_cells({**row, "run": row.get("panel", "")})
        rows.append(cells)
    differences = sorted(
        block.comparison.differences,
        key=lambda d: (not d.called, d.p_adjusted if d.p_adjusted is not None else 2.0),
    )
    return {
        "panels": block.panels,
        "summary": block.summary,
        "columns": profiled_columns(PANEL_COLUMNS, block.leaderboard),
        "rows": rows,
        "differences": differences,
        "procedure": block.comparison.procedure,
        "warnings": block.warnings,
        "first": block.panels[0] if block.panels else "",
    }
