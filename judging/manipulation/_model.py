"""What a manipulation is: a named change to one candidate (or to what the judges are told
about it) that leaves the candidate's content alone.

A trial of the manipulation arm is the twin of a main-arm trial with one manipulation applied
to the candidate holding response 1, wherever it is shown (in a pair it is first in one order
and second in the other), so the comparison with the untouched twin holds the content, labels,
position, panel and seed fixed. Kinds are registered like providers (``_registry``): fairpanel's
own, functions registered in process, and ``fairpanel.manipulations`` entry points.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CONTROL_KIND",
    "Manipulated",
    "ManipulationInput",
    "ManipulationKind",
    "ManipulationSpec",
    "RewriteAsk",
]

CONTROL_KIND = "none"
"""The same-text control's kind: nothing is changed, and the twin is judged afresh."""


class ManipulationSpec(BaseModel):
    """One manipulation as a trial carries it (part of the trial's key): its registered kind,
    the label results name it by, and its parameters with every default filled in."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str
    label: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:/+-]{0,79}$")
    params: dict[str, Any] = Field(default_factory=dict)

    @property
    def control(self) -> bool:
        return self.kind == CONTROL_KIND


@dataclass(frozen=True, slots=True)
class ManipulationInput:
    """What a manipulation sees: the candidates' texts in shown order, which one it changes
    (``target``, an index into ``texts``), the task they answer and the trial's protocol."""

    texts: tuple[str, ...]
    target: int
    task: str
    protocol: Literal["single", "pair"]
    params: dict[str, Any]

    @property
    def target_id(self) -> str:
        """The candidate's letter as the judges read it (A, B)."""
        return "AB"[self.target]


@dataclass(frozen=True, slots=True)
class Manipulated:
    """A manipulation's result: the texts in shown order (only the target's may differ) and a
    note added to the judges' shared context after the candidates (None: no note)."""

    texts: tuple[str, ...]
    note: str | None = None


@dataclass(frozen=True, slots=True)
class RewriteAsk:
    """A manipulation made by a model rather than a template: what to ask for the
    manipulated candidate's text. ``instruction`` asks the model to rewrite the original
    (shown to it fenced, after the task); None asks for a fresh answer to the task, as the
    responder wrote the original. ``model`` is who writes it (None: the responder). The runner
    makes the call once through the call cache, so every panel, label and order reuses it and
    a resumed run does not repeat it."""

    instruction: str | None
    model: str | None = None


@dataclass(frozen=True, slots=True)
class ManipulationKind:
    """A registered manipulation.

    ``params`` validates the parameters a config gives (a pydantic model; its defaults fill
    the rest); ``label`` names one parameterisation in results ("verbosity-2x"); ``apply``
    makes the change, a pure function of its input so a re-run shows the judges the very
    same text. ``keeps`` and ``changes`` say, in a phrase each, what a reader may rely on.

    A kind whose text a model writes also has ``rewrite`` (the ask for given parameters, or
    None when these parameters need no model) and ``check`` (given the parameters, the
    original and the written text, the reason the text is refused, or None): a refused text
    fails the trial with that reason rather than reaching the judges. Its ``apply`` then sees
    the written text already in place."""

    name: str
    params: type[BaseModel]
    apply: Callable[[ManipulationInput], Manipulated]
    label: Callable[[BaseModel], str]
    changes: str
    keeps: str
    rewrite: Callable[[BaseModel], RewriteAsk | None] | None = None
    check: Callable[[BaseModel, str, str], str | None] | None = None
