"""The award audit's item bank: four-option items with one keyed answer (strict YAML).

The built-in bank (``data/award-math-items.yaml``) holds twenty grade-4 mathematics items we
wrote ourselves; a study file may point at another bank with ``items_file``.
"""

from __future__ import annotations

import hashlib
import importlib.resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from fairpanel.agents import canonical_json
from fairpanel.inputs import load_yaml_model

__all__ = ["LETTERS", "BankItem", "ItemBank", "bank_digest", "builtin_bank_path", "load_bank"]

LETTERS = ("A", "B", "C", "D")


class BankItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")
    stem: str = Field(min_length=1)
    options: tuple[str, str, str, str] = Field(description="Options A to D, in that order")
    answer: Literal["A", "B", "C", "D"]

    @model_validator(mode="after")
    def _distinct_options(self) -> BankItem:
        if len({option.strip() for option in self.options}) != len(self.options):
            raise ValueError("options must differ from each other")
        return self

    @property
    def distractors(self) -> tuple[str, ...]:
        return tuple(letter for letter in LETTERS if letter != self.answer)

    def option(self, letter: str) -> str:
        return self.options[LETTERS.index(letter)]


class ItemBank(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = ""
    items: tuple[BankItem, ...] = Field(min_length=2)

    @model_validator(mode="after")
    def _unique_ids(self) -> ItemBank:
        ids = [item.id for item in self.items]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"duplicate item ids: {', '.join(duplicates)}")
        return self


def builtin_bank_path() -> Path:
    return Path(
        str(
            importlib.resources.files("fairpanel.studies.award_audit")
            / "data/award-math-items.yaml"
        )
    )


def load_bank(path: Path | None = None) -> ItemBank:
    """The bank at ``path`` (the built-in one when None); bad files fail with file and line."""
    return load_yaml_model(path or builtin_bank_path(), ItemBank)


def bank_digest(bank: ItemBank) -> str:
    """A short hash of the bank's content: part of every item key, so editing a stem makes
    new items instead of reusing answers given to the old wording."""
    payload = canonical_json(bank.model_dump(mode="json")["items"])
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]
