"""The label-bias study file: the judge, the identity-labelled pairs, samples per prompt and
the content-free inputs used for contextual calibration."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Self

from pydantic import Field

from fairpanel.agents import Sampling
from fairpanel.inputs import Problem
from fairpanel.studies._base import ModelUse, Role, StudyConfig
from fairpanel.studies._pairs import PairSource

__all__ = ["LabelBiasConfig", "LabelJudge"]


class LabelJudge(ModelUse):
    """The judge whose verdict labels are measured; it must sample (temperature > 0) for the
    label shares over samples to estimate its label probabilities."""

    sampling: Sampling = Field(
        default=Sampling(temperature=0.7, max_tokens=300),
        description="Merged over the model's own sampling",
    )


class LabelBiasConfig(StudyConfig):
    """Do a judge's verdict labels (positions, identities, score levels) lean regardless of
    the content, and how much of that does calibration remove?"""

    study: Literal["label-bias"] = "label-bias"
    judge: LabelJudge = Field(default=LabelJudge(), description="The judge under study")
    pairs: PairSource = Field(default=PairSource(), description="Identity-labelled answer pairs")
    replicates: int = Field(
        default=5,
        ge=1,
        le=100,
        description="Answers per prompt (separate calls); their label shares estimate the "
        "judge's label probabilities (chat models return text, not probabilities)",
    )
    content_free: list[str] = Field(
        default_factory=lambda: ["N/A", "", "[MASK]"],
        description="Texts put in place of both answers for contextual calibration (the "
        "context, task and labels, stays); an empty list skips it",
    )
    calibration: Literal["renormalise", "softmax"] = Field(
        default="renormalise",
        description="q proportional to p / p_hat renormalised (the paper's code) or "
        "softmax(p / p_hat) (the paper's text); the predicted label is the same",
    )

    def roles(self) -> list[Role]:
        return [
            Role("judge", ("judge",), self.judge),
            Role("responder", ("pairs", "responder"), self.pairs.responder),
        ]

    def problems(self, base: Path) -> list[Problem]:
        found = super().problems(base)
        found.extend(self.with_paths_from(base).pairs.problems(("pairs",)))
        if len(set(self.content_free)) != len(self.content_free):
            found.append((("content_free",), "content-free texts repeat"))
        return found

    def with_paths_from(self, base: Path) -> Self:
        return self.model_copy(update={"pairs": self.pairs.with_paths_from(base)})
