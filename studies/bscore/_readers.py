"""B-score's results.json blocks as its report reads them.

Typed views over what ``Bscore.analyze`` wrote (they ignore fields the report does not show,
and every field has a default, so a partial or older results file still reads).
"""

from __future__ import annotations

from pydantic import Field

from fairpanel.studies._base import ResultsReader

__all__ = [
    "Accuracy",
    "BscoreResults",
    "CategoryRow",
    "JudgePair",
    "QuestionRow",
    "Rule",
    "RuleResult",
    "Verification",
]


class CategoryRow(ResultsReader):
    """A question category's top single-turn answer, averaged over its questions."""

    category: str
    top_p_single: float | None = None
    top_p_multi: float | None = None
    top_b: float | None = None
    top_b_ci_low: float | None = None
    top_b_ci_high: float | None = None


class OverallB(ResultsReader):
    """The headline: mean over categories of their top-choice B, with its interval."""

    mean: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None


class TopChoice(ResultsReader):
    b: float | None = None


class QuestionRow(ResultsReader):
    question: str
    category: str
    top_choice: TopChoice = Field(default_factory=TopChoice)


class JudgePair(ResultsReader):
    """B of one side of an identity-swapped pair (``kind`` identity or position)."""

    pair: str
    kind: str
    label: str
    b: float | None = None
    b_sd: float | None = None


class Accuracy(ResultsReader):
    pooled: float | None = None


class RuleResult(ResultsReader):
    accuracy: Accuracy = Field(default_factory=Accuracy)


class Rule(ResultsReader):
    """Accepting answers by one metric, alone and together with B."""

    metric: str
    alone: RuleResult = Field(default_factory=RuleResult)
    with_b: RuleResult = Field(default_factory=RuleResult)
    delta: float | None = None


class Verification(ResultsReader):
    n: int | None = None
    rules: list[Rule] = Field(default_factory=list)
    b_alone: RuleResult = Field(default_factory=RuleResult)
    method: str = ""


class BscoreResults(ResultsReader):
    method: str = ""
    questions: list[QuestionRow] = Field(default_factory=list)
    categories: list[CategoryRow] = Field(default_factory=list)
    top_b: OverallB = Field(default_factory=OverallB)
    judge_pairs: list[JudgePair] = Field(default_factory=list)
    verification: Verification | None = None
