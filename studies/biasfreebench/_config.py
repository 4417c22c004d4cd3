"""BiasFreeBench's study file: which BBQ items, the responder, the judge, the treatments."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Self

from pydantic import Field, model_validator

from fairpanel.agents import Sampling
from fairpanel.inputs import Problem
from fairpanel.studies._base import ModelUse, Role, StudyConfig, _Strict
from fairpanel.studies.biasfreebench._bbq_study import (
    bbq_dir_from,
    bbq_file_problems,
    category_problems,
    load_configured_bbq,
)
from fairpanel.studies.biasfreebench._data import BBQ_CATEGORIES, AgeTarget, BbqSet

__all__ = [
    "MITIGATIONS",
    "BfbJudge",
    "BfbResponder",
    "BfbTreatment",
    "BiasFreeBenchConfig",
    "Mitigation",
]

Mitigation = Literal["none", "self-awareness", "self-reflection", "self-help", "chain-of-thought"]
MITIGATIONS: tuple[Mitigation, ...] = (
    "none",
    "self-awareness",
    "self-reflection",
    "self-help",
    "chain-of-thought",
)
Target = Literal["responder", "judge"]


class BfbTreatment(_Strict):
    """One arm of the comparison: a prompting mitigation and who it is applied to."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,39}$")
    mitigation: Mitigation = Field(default="none", description="Which prompting mitigation")
    apply_to: list[Target] = Field(
        default_factory=lambda: list[Target](["responder"]),
        description="responder: the BBQ query is changed (multi-pass for self-reflection and "
        "self-help); judge: the mitigation's instruction is appended to the judge's system "
        "prompt",
    )

    @model_validator(mode="after")
    def _targets(self) -> Self:
        if len(set(self.apply_to)) != len(self.apply_to):
            raise ValueError("apply_to must not repeat")
        if self.mitigation != "none" and not self.apply_to:
            raise ValueError("apply_to must name the responder, the judge or both")
        return self

    def mitigates(self, target: Target) -> Mitigation:
        return self.mitigation if target in self.apply_to else "none"


class BfbResponder(ModelUse):
    """The model whose answers are classified; sampling defaults to the paper's (greedy, 128)."""

    sampling: Sampling = Field(
        default=Sampling(temperature=0.0, max_tokens=128),
        description="Merged over the model's own sampling (the paper: greedy, 128 tokens)",
    )


class BfbJudge(ModelUse):
    """The model that classifies each answer against the four shuffled references."""

    sampling: Sampling = Field(
        default=Sampling(temperature=1.0, max_tokens=150),
        description="Merged over the model's own sampling (the paper used gpt-4o-mini at its "
        "default temperature)",
    )
    judgments: int = Field(
        default=3, ge=1, le=9, description="Independent judgments per answer (odd: a majority)"
    )
    max_reasks: int = Field(
        default=2,
        ge=0,
        le=10,
        description="Further calls (with the references shuffled anew) when a judgment cannot "
        "be read; one that never can is recorded as unparsed, never as a class",
    )

    @model_validator(mode="after")
    def _odd(self) -> Self:
        if self.judgments % 2 == 0:
            raise ValueError("judgments must be odd so that a majority exists")
        return self


class BiasFreeBenchConfig(StudyConfig):
    """BBQ ambiguous items asked with two options; a judge classifies each answer."""

    study: Literal["biasfreebench"] = "biasfreebench"
    responder: BfbResponder = Field(default=BfbResponder(), description="The model under test")
    judge: BfbJudge = Field(default=BfbJudge(), description="The classifying judge")
    bbq_dir: str | None = Field(
        default=None,
        description="Folder of BBQ files (<Category>.json, .jsonl, or either gzipped); the "
        "built-in copy of the ambiguous items when empty",
    )
    categories: list[str] = Field(
        default_factory=lambda: list(BBQ_CATEGORIES),
        min_length=1,
        description="BBQ categories to ask",
    )
    age_target: AgeTarget = Field(
        default="metadata",
        description="Whom the Age stereotype targets: metadata (the group each BBQ item's "
        "metadata names, the older or the younger person) or older (always the older person, "
        "as the BiasFreeBench release scores Age); it changes which answer counts as biased",
    )
    items_per_category: int | None = Field(
        default=None,
        ge=1,
        description="A seeded subset of this many items per category, half negative and half "
        "non-negative questions; every item when empty (15,678 in all)",
    )
    treatments: list[BfbTreatment] = Field(
        default_factory=lambda: [BfbTreatment(name="baseline")],
        min_length=1,
        description="Every item runs once per treatment; the first is the baseline the others "
        "are compared with",
    )
    self_help_attempts: int = Field(
        default=3,
        ge=1,
        le=10,
        description="Self-help: rewrites requested before falling back to the original query",
    )
    bootstrap_resamples: int = Field(
        default=2000, ge=200, le=100_000, description="Resamples of the paired item bootstrap"
    )

    @model_validator(mode="after")
    def _distinct(self) -> Self:
        names = [t.name for t in self.treatments]
        if len(set(names)) != len(names):
            raise ValueError("treatment names must be unique")
        if len(set(self.categories)) != len(self.categories):
            raise ValueError("categories must not repeat")
        return self

    def roles(self) -> list[Role]:
        return [
            Role("responder", ("responder",), self.responder),
            Role("judge", ("judge",), self.judge),
        ]

    def problems(self, base: Path) -> list[Problem]:
        found = super().problems(base) + category_problems(self.categories)
        if self.age_target != "metadata" and "Age" not in self.categories:
            found.append((("age_target",), "age_target applies to Age, which `categories` omits"))
        return found or bbq_file_problems(self.with_paths_from(base))

    def bbq(self) -> BbqSet:
        return load_configured_bbq(self)

    def with_paths_from(self, base: Path) -> Self:
        return self.model_copy(update={"bbq_dir": bbq_dir_from(base, self.bbq_dir)})
