"""The B-score study file: which questions (the paper's set and/or judge pairs), how many
single-turn queries and multi-turn turns per run, and how answers are read and verified."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Self

from pydantic import Field, model_validator

from fairpanel.agents import Sampling
from fairpanel.inputs import InputFileError, Problem
from fairpanel.studies._base import ModelUse, Role, StudyConfig, _Strict, path_from
from fairpanel.studies._pairs import PairSource
from fairpanel.studies.bscore._data import (
    Question,
    builtin_answers_path,
    builtin_questions_path,
    load_questions,
)

__all__ = ["BscoreConfig", "BscoreModel", "QuestionSet", "VerificationConfig"]


class BscoreModel(ModelUse):
    """The model whose answers are scored; sampling must vary its answers (temperature > 0)."""

    sampling: Sampling = Field(
        default=Sampling(temperature=0.7, max_tokens=60),
        description="Merged over the model's own sampling (the paper used each provider's "
        "default temperature, 0.3 to 1.0)",
    )


class QuestionSet(_Strict):
    """Questions with a fixed option list, asked with a {{choice}} instruction."""

    file: str | None = Field(
        default=None,
        description="JSON-lines question file (topic, category, question[, options, answer]); "
        "the paper's 36 questions when empty",
    )
    answers_file: str | None = Field(
        default=None,
        description="YAML with options per topic and answers per 'topic/category'; the "
        "built-in annotations when `file` is empty",
    )
    topics: list[str] | None = Field(default=None, description="Only these topics")
    categories: list[str] | None = Field(default=None, description="Only these categories")

    def paths(self) -> tuple[Path, Path | None]:
        if self.file is None:
            return builtin_questions_path(), Path(self.answers_file or builtin_answers_path())
        return Path(self.file), Path(self.answers_file) if self.answers_file else None

    def load(self) -> list[Question]:
        questions = load_questions(*self.paths())
        return [
            q
            for q in questions
            if (self.topics is None or q.topic in self.topics)
            and (self.categories is None or q.category in self.categories)
        ]


class VerificationConfig(_Strict):
    """The answer-verification analysis (paper Section 5.4): which categories take part."""

    random_categories: list[str] = Field(
        default_factory=lambda: ["random"],
        description="Categories whose answer should be accepted when P_single <= 1/K",
    )
    truth_categories: list[str] = Field(
        default_factory=lambda: ["objective", "hard"],
        description="Categories whose answer should be accepted when it is the correct one",
    )


class BscoreConfig(StudyConfig):
    """Is an answer chosen more often alone than when the model sees its earlier answers?"""

    study: Literal["bscore"] = "bscore"
    model: BscoreModel = Field(default=BscoreModel(), description="The model under test")
    questions: QuestionSet | None = Field(
        default=QuestionSet(), description="Questions with options; null to skip them"
    )
    judge_pairs: PairSource | None = Field(
        default=None,
        description="Identity-swapped answer pairs judged by `model` (the MALIBU pair prompt)",
    )
    replicates: int = Field(
        default=10, ge=1, le=100, description="Independent runs per question (the paper: 10)"
    )
    single_turn_queries: int = Field(
        default=30, ge=1, le=500, description="Fresh-chat queries per run (the paper: 30)"
    )
    multi_turn_turns: int = Field(
        default=30, ge=1, le=500, description="Turns of the one conversation per run (30)"
    )
    confidence: bool = Field(
        default=True, description="Ask for a confidence after every single-turn answer"
    )
    shuffle_options: bool = Field(
        default=True, description="Shuffle the option order for every query and turn"
    )
    shuffle_history: bool = Field(
        default=False,
        description="Shuffle the earlier (question, answer) pairs before each turn (a detail "
        "of the paper's code, not of the paper)",
    )
    match: Literal["exact", "casefold"] = Field(
        default="exact",
        description="How an extracted answer must match an option: exactly (the paper) or "
        "ignoring case",
    )
    denominator: Literal["valid", "all"] = Field(
        default="valid",
        description="Headline P_single/P_multi over valid answers (the paper's code) or over "
        "all queries (the paper's text); both are in results.json",
    )
    verification: VerificationConfig = VerificationConfig()
    bootstrap_resamples: int = Field(
        default=2000,
        ge=200,
        le=100_000,
        description="Resamples of the bootstrap over questions behind the B intervals",
    )

    @model_validator(mode="after")
    def _something_to_ask(self) -> Self:
        if self.questions is None and self.judge_pairs is None:
            raise ValueError("set `questions`, `judge_pairs` or both")
        return self

    def roles(self) -> list[Role]:
        roles = []
        if self.questions is not None:
            roles.append(Role("answerer", ("model",), self.model))
        if self.judge_pairs is not None:
            roles.append(Role("judge", ("model",), self.model))
            roles.append(
                Role("responder", ("judge_pairs", "responder"), self.judge_pairs.responder)
            )
        return roles

    def problems(self, base: Path) -> list[Problem]:
        found = super().problems(base)
        resolved = self.with_paths_from(base)
        if resolved.questions is not None:
            try:
                if not resolved.questions.load():
                    found.append((("questions",), "no question matches topics and categories"))
            except InputFileError as exc:
                found.append((("questions", "file"), "; ".join(exc.problems)))
        if resolved.judge_pairs is not None:
            found.extend(resolved.judge_pairs.problems(("judge_pairs",)))
        return found

    def with_paths_from(self, base: Path) -> Self:
        update: dict[str, object] = {}
        if self.questions is not None:
            update["questions"] = self.questions.model_copy(
                update={
                    "file": path_from(base, self.questions.file),
                    "answers_file": path_from(base, self.questions.answers_file),
                }
            )
        if self.judge_pairs is not None:
            update["judge_pairs"] = self.judge_pairs.with_paths_from(base)
        return self.model_copy(update=update)
