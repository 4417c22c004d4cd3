"""How do two judge panels (or runs) differ on the same trials? Paired differences, rank
intervals, agreement compared, the leaderboard and the comparison of run folders.
"""

from fairpanel.analysis.panels._compare import (
    compare_runs,
    design_differences,
    difference_of_estimates,
    mark_real_differences,
    sort_block,
)
from fairpanel.analysis.panels._compare_paired import compare_paired
from fairpanel.analysis.panels._differences import panel_differences
from fairpanel.analysis.panels._leaderboard import (
    SORT_COLUMNS,
    RunInputs,
    leaderboard_row,
    ranked_rows,
)
from fairpanel.analysis.panels._ranks import panel_ranks

__all__ = [
    "SORT_COLUMNS",
    "RunInputs",
    "compare_paired",
    "compare_runs",
    "design_differences",
    "difference_of_estimates",
    "leaderboard_row",
    "mark_real_differences",
    "panel_differences",
    "panel_ranks",
    "ranked_rows",
    "sort_block",
]
