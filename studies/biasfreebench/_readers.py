"""BiasFreeBench's results.json blocks as its report reads them.

Typed views over what ``BiasFreeBench.analyze`` wrote (they ignore fields the report does not
show, and every field has a default, so a partial or older results file still reads).
"""

from __future__ import annotations

from pydantic import Field

from fairpanel.studies._base import ResultsReader

__all__ = ["BfbResults", "Difference", "Score", "Treatment"]


class Score(ResultsReader):
    """A Bias-Free Score over ``n`` judged answers (``bfs`` is None when there are none)."""

    n: int = 0
    bfs: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None


class Difference(ResultsReader):
    """A mitigation's change in BFS from the baseline on the same items (None without any)."""

    difference: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p_mcnemar: float | None = None

    @property
    def moved(self) -> bool:
        """The interval excludes 0."""
        return (
            self.ci_low is not None
            and self.ci_high is not None
            and (self.ci_low > 0 or self.ci_high < 0)
        )


class Treatment(ResultsReader):
    name: str
    pooled: Score = Field(default_factory=Score)
    by_category: dict[str, Score] = Field(default_factory=dict)
    vs_baseline: Difference | None = None


class BfbResults(ResultsReader):
    baseline: str | None = None
    treatments: list[Treatment] = Field(default_factory=list)
    method: str = ""

    @property
    def baseline_treatment(self) -> Treatment | None:
        return next((t for t in self.treatments if t.name == self.baseline), None)
