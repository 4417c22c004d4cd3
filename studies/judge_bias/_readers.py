"""The judge-bias study's results.json blocks as its report reads them (lenient: every field
has a default, so a partial or older results file still reads)."""

from __future__ import annotations

from pydantic import Field

from fairpanel.studies._base import ResultsReader

__all__ = ["JudgeBiasResults", "Sensitivity"]


class Sensitivity(ResultsReader):
    """One manipulation's bias-sensitive rate and its companions."""

    label: str
    control: bool = False
    n_pairs: int = 0
    accuracy_untouched: float | None = None
    accuracy_manipulated: float | None = None
    rate: float | None = None
    reverse: float | None = None
    excess: float | None = None
    length_ratio: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p_mcnemar: float | None = None
    p_holm: float | None = None
    called: bool = False


class JudgeBiasResults(ResultsReader):
    accuracy_untouched: float | None = None
    manipulations: list[Sensitivity] = Field(default_factory=list)
    method: str = ""
