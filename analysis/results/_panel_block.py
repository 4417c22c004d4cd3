"""results.json's ``panel_comparison``: the panels of one run on the same trials, as a reader
takes them in: a leaderboard with rank intervals, the paired differences with their one
weighted Holm procedure, and the sentences that say which differences are real.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from fairpanel.analysis.results._panel_rows import PanelComparison, RankInterval
from fairpanel.analysis.results._rows import ResultsModel

__all__ = ["PanelComparisonBlock", "panel_summary"]


class PanelComparisonBlock(ResultsModel):
    """``leaderboard``: one row per panel (the columns ``fairpanel compare`` shows for a run
    folder, plus ``panel`` and the rank interval), fairest first; ``ranks``: each panel's largest
    primary effect and its rank interval from the paired cluster bootstrap; ``comparison``: every
    paired difference and the procedure; ``summary``: the sentences; ``warnings``: what makes
    the comparison less than like for like (a judge model that changed during the run)."""

    panels: list[str] = Field(default_factory=list)
    summary: list[str] = Field(default_factory=list)
    leaderboard: list[dict[str, Any]] = Field(default_factory=list)
    ranks: list[RankInterval] = Field(default_factory=list)
    comparison: PanelComparison = Field(default_factory=PanelComparison)
    warnings: list[str] = Field(default_factory=list)


def _rank_sentence(ranks: Sequence[RankInterval]) -> str | None:
    ranked = [r for r in ranks if r.rank is not None]
    if not ranked:
        return None
    ordered = sorted(ranked, key=lambda r: (r.rank or 0, r.panel))
    parts = [f"{r.panel} {r.rank_label or r.rank}" for r in ordered]
    scale = ordered[0].scale or "the primary scale"
    return (
        "Fairness ranks (smallest largest primary identity effect first, in "
        f"{scale}; rank intervals from the paired cluster bootstrap): " + ", ".join(parts) + "."
    )


def panel_summary(comparison: PanelComparison, ranks: Mapping[str, RankInterval]) -> list[str]:
    """The comparison in sentences: every called difference, else that none survived the
    procedure; then the ranks."""
    called = [row.sentence for row in comparison.differences if row.called]
    lines = called or [
        f"No difference between the panels survives {comparison.procedure or 'the procedure'} "
        f"({comparison.tests} tested)."
        if comparison.tests
        else "No difference between the panels could be tested"
        + (f": {comparison.warnings[0]}" if comparison.warnings else ".")
    ]
    ranked = _rank_sentence(list(ranks.values()))
    return lines + ([ranked] if ranked else [])
