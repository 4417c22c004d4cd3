"""Identity-labelled answer pairs shown to a judge, shared by the studies that need them.

B-score on judges and the label-bias study both show a judge the MALIBU contrastive-pair
prompt: a task from the project's scenarios, the two near-identical responses a responder
wrote for it (response 2 rewrites response 1 with the same steps), each labelled with an
identity. An *arrangement* says which identity is shown first and which response it carries;
the four arrangements of a pair counterbalance position against label and content.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from fairpanel.agents import Message
from fairpanel.inputs import InputFileError, Problem
from fairpanel.judging.experiment import ScenarioSelection
from fairpanel.judging.protocol import (
    PairJudgment,
    judge_ask,
    judge_context,
    output_schema,
    parse_judgment,
    responder_messages,
    rewrite_messages,
)
from fairpanel.personas import IdentitySet, load_identities
from fairpanel.scenarios import DerivedScenario, load_scenarios, select_bases
from fairpanel.studies._base import ModelUse, ResolvedModel, _Strict, path_from

if TYPE_CHECKING:
    from fairpanel.studies._context import StudyContext

__all__ = [
    "ARRANGEMENTS",
    "POSITIONS",
    "Arrangement",
    "PairSource",
    "Verdict",
    "pair_prompt",
    "pair_schema",
    "read_verdict",
    "responses_for",
]

POSITIONS = ("A", "B")


class Arrangement(BaseModel):
    """Who is shown first, and which response (1 or 2) the first-shown identity carries."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    first: str
    second: str
    first_response: Literal[1, 2]

    def identity_at(self, position: str) -> str:
        return self.first if position == POSITIONS[0] else self.second

    def response_at(self, position: str) -> int:
        second_response = 3 - self.first_response
        return self.first_response if position == POSITIONS[0] else second_response

    def position_of_response(self, response: int) -> str:
        return POSITIONS[0] if self.first_response == response else POSITIONS[1]


ARRANGEMENTS = tuple(itertools.product((0, 1), (1, 2)))
"""(index of the identity shown first, response it carries): the four counterbalanced cells."""


def arrangement(pair: tuple[str, str], cell: tuple[int, int]) -> Arrangement:
    first_index, first_response = cell
    return Arrangement(
        first=pair[first_index],
        second=pair[1 - first_index],
        first_response=1 if first_response == 1 else 2,
    )


class PairSource(_Strict):
    """Where identity-labelled pairs come from: scenarios, a responder, identity pairs."""

    responder: ModelUse = Field(
        default=ModelUse(), description="Writes response 1 and its rewrite for every scenario"
    )
    scenarios: ScenarioSelection = ScenarioSelection(bases="all", derived_per_base=1)
    pairs: list[tuple[str, str]] = Field(
        default_factory=lambda: [("female", "male")],
        min_length=1,
        description="Identity label pairs compared (labels from the identity file)",
    )
    identities_file: str | None = Field(
        default=None, description="Identity YAML file; the built-in set when empty"
    )

    def identity_set(self) -> IdentitySet:
        return load_identities(Path(self.identities_file) if self.identities_file else None)

    def tasks(self) -> list[DerivedScenario]:
        files = [Path(f) for f in self.scenarios.files]
        bases = select_bases(
            load_scenarios(files or None),
            ids=self.scenarios.bases,
            domains=self.scenarios.domains,
            sample=self.scenarios.sample,
            seed=0,  # a study samples its bases with seed 0, so every study sees the same ones
        )
        chosen = []
        for base in bases:
            derived = base.derived()
            chosen.extend(derived[: self.scenarios.derived_per_base or len(derived)])
        return chosen

    def phrases(self) -> dict[str, str]:
        """Every compared label with the phrase shown to the judge ("a female")."""
        identities = self.identity_set()
        return {label: identities.identity(label).explicit for pair in self.pairs for label in pair}

    def problems(self, where: tuple[str | int, ...]) -> list[Problem]:
        found: list[Problem] = []
        try:
            identities = self.identity_set()
        except InputFileError as exc:
            return [((*where, "identities_file"), "; ".join(exc.problems))]
        known = {i.label for i in identities.all_identities()}
        for index, pair in enumerate(self.pairs):
            if pair[0] == pair[1]:
                found.append(((*where, "pairs", index), "a pair needs two different labels"))
            for side, label in enumerate(pair):
                if label not in known:
                    found.append(
                        ((*where, "pairs", index, side), f"unknown identity label {label!r}")
                    )
        try:
            tasks = self.tasks()
        except InputFileError as exc:
            return [*found, ((*where, "scenarios", "files"), "; ".join(exc.problems))]
        if not tasks:
            found.append(((*where, "scenarios", "bases"), "no scenario matches"))
        return found

    def with_paths_from(self, base: Path) -> PairSource:
        files = [path_from(base, f) for f in self.scenarios.files]
        return self.model_copy(
            update={
                "scenarios": self.scenarios.model_copy(update={"files": files}),
                "identities_file": path_from(base, self.identities_file or None),
            }
        )


def iter_pair_cells(source: PairSource) -> Iterator[tuple[DerivedScenario, tuple[str, str]]]:
    yield from itertools.product(source.tasks(), source.pairs)


def _messages(*pairs: tuple[str, str]) -> list[Message]:
    return [Message.model_validate({"role": role, "content": text}) for role, text in pairs]


async def responses_for(
    task: str, responder: ResolvedModel, context: StudyContext
) -> tuple[str, str]:
    """Response 1 and its rewrite (the same steps in other words), through the run's cache:
    every item on the same task gets the same two texts."""
    first = await context.ask(responder, _messages(*responder_messages(task)), role="responder")
    second = await context.ask(
        responder, _messages(*rewrite_messages(task, first.text)), role="responder"
    )
    return first.text, second.text


def pair_prompt(
    task: str,
    responses: tuple[str, str],
    shown: Arrangement,
    phrases: dict[str, str],
    note: str | None = None,
) -> str:
    """The contrastive-pair prompt in one user message (context, then the ask), so that a
    conversation can repeat it with a new arrangement every turn. ``note`` is a line for the
    judge after the candidates (a bandwagon manipulation's)."""
    candidates = [
        (phrases[shown.identity_at(p)], responses[shown.response_at(p) - 1]) for p in POSITIONS
    ]
    return f"{judge_context(task, candidates, note=note)}\n\n{judge_ask(2)}"


def pair_schema() -> dict[str, Any]:
    return output_schema("pair")


class Verdict(BaseModel):
    """A judge's pair answer as read: the winning position and the scores, or why not."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    winner: str | None
    scores: dict[str, dict[str, float]] | None
    error: str | None


def read_verdict(text: str) -> Verdict:
    parsed = parse_judgment(text, "pair")
    if not isinstance(parsed, PairJudgment):
        return Verdict(winner=None, scores=None, error=parsed)
    return Verdict(winner=parsed.winner, scores=parsed.scores(), error=None)
