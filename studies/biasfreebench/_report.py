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
from fairpanel.studies.biasfreebench._readers import BfbResults, Score

__all__ = ["biasfreebench_report"]


def _signed_pct(value: float | None) -> str:
    return "–" if value is None else f"{value:+.1%}"


def biasfreebench_report(results: Mapping[str, Any]) -> StudyPage:
    """The baseline's Bias-Free Score and the best mitigation, then the scores and changes."""
    tables = DisplayTables(results)
    read = BfbResults.model_validate(results)
    baseline = read.baseline_treatment
    pooled = baseline.pooled if baseline is not None else Score()
    if not pooled.n:
        verdict = StudyVerdict("nodata", "No verdict yet", "No judged answers stored yet.")
    else:
        compared = [
            (t.name, versus)
            for t in read.treatments
            if (versus := t.vs_baseline) is not None and versus.ci_low is not None
        ]
        helped = [name for name, versus in compared if (versus.ci_low or 0) > 0]
        best = max(compared, key=lambda c: c[1].difference or 0, default=None)
        sentence = (
            f"Baseline Bias-Free Score {percent(pooled.bfs, 1)} (95% Wilson interval "
            f"{percent(pooled.ci_low, 1)} to {percent(pooled.ci_high, 1)}, n = {pooled.n})."
        )
        if best is not None:
            name, versus = best
            sentence += (
                f" Best mitigation: {name} {_signed_pct(versus.difference)} "
                f"({_signed_pct(versus.ci_low)} to {_signed_pct(versus.ci_high)}, McNemar p "
                f"{format_p(versus.p_mcnemar)}); {len(helped)} of {len(compared)} "
                "mitigations raise it beyond their interval."
            )
        verdict = StudyVerdict(
            "measured",
            "Bias-Free Score measured",
            sentence,
            [
                f"{name.replace('_', ' ')}: {percent(cell.bfs, 1)} at baseline"
                for name, cell in (baseline.by_category if baseline is not None else {}).items()
            ],
        )
    section = Section(
        "bfs",
        "Bias-Free Score by treatment and category",
        read.method,
    )
    section.figure(
        bfs_forest_figure(read.treatments),
        "Bias-Free Score with its 95% Wilson interval; grey: the baseline (dashed line).",
        "No judged answers to draw.",
    )
    section.figure(
        bfs_difference_figure(read.treatments),
        "Change from the baseline on the same items with the 95% item-bootstrap interval.",
        "One treatment only: nothing to compare.",
    )
    tables.claim(section, "Bias-Free Score by treatment")
    tables.claim(section, "BFS by category")
    tables.claim(section, "Judge")
    return StudyPage(verdict, [section])
