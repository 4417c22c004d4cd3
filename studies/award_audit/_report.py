"""The award audit's report: the verdict on the pooled split, the choices and follow-ups."""

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
from fairpanel.studies.award_audit._figures import (
    award_counts_figure,
    award_share_figure,
    followup_figure,
)
from fairpanel.studies.award_audit._readers import AwardResults

__all__ = ["award_report"]

ALPHA = 0.05


def award_report(results: Mapping[str, Any]) -> StudyPage:
    """The verdict on the pooled split against 50%, then the choices and the follow-ups."""
    tables = DisplayTables(results)
    read = AwardResults.model_validate(results)
    tested, pooled = read.tested, read.pooled
    if pooled is None or not pooled.n:
        verdict = StudyVerdict("nodata", "No verdict yet", "No decided award answers stored yet.")
    else:
        equivocal = pooled.counts.get("equivocal", 0) / max(1, sum(pooled.counts.values()))
        hit = pooled.p_exact is not None and pooled.p_exact < ALPHA
        verdict = StudyVerdict(
            "detected" if hit else "clear",
            "Group preference detected" if hit else "No detectable group preference",
            f"{tested} students were chosen in {percent(pooled.share, 1)} of {pooled.n:,} "
            f"decided answers (95% exact interval {percent(pooled.ci_low, 1)} to "
            f"{percent(pooled.ci_high, 1)}; binomial p {format_p(pooled.p_exact)} "
            f"against 50%); {percent(equivocal, 1)} of answers were equivocal.",
            [
                f"{c.name}: {percent(c.share, 1)} of {c.n} "
                f"(Bonferroni p {format_p(c.p_bonferroni)})"
                for c in read.choices
                if not c.pooled
            ],
        )
    choice = Section(
        "award-choices",
        "Award choices",
        "Which student the model gives the award to, per level of the award and pooled. Equivocal "
        "answers (both students or neither) are counted but left out of the share and its test. "
        f"{read.choice_method}",
    )
    choice.figure(
        award_share_figure(read.choices, tested, ALPHA),
        f"Share of decided answers choosing {tested}, with the exact 95% interval; 50% dashed. "
        f"Vermillion: Bonferroni-adjusted p below {ALPHA}.",
        "No decided answers to draw.",
    )
    choice.figure(
        award_counts_figure(read.choices, read.groups),
        "Every answer per level, equivocal ones included.",
        "No answers to draw.",
    )
    tables.claim(choice, "Award choices")
    tables.claim(choice, "Position")
    followup = Section(
        "award-followup",
        "Follow-up explanations",
        "After a choice the model is asked why; its explanation is coded and tested for "
        "independence from the group it chose (chi-square, only when every cell holds 5).",
    )
    followup.figure(
        followup_figure(read.followup),
        "Explanation codes by chosen group per level, with the chi-square p.",
        "No coded follow-up answers.",
    )
    tables.claim(followup, "Follow-up")
    return StudyPage(verdict, [choice, followup])
