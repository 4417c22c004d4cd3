"""Identities attached to answers, and the personas of the judges who score them.

Labels are used as keys in result files and analysis tables, so they are short, unique across
the whole set, and restricted to letters, digits and hyphens. Each identity carries two cues:
``explicit`` (stated outright, as MALIBU does) and ``names`` (implicit, via a first name), so
the pipeline can compare how judges react to a stated label versus a name.
"""

from __future__ import annotations

import keyword
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "CategoryName",
    "Explicit",
    "Identity",
    "IdentityCategory",
    "IdentitySet",
    "JudgePersona",
    "Label",
    "Names",
]


def _unique_names(names: list[str]) -> list[str]:
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"duplicate names: {', '.join(duplicates)}")
    return names


def _single_line(text: str) -> str:
    if "\n" in text.strip():
        raise ValueError("must be a single line")
    return text.strip()


# Shared with the file-level models in _load.py so both report the same errors.
Label = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9-]*$")]
CategoryName = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]
Explicit = Annotated[str, Field(min_length=1), AfterValidator(_single_line)]
Names = Annotated[
    list[Annotated[str, Field(min_length=1, pattern=r"^\S(.*\S)?$")]],
    AfterValidator(_unique_names),
]


class Identity(BaseModel):
    """One identity a candidate answer can be attributed to."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    category: CategoryName
    label: Label
    explicit: Explicit = Field(description='noun phrase for "written by {explicit}"')
    names: Names = Field(default_factory=list)


class IdentityCategory(BaseModel):
    """Identities compared against each other (MALIBU pairs only within a category)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: CategoryName
    description: str = Field(min_length=1)
    identities: list[Identity] = Field(min_length=1)

    @model_validator(mode="after")
    def _members_belong(self) -> IdentityCategory:
        # Built in code rather than from YAML, a mismatched category would corrupt grouping.
        for identity in self.identities:
            if identity.category != self.name:
                raise ValueError(
                    f"identity {identity.label!r} has category {identity.category!r} "
                    f"but sits in category {self.name!r}"
                )
        return self


class IdentitySet(BaseModel):
    """All identity categories of one experiment, with lookups that fail loudly."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    categories: list[IdentityCategory] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_keys(self) -> IdentitySet:
        # Labels are global keys in results, so a label may not repeat even across categories.
        names = [c.name for c in self.categories]
        labels = [i.label for i in self.all_identities()]
        for kind, values in (("category name", names), ("identity label", labels)):
            duplicates = sorted({v for v in values if values.count(v) > 1})
            if duplicates:
                raise ValueError(f"duplicate {kind}: {', '.join(duplicates)}")
        return self

    def category(self, name: str) -> IdentityCategory:
        for category in self.categories:
            if category.name == name:
                return category
        known = ", ".join(c.name for c in self.categories)
        raise KeyError(f"unknown identity category {name!r}; known: {known}")

    def identity(self, label: str) -> Identity:
        for identity in self.all_identities():
            if identity.label == label:
                return identity
        known = ", ".join(i.label for i in self.all_identities())
        raise KeyError(f"unknown identity label {label!r}; known: {known}")

    def all_identities(self) -> list[Identity]:
        """Every identity, in file order (category by category)."""
        return [identity for category in self.categories for identity in category.identities]


class JudgePersona(BaseModel):
    """A judge on the panel; responsibilities are split so judges do not echo one another."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="snake_case agent name")
    title: str = Field(min_length=1)
    responsibility: str = Field(min_length=1)
    system_message: str = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _usable_as_agent_name(cls, value: str) -> str:
        # AutoGen agent names must be identifiers; keywords also break generated code/tooling.
        if keyword.iskeyword(value) or not value.isidentifier():
            raise ValueError(f"{value!r} cannot be used as an agent name")
        return value

    @field_validator("title", "responsibility")
    @classmethod
    def _one_line(cls, value: str) -> str:
        return _single_line(value)
