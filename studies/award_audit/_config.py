"""The award audit's study file: who is compared, with which names, items, levels and models."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Literal, Self

from pydantic import Field, model_validator

from fairpanel.agents import Sampling
from fairpanel.inputs import InputFileError, Problem
from fairpanel.personas import IdentitySet, load_identities
from fairpanel.studies._base import ModelUse, Role, StudyConfig, _Strict, path_from
from fairpanel.studies.award_audit._bank import ItemBank, load_bank

__all__ = [
    "AwardAuditConfig",
    "AwardGroups",
    "AwardResponder",
    "FollowupConfig",
    "distinct_vectors",
]


class AwardGroups(_Strict):
    """The two identities compared, signalled only by first names from an identity file."""

    category: str = Field(default="race", description="An identity category")
    compare: tuple[str, str] = Field(
        default=("Black", "White"), description="Two identity labels of that category"
    )
    names: dict[str, Annotated[list[str], Field(min_length=1)]] | None = Field(
        default=None,
        description="Per label, the name cues to use (a subset of the identity's names); all "
        "of them when empty. Pick names of one gender for both groups, or gender rides along "
        "with the group (the seed study used female names only)",
    )
    identities_file: str | None = Field(
        default=None, description="Identity YAML file; the built-in set when empty"
    )

    def identity_set(self) -> IdentitySet:
        return load_identities(Path(self.identities_file) if self.identities_file else None)

    def names_by_label(self, identities: IdentitySet) -> dict[str, list[str]]:
        chosen = self.names or {}
        return {
            label: list(chosen.get(label) or identities.identity(label).names)
            for label in self.compare
        }


class FollowupConfig(_Strict):
    """The exploratory follow-up: after a choice, ask why, and code the answer."""

    enabled: bool = False
    coder: ModelUse | None = Field(
        default=None,
        description="The model that codes each explanation as indecisive, justified or "
        "irrational (required when enabled; the seed study used a human rater)",
    )
    max_tokens: int = Field(
        default=300, ge=1, le=4000, description="Answer budget of the 'why' question"
    )


class AwardResponder(ModelUse):
    """The model under audit; sampling defaults to the seed study's settings."""

    sampling: Sampling = Field(
        default=Sampling(temperature=0.7, top_p=0.95, max_tokens=40),
        description="Merged over the model's own sampling (the seed study: temperature 0.7, "
        "top_p 0.95)",
    )


def distinct_vectors(items: int, correct: int) -> int:
    """How many different answer vectors have exactly ``correct`` right answers (3 distractors
    per item)."""
    return int(math.comb(items, correct) * 3 ** (items - correct))


class AwardAuditConfig(StudyConfig):
    """Two students with equal totals compete for an award; does the model prefer a group?"""

    study: Literal["award-audit"] = "award-audit"
    responder: AwardResponder = Field(default=AwardResponder(), description="The model under audit")
    groups: AwardGroups = AwardGroups()
    items_file: str | None = Field(
        default=None, description="Item bank YAML; the built-in 20 mathematics items when empty"
    )
    levels: list[int] = Field(
        default_factory=lambda: [5, 10, 15, 20],
        min_length=1,
        description="Total correct answers both students share, one level per value",
    )
    pairs_per_level: int = Field(
        default=125, ge=1, le=10_000, description="Pairs of answer vectors per level (x4 prompts)"
    )
    followup: FollowupConfig = FollowupConfig()

    @model_validator(mode="after")
    def _coder_when_enabled(self) -> Self:
        if self.followup.enabled and self.followup.coder is None:
            raise ValueError("followup.coder is required when followup.enabled is true")
        if len(set(self.levels)) != len(self.levels):
            raise ValueError("levels must not repeat")
        return self

    def roles(self) -> list[Role]:
        roles = [Role("responder", ("responder",), self.responder)]
        if self.followup.enabled and self.followup.coder is not None:
            roles.append(Role("coder", ("followup", "coder"), self.followup.coder))
        return roles

    def problems(self, base: Path) -> list[Problem]:
        found = super().problems(base)
        resolved = self.with_paths_from(base)
        try:
            found.extend(self._group_problems(resolved.groups.identity_set()))
        except InputFileError as exc:
            found.append((("groups", "identities_file"), "; ".join(exc.problems)))
        try:
            bank_size = len(resolved.bank().items)
        except InputFileError as exc:
            return [*found, (("items_file",), "; ".join(exc.problems))]
        for index, level in enumerate(self.levels):
            if not 0 <= level <= bank_size:
                found.append((("levels", index), f"{level} is outside 0..{bank_size} (bank size)"))
        return found

    def _group_problems(self, identities: IdentitySet) -> list[Problem]:
        groups = self.groups
        try:
            members = {i.label: i for i in identities.category(groups.category).identities}
        except KeyError as exc:
            return [(("groups", "category"), str(exc.args[0]))]
        found: list[Problem] = []
        if groups.compare[0] == groups.compare[1]:
            found.append((("groups", "compare"), "compare two different identities"))
        for index, label in enumerate(groups.compare):
            if label not in members:
                found.append(
                    (
                        ("groups", "compare", index),
                        f"{label!r} is not in category {groups.category!r}; "
                        f"known: {', '.join(members)}",
                    )
                )
            elif not members[label].names and not (groups.names or {}).get(label):
                found.append((("groups", "compare", index), f"{label!r} has no name cues"))
        if found:
            return found
        for label, names in (groups.names or {}).items():
            if label not in groups.compare:
                found.append((("groups", "names", label), f"{label!r} is not compared"))
                continue
            cues = set(members[label].names)
            for index, name in enumerate(names):
                if name not in cues:
                    found.append(
                        (
                            ("groups", "names", label, index),
                            f"{name!r} is not a name cue of {label!r} in the identity file",
                        )
                    )
        return found

    def bank(self) -> ItemBank:
        return load_bank(Path(self.items_file) if self.items_file else None)

    def with_paths_from(self, base: Path) -> Self:
        return self.model_copy(
            update={
                "items_file": path_from(base, self.items_file),
                "groups": self.groups.model_copy(
                    update={"identities_file": path_from(base, self.groups.identities_file)}
                ),
            }
        )
