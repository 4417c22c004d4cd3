"""Where manipulation kinds are found: fairpanel's own, kinds registered in process by a
function call, and ``fairpanel.manipulations`` entry points of installed packages.

An entry point's name is the kind's name and its value is ``module:object``, the object a
``ManipulationKind``. Entry points are read when a name is not otherwise known, never cached,
so a package installed after import is seen; fairpanel's own names always win.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from importlib.metadata import entry_points
from typing import Any

from fairpanel.judging.manipulation._builtins import BUILT_IN_KINDS
from fairpanel.judging.manipulation._model import (
    Manipulated,
    ManipulationInput,
    ManipulationKind,
    ManipulationSpec,
    RewriteAsk,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "ManipulationError",
    "apply_manipulation",
    "find_manipulation",
    "known_manipulations",
    "register_manipulation",
    "resolve_manipulation",
    "rewrite_ask",
]

ENTRY_POINT_GROUP = "fairpanel.manipulations"
_REGISTERED: dict[str, ManipulationKind] = {}


class ManipulationError(ValueError):
    """An unknown kind, a plugin that is not a ``ManipulationKind``, or bad parameters."""


def register_manipulation(kind: ManipulationKind) -> None:
    """Make ``kind`` known in this process (a user's own manipulation, without packaging)."""
    if kind.name in BUILT_IN_KINDS:
        raise ManipulationError(f"{kind.name!r} is one of fairpanel's own manipulations")
    _REGISTERED[kind.name] = kind


def _plugin(name: str) -> ManipulationKind | None:
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name == name:
            found = point.load()
            if not isinstance(found, ManipulationKind):
                raise ManipulationError(
                    f"{ENTRY_POINT_GROUP} entry point {name!r} ({point.value}) is not a "
                    "ManipulationKind"
                )
            return found
    return None


def known_manipulations() -> list[str]:
    """Every kind's name: fairpanel's own, then registered ones, then plugins'."""
    names = [*BUILT_IN_KINDS, *_REGISTERED]
    names += [p.name for p in entry_points(group=ENTRY_POINT_GROUP) if p.name not in names]
    return names


def find_manipulation(name: str) -> ManipulationKind:
    kind = BUILT_IN_KINDS.get(name) or _REGISTERED.get(name) or _plugin(name)
    if kind is None:
        raise ManipulationError(
            f"unknown manipulation {name!r}; known: {', '.join(known_manipulations())}"
        )
    return kind


def resolve_manipulation(
    name: str, params: Mapping[str, Any], label: str | None = None
) -> ManipulationSpec:
    """The spec trials carry for one configured manipulation, its defaults filled in.
    Raises ``ManipulationError`` for an unknown kind and ``ValidationError`` (with the
    parameter's name in its location) for bad parameters."""
    kind = find_manipulation(name)
    validated = kind.params.model_validate(dict(params))
    return ManipulationSpec(
        kind=name,
        label=label or kind.label(validated),
        params=validated.model_dump(mode="json"),
    )


def rewrite_ask(spec: ManipulationSpec) -> RewriteAsk | None:
    """What a model must write for ``spec`` (None: a template makes it, or nothing changes)."""
    kind = find_manipulation(spec.kind)
    return kind.rewrite(kind.params.model_validate(spec.params)) if kind.rewrite else None


def apply_manipulation(spec: ManipulationSpec, given: ManipulationInput) -> Manipulated:
    """``spec``'s change to ``given`` (with ``spec``'s parameters, whatever ``given`` holds);
    a result that changes a candidate other than the target, or the number of candidates, is
    refused (it would confound the twin comparison)."""
    given = replace(given, params=dict(spec.params))
    result = find_manipulation(spec.kind).apply(given)
    others = [i for i in range(len(given.texts)) if i != given.target]
    if len(result.texts) != len(given.texts) or any(
        result.texts[i] != given.texts[i] for i in others
    ):
        raise ManipulationError(
            f"manipulation {spec.kind!r} changed a candidate other than the one it targets"
        )
    return result
