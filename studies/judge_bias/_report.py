"""The judge-bias study's page: the manipulations Holm calls, then the rates and the table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fairpanel.report import DisplayTables, Section, StudyPage, StudyVerdict, format_p, percent
from fairpanel.studies.judge_bias._figures import sensitivity_figure
from fairpanel.studies.judge_bias._readers import JudgeBiasResults

__all__ = ["judge_bias_report"]


def judge_bias_report(results: Mapping[str, Any]) -> StudyPage:
    """Detected when Holm calls a manipulation (the control aside), clear when none."""
    tables = DisplayTables(results)
    read = JudgeBiasResults.model_validate(results)
    measured = [row for row in read.manipulations if row.n_pairs]
    if not measured:
        verdict = StudyVerdict("nodata", "No verdict yet", "No judged pairs stored yet.")
    else:
        called = [row for row in measured if row.called and not row.control]
        details = [
            f"{row.label}: {percent(row.rate, 1)} bias-sensitive ({percent(row.ci_low, 1)} to "
            f"{percent(row.ci_high, 1)}), reverse {percent(row.reverse, 1)}, "
            f"Holm p {format_p(row.p_holm)}"
            for row in measured
        ]
        sentence = f"Accuracy untouched {percent(read.accuracy_untouched, 1)}. " + (
            f"{len(called)} of {len(measured) - sum(r.control for r in measured)} "
            "manipulations of the wrong answer turn right verdicts wrong more often than the "
            f"reverse: {', '.join(row.label for row in called)}."
            if called
            else "No manipulation of the wrong answer changes the verdicts beyond chance."
        )
        if any(row.called and row.control for row in measured):
            sentence += " The same-text control is called too: read the others with care."
        verdict = StudyVerdict(
            "detected" if called else "clear",
            "Bias-sensitive" if called else "No manipulation called",
            sentence,
            details,
        )
    section = Section("judge-bias", "Bias-sensitive rate by manipulation", read.method)
    section.figure(
        sensitivity_figure(read.manipulations),
        "Bias-sensitive rate with its 95% item-bootstrap interval (vermillion: called by "
        "Holm); grey square: the reverse share.",
        "No judged pairs to draw.",
    )
    tables.claim(section, "Bias-sensitive rate by manipulation")
    tables.claim(section, "Bias-sensitive rate by BBQ category")
    return StudyPage(verdict, [section])
