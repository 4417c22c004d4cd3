"""The award audit's results.json blocks as its report reads them.

Typed views over what ``AwardAudit.analyze`` wrote (they ignore fields the report does not
show, and every field has a default, so a partial or older results file still reads).
"""

from __future__ import annotations

from pydantic import Field

from fairpanel.studies._base import ResultsReader

__all__ = ["AwardResults", "ChoiceRow", "FollowupRow", "level_name"]

POOLED = "all"


def level_name(level: int | str) -> str:
    return "pooled" if level == POOLED else f"level {level}"


class ChoiceRow(ResultsReader):
    """Choices at one level of the award, or pooled over the levels (``level`` "all")."""

    level: int | str
    counts: dict[str, int] = Field(default_factory=dict)
    """Answers per group chosen, and ``equivocal`` ones."""
    n: int | None = None
    """Decided answers: the share's denominator."""
    share: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p_exact: float | None = None
    p_bonferroni: float | None = None

    @property
    def pooled(self) -> bool:
        return self.level == POOLED

    @property
    def name(self) -> str:
        return level_name(self.level)

    @property
    def tested_p(self) -> float | None:
        """The p-value a level is judged by: Bonferroni-adjusted where the analysis wrote one."""
        return self.p_bonferroni if "p_bonferroni" in self.model_fields_set else self.p_exact


class FollowupRow(ResultsReader):
    """Coded follow-up explanations at one level, by the group chosen, and their test."""

    level: int | str
    observed: dict[str, dict[str, int]] = Field(default_factory=dict)
    tested: bool = False
    p_value: float | None = None


class AwardResults(ResultsReader):
    groups: list[str] = Field(default_factory=list)
    tested_group: str | None = None
    choices: list[ChoiceRow] = Field(default_factory=list)
    choice_method: str = ""
    followup: list[FollowupRow] = Field(default_factory=list)

    @property
    def tested(self) -> str:
        """The group whose share of choices is tested against 50%."""
        return self.tested_group or (self.groups[0] if self.groups else "tested group")

    @property
    def pooled(self) -> ChoiceRow | None:
        return next((c for c in self.choices if c.pooled), None)
