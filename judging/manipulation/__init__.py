"""Manipulations: named changes to one candidate (or to what the judges are told about it)
that keep its content, each compared with the untouched twin (docs/biases.md)."""

from fairpanel.judging.manipulation._entries import ManipulationEntry, entry_problems
from fairpanel.judging.manipulation._model import (
    CONTROL_KIND,
    Manipulated,
    ManipulationInput,
    ManipulationKind,
    ManipulationSpec,
    RewriteAsk,
)
from fairpanel.judging.manipulation._registry import (
    ENTRY_POINT_GROUP,
    ManipulationError,
    apply_manipulation,
    find_manipulation,
    known_manipulations,
    register_manipulation,
    resolve_manipulation,
    rewrite_ask,
)
from fairpanel.judging.manipulation._rewrites import content_overlap
from fairpanel.judging.manipulation._templates import pad_to_ratio, word_count

__all__ = [
    "CONTROL_KIND",
    "ENTRY_POINT_GROUP",
    "Manipulated",
    "ManipulationEntry",
    "ManipulationError",
    "ManipulationInput",
    "ManipulationKind",
    "ManipulationSpec",
    "RewriteAsk",
    "apply_manipulation",
    "content_overlap",
    "entry_problems",
    "find_manipulation",
    "known_manipulations",
    "pad_to_ratio",
    "register_manipulation",
    "resolve_manipulation",
    "rewrite_ask",
    "word_count",
]
