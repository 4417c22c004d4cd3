"""The judge-bias study file: which BBQ items, the judge, and the manipulations applied to the
wrong answer.

Manipulations are written as in an experiment's ``arms.manipulations`` (a kind's name alone,
or a mapping with ``kind``, an optional ``label`` and the kind's parameters), but only those a
fixed template makes: a kind whose parameters ask for a model (``by: responder``,
``self_preference``) is refused at load, since this study has no responder to write them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Self

from pydantic import Field, model_validator

from fairpanel.agents import Sampling
from fairpanel.inputs import Problem
from fairpanel.judging.manipulation import (
    CONTROL_KIND,
    ManipulationEntry,
    ManipulationSpec,
    entry_problems,
    resolve_manipulation,
    rewrite_ask,
)
from fairpanel.studies._base import ModelUse, Role, StudyConfig
from fairpanel.studies.biasfreebench import (
    BBQ_CATEGORIES,
    AgeTarget,
    BbqSet,
    bbq_dir_from,
    bbq_file_problems,
    category_problems,
    load_configured_bbq,
)

__all__ = ["BiasJudge", "JudgeBiasConfig"]


class BiasJudge(ModelUse):
    """The judge shown each pair of answers; greedy by default, so an untouched pair and its
    manipulated twin differ only by the manipulation."""

    sampling: Sampling = Field(
        default=Sampling(temperature=0.0, max_tokens=300),
        description="Merged over the model's own sampling",
    )


class JudgeBiasConfig(StudyConfig):
    """Does a manipulation of the wrong answer (padding, a citation, a confident tone, other
    reviewers' opinion) turn a judge that picks the right answer into one that picks the
    wrong one? JudgeBiasBench's bias-sensitive rate on BBQ's ambiguous items."""

    study: Literal["judge-bias"] = "judge-bias"
    judge: BiasJudge = Field(default=BiasJudge(), description="The judge under study")
    bbq_dir: str | None = Field(
        default=None,
        description="Folder of BBQ files (<Category>.json, .jsonl, or either gzipped); the "
        "built-in copy of the ambiguous items when empty",
    )
    categories: list[str] = Field(
        default_factory=lambda: list(BBQ_CATEGORIES), min_length=1, description="BBQ categories"
    )
    age_target: AgeTarget = Field(
        default="metadata", description="Whom the Age stereotype targets (see biasfreebench)"
    )
    items_per_category: int | None = Field(
        default=20,
        ge=1,
        description="A seeded subset of this many items per category, half negative and half "
        "non-negative questions; every item when empty",
    )
    manipulations: list[ManipulationEntry] = Field(
        min_length=1,
        description="Each is applied to the wrong answer, in both orders; template kinds only "
        "(verbosity, authority, bandwagon, assertiveness, sentiment, or a plugin's)",
    )
    control: bool = Field(
        default=True,
        description="Add the same-text control: the untouched pair judged again afresh, "
        "through the same test, so the table shows what the rule calls on no change",
    )
    bootstrap_resamples: int = Field(
        default=2000, ge=200, le=100_000, description="Resamples of the item bootstrap"
    )

    @model_validator(mode="after")
    def _distinct(self) -> Self:
        if len(set(self.categories)) != len(self.categories):
            raise ValueError("categories must not repeat")
        return self

    def roles(self) -> list[Role]:
        return [Role("judge", ("judge",), self.judge)]

    def specs(self) -> list[ManipulationSpec]:
        """Every manipulation's spec, the same-text control last (when on)."""
        specs = [entry.resolved() for entry in self.manipulations]
        if self.control:
            specs.append(resolve_manipulation(CONTROL_KIND, {}))
        return specs

    def problems(self, base: Path) -> list[Problem]:
        found = super().problems(base)
        found += _manipulation_problems(self.manipulations)
        found += category_problems(self.categories)
        return found or bbq_file_problems(self.with_paths_from(base))

    def bbq(self) -> BbqSet:
        return load_configured_bbq(self)

    def with_paths_from(self, base: Path) -> Self:
        return self.model_copy(update={"bbq_dir": bbq_dir_from(base, self.bbq_dir)})


def _manipulation_problems(entries: list[ManipulationEntry]) -> list[Problem]:
    """The listing's own problems, then any kind that needs a model to write it."""
    problems, resolved = entry_problems(entries, ("manipulations",), control_field="control")
    for where, spec in resolved:
        if rewrite_ask(spec) is not None:
            problems.append(
                (
                    (*where, "by" if "by" in spec.params else "kind"),
                    f"{spec.label} needs a model to write it, and this study has none: "
                    "use a template kind (by: template)",
                )
            )
    return problems
