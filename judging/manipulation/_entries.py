"""Manipulations as a file lists them, and the problems a listing can have, each at its place
in the file: shared by experiment files (``arms.manipulations``) and study files."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from fairpanel.inputs import Location, Problem
from fairpanel.judging.manipulation._model import CONTROL_KIND, ManipulationSpec
from fairpanel.judging.manipulation._registry import ManipulationError, resolve_manipulation

__all__ = ["ManipulationEntry", "entry_problems"]


class ManipulationEntry(BaseModel):
    """One manipulation as a file writes it: a kind's name alone (``- authority``) or a
    mapping with ``kind``, an optional ``label`` and the kind's parameters (``ratio: 2``).
    The parameters are checked against the kind at load (``entry_problems``), where the
    kind is known."""

    model_config = ConfigDict(extra="allow", frozen=True)

    kind: str = Field(description="A manipulation's name (docs/biases.md lists them)")
    label: str | None = Field(
        default=None, description="Its name in results; the kind's own label when empty"
    )

    @model_validator(mode="before")
    @classmethod
    def _name_alone(cls, value: Any) -> Any:
        return {"kind": value} if isinstance(value, str) else value

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.model_extra or {})

    def resolved(self) -> ManipulationSpec:
        return resolve_manipulation(self.kind, self.params, self.label)


def entry_problems(
    entries: list[ManipulationEntry], where: Location, *, control_field: str
) -> tuple[list[Problem], list[tuple[Location, ManipulationSpec]]]:
    """An unknown kind, a parameter its kind refuses (a padding ratio below 1, say), the
    control listed (``control_field`` adds it), or two entries with one label; and every
    entry that resolved, with its location, for the caller's own checks."""
    problems: list[Problem] = []
    resolved: list[tuple[Location, ManipulationSpec]] = []
    labels: dict[str, int] = {}
    for index, entry in enumerate(entries):
        at: Location = (*where, index)
        if entry.kind == CONTROL_KIND:
            message = f"the same-text control is added by `{control_field}`, not listed"
            problems.append(((*at, "kind"), message))
            continue
        try:
            spec = entry.resolved()
        except ManipulationError as exc:
            problems.append(((*at, "kind"), str(exc)))
            continue
        except ValidationError as exc:
            for error in exc.errors():
                problems.append(((*at, *error["loc"]), f"{entry.kind}: {error['msg']}"))
            continue
        if spec.label in labels:
            message = (
                f"label {spec.label!r} is also manipulation {labels[spec.label]}'s; "
                "give one a `label`"
            )
            problems.append(((*at, "label"), message))
        labels.setdefault(spec.label, index)
        resolved.append((at, spec))
    return problems, resolved
