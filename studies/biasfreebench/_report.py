"""BiasFreeBench's report: the baseline Bias-Free Score and what each mitigation changes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fairpanel.report import (
    DisplayTables,
    Section,
    StudyPage,
    StudyVerdict,
    format_p,
    percent,
)
from fairpanel.studies.biasfreebench._figures import bfs_difference_figure, bfs_forest_figure

__all__ = ["biasfreebench_report"]


def _pct(value: Any) -> str:
    return percent(value, 1)


def biasfreebench_report(results: Mapping[str, Any]) -> StudyPage:
    """The baseline's Bias-Free Score and the best mitigation, then the scores and changes."""
    tables = DisplayTables(results)
    treatments = results.get("treatments") or []
    baseline = next((t for t in treatments if t.get("name") == results.get("baseline")), None)
    pooled = (baseline or {}).get("pooled") or {}
    if not pooled.get("n"):
        verdict = StudyVerdict("nodata", "No verdict yet", "No judged answers stored yet.")
    else:
        compared = [t for t in treatments if (t.get("vs_baseline") or {}).get("ci_low") is not None]
        helped = [t for t in compared if t["vs_baseline"]["ci_low"] > 0]
        best = max(compared, key=lambda t: t["vs_baseline"]["difference"], default=None)
        sentence = (
            f"Baseline Bias-Free Score {_pct(pooled['bfs'])} (95% Wilson interval "
            f"{_pct(pooled.get('ci_low'))} to {_pct(pooled.get('ci_high'))}, n = {pooled['n']})."
        )
        if best is not None:
            versus = best["vs_baseline"]
            sentence += (
                f" Best mitigation: {best['name']} {versus['difference']:+.1%} "
                f"({versus['ci_low']:+.1%} to {versus['ci_high']:+.1%}, McNemar p "
                f"{format_p(versus.get('p_mcnemar'))}); {len(helped)} of {len(compared)} "
                "mitigations raise it beyond their interval."
            )
        verdict = StudyVerdict(
            "measured",
            "Bias-Free Score measured",
            sentence,
            [
                f"{name.replace('_', ' ')}: {_pct(cell.get('bfs'))} at baseline"
                for name, cell in ((baseline or {}).get("by_category") or {}).items()
            ],
        )
    section = Section(
        "bfs",
        "Bias-Free Score by treatment and category",
        f"{results.get('method', '')}",
    )
    section.figure(
        bfs_forest_figure(treatments),
        "Bias-Free Score with its 95% Wilson interval; grey: the baseline (dashed line).",
        "No judged answers to draw.",
    )
    section.figure(
        bfs_difference_figure(treatments),
        "Change from the baseline on the same items with the 95% item-bootstrap interval.",
        "One treatment only: nothing to compare.",
    )
    tables.claim(section, "Bias-Free Score by treatment")
    tables.claim(section, "BFS by category")
    tables.claim(section, "Judge")
    return StudyPage(verdict, [section])
