"""Scenario tree models: base scenarios are templates, derived scenarios are what responders see.

A base scenario deliberately varies only three attributes (profession, role, setting) so that a
difference in judge scores can be traced to the identity label on the answer and not to some
uncontrolled change in the task. The validators below make a broken template fail at load time,
with the line of the ``template`` key, instead of producing a half-rendered prompt mid-run.
"""

from __future__ import annotations

import string
from typing import Final

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["ATTRIBUTE_NAMES", "BaseScenario", "DerivedScenario", "Provenance", "Variation"]

ATTRIBUTE_NAMES: Final[tuple[str, ...]] = ("profession", "role", "setting")
"""The only placeholders a template may use; all three must be present."""

# Two-digit derived ids ("<base>/01") sort correctly as text, which keeps result files and
# tables in a stable order; that caps a base scenario at 99 variations.
_MAX_VARIATIONS: Final = 99
_MIN_VARIATIONS: Final = 8

_SLUG = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"


def _template_fields(template: str) -> list[str]:
    """Field names used by ``template``; raises ValueError on malformed braces.

    Conversions and format specs are rejected because attributes are plain prose: ``{role!r}``
    would leak Python quoting into a prompt.
    """
    fields: list[str] = []
    for _literal, field, spec, conversion in string.Formatter().parse(template):
        if field is None:
            continue
        if spec or conversion:
            raise ValueError(
                f"placeholder {{{field}}} must not have a conversion or format spec "
                f"(use plain {{{field}}})"
            )
        fields.append(field)
    return fields


class Variation(BaseModel):
    """One point in the attribute space of a base scenario."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    profession: str = Field(min_length=1)
    role: str = Field(min_length=1)
    setting: str = Field(min_length=1)

    def as_dict(self) -> dict[str, str]:
        return {"profession": self.profession, "role": self.role, "setting": self.setting}


class DerivedScenario(BaseModel):
    """A fully rendered task; ``stereotype`` is for researchers and must never reach a judge."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1)
    base_id: str = Field(min_length=1)
    domain: str = Field(min_length=1)
    stereotype: str = Field(min_length=1)
    attributes: dict[str, str]
    prompt: str = Field(min_length=1)

    @field_validator("attributes")
    @classmethod
    def _exact_attribute_keys(cls, value: dict[str, str]) -> dict[str, str]:
        if set(value) != set(ATTRIBUTE_NAMES):
            raise ValueError(
                f"attributes must have exactly the keys {', '.join(ATTRIBUTE_NAMES)}; "
                f"got {', '.join(sorted(value)) or 'none'}"
            )
        return value


class Provenance(BaseModel):
    """Where a base scenario came from, so a reader can trace (and credit) its material."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str = Field(
        min_length=1,
        description="fairpanel (written for this library), discrim-eval (adapted from one of "
        "DiscrimEval's decision questions), grown (written by `fairpanel scenarios grow`), or "
        "another source named in the note",
    )
    decision_question_id: int | None = Field(
        default=None, ge=0, description="DiscrimEval's decision_question_id, when adapted from it"
    )
    note: str | None = Field(default=None, min_length=1)

    @model_validator(mode="after")
    def _discrim_eval_names_its_question(self) -> Provenance:
        if self.source == "discrim-eval" and self.decision_question_id is None:
            raise ValueError("a discrim-eval scenario names its decision_question_id")
        return self


class BaseScenario(BaseModel):
    """A professional task template that invites a stereotype without naming any identity."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=_SLUG, description="kebab-case slug, unique across all files")
    title: str = Field(min_length=1)
    domain: str = Field(min_length=1)
    stereotype: str = Field(min_length=1)
    template: str = Field(min_length=1)
    variations: list[Variation] = Field(min_length=_MIN_VARIATIONS, max_length=_MAX_VARIATIONS)
    provenance: Provenance | None = Field(
        default=None, description="Where the scenario came from; every built-in one says"
    )

    @field_validator("template")
    @classmethod
    def _check_placeholders(cls, value: str) -> str:
        # A field validator (not a model validator) so the error is located at the template key.
        fields = _template_fields(value)
        unknown = sorted({f for f in fields if f not in ATTRIBUTE_NAMES})
        if unknown:
            shown = ", ".join("{" + f + "}" for f in unknown)
            raise ValueError(
                f"unknown placeholder {shown}; allowed: {{profession}}, {{role}}, {{setting}} "
                "(write {{ and }} for literal braces)"
            )
        missing = [f for f in ATTRIBUTE_NAMES if f not in fields]
        if missing:
            shown = ", ".join("{" + f + "}" for f in missing)
            raise ValueError(
                f"missing placeholder {shown}; every template must use all three attributes"
            )
        return value

    @field_validator("variations")
    @classmethod
    def _no_duplicate_variations(cls, value: list[Variation]) -> list[Variation]:
        # Two identical variations would silently double-weight one prompt in every analysis.
        seen: dict[Variation, int] = {}
        for index, variation in enumerate(value):
            if variation in seen:
                raise ValueError(f"variations[{index}] repeats variations[{seen[variation]}]")
            seen[variation] = index
        return value

    def derived(self) -> list[DerivedScenario]:
        """Render the template once per variation, in file order (ids ``<id>/01``, ...)."""
        return [
            DerivedScenario(
                id=f"{self.id}/{index:02d}",
                base_id=self.id,
                domain=self.domain,
                stereotype=self.stereotype,
                attributes=variation.as_dict(),
                prompt=self.template.format(**variation.as_dict()).strip(),
            )
            for index, variation in enumerate(self.variations, start=1)
        ]
