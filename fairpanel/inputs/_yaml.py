"""Strict YAML loading that points at the offending line.

Every user-edited file (experiments, scenarios, personas) goes through here so that a typo
fails before any model call with the file, the field path and the line number.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from fairpanel.inputs._guard import structure_problems

__all__ = ["InputFileError", "Location", "Problem", "load_yaml_model", "parse_yaml_model"]

ModelT = TypeVar("ModelT", bound=BaseModel)

Location = tuple[str | int, ...]
Problem = tuple[Location, str]
"""A field path and what is wrong with it, from a check that needs more than the schema."""

_MAX_INPUT_BYTES = 5 * 1024 * 1024
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class InputFileError(ValueError):
    """A user file could not be read or does not match its schema.

    Carries one human-readable line per problem, each naming the file, the field and the line.
    """

    def __init__(self, path: str, problems: Sequence[str]) -> None:
        self.path = path
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


def _line_index(node: yaml.Node, prefix: Location, out: dict[Location, int]) -> None:
    """Record the 1-based line of every mapping key and sequence item under ``node``."""
    out.setdefault(prefix, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            path = (*prefix, key)
            out[path] = key_node.start_mark.line + 1
            _line_index(value_node, path, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            path = (*prefix, index)
            out[path] = item.start_mark.line + 1
            _line_index(item, path, out)


def _nearest_line(loc: Location, lines: Mapping[Location, int]) -> int | None:
    """The line of the deepest existing ancestor of ``loc`` (a missing field has no line)."""
    for depth in range(len(loc), -1, -1):
        line = lines.get(tuple(loc[:depth]))
        if line is not None:
            return line
    return None


def _clean_loc(loc: Sequence[str | int], data: Any) -> Location:
    """Drop pydantic's union/tag markers so the path matches the YAML keys.

    A part that names a key or index present in the document is always kept (a key may
    contain "[" too); a part that is not is a marker unless it is the missing field itself.
    """
    cleaned: list[str | int] = []
    node = data
    for index, part in enumerate(loc):
        present = (isinstance(node, dict) and part in node) or (
            isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        )
        if present:
            cleaned.append(part)
            node = node[part]
            continue
        marker = isinstance(part, str) and ("[" in part or part.startswith("function-"))
        if index == len(loc) - 1 and not marker:
            cleaned.append(part)
    return tuple(cleaned)


def _format_loc(loc: Location) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _problem_line(source: str, lines: Mapping[Location, int], loc: Location, message: str) -> str:
    line = _nearest_line(loc, lines)
    where = f"{source}:{line}" if line is not None else source
    return f"{where}: {_format_loc(loc)}: {message}"


def parse_yaml_model(
    text: str,
    model: type[ModelT],
    source: str,
    check: Callable[[ModelT], list[Problem]] | None = None,
) -> ModelT:
    """Parse YAML ``text`` into ``model``; ``source`` names the file in error messages.

    ``check`` runs after the schema passes, for rules that need outside data (names that must
    exist in the persona or scenario files); its problems get lines like schema errors do.
    """
    try:
        # Parse once (with libyaml when present): the node tree gives the lines, and the same
        # tree is turned into Python data.
        loader = _Loader(text)
        try:
            root = loader.get_single_node()
            unsafe = structure_problems(root)  # alias bombs, cycles, depth, duplicate keys
            if unsafe:
                raise InputFileError(
                    source,
                    [f"{source}:{line}: {_format_loc(loc)}: {what}" for line, loc, what in unsafe],
                )
            data: Any = None if root is None else loader.construct_document(root)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        raise InputFileError(source, [f"{where}: not valid YAML: {exc.problem}"]) from exc
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow, at a position
        line = text.count("\n", 0, max(exc.position, 0)) + 1
        raise InputFileError(
            source, [f"{source}:{line}: not valid YAML: {exc.reason} (character {exc.character!r})"]
        ) from exc
    except yaml.YAMLError as exc:
        raise InputFileError(source, [f"{source}: not valid YAML: {exc}"]) from exc
    if data is None:
        data = {}
    lines: dict[Location, int] = {}
    if root is not None:
        _line_index(root, (), lines)
    try:
        parsed = model.model_validate(data)
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            loc = _clean_loc(error["loc"], data)
            message = error["msg"]
            if error["type"] == "extra_forbidden" and loc:
                message = f"unknown field {loc[-1]!r} (check the spelling)"
            problems.append(_problem_line(source, lines, loc, message))
        raise InputFileError(source, problems) from exc
    if check is not None:
        found = check(parsed)
        if found:
            raise InputFileError(
                source, [_problem_line(source, lines, loc, message) for loc, message in found]
            )
    return parsed


def load_yaml_model(
    path: Path, model: type[ModelT], check: Callable[[ModelT], list[Problem]] | None = None
) -> ModelT:
    """Read ``path`` (UTF-8, bounded size) and parse it into ``model``."""
    source = str(path)
    try:
        size = path.stat().st_size
        if size > _MAX_INPUT_BYTES:
            raise InputFileError(
                source, [f"{source}: file is {size} bytes, over the {_MAX_INPUT_BYTES} limit"]
            )
        with path.open("rb") as handle:  # bounded: a device or FIFO has no honest size
            raw = handle.read(_MAX_INPUT_BYTES + 1)
        if len(raw) > _MAX_INPUT_BYTES:
            raise InputFileError(source, [f"{source}: file is over the {_MAX_INPUT_BYTES} limit"])
    except OSError as exc:
        raise InputFileError(source, [f"{source}: cannot read file: {exc.strerror}"]) from exc
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputFileError(
            source, [f"{source}: not UTF-8 text (bad byte at offset {exc.start})"]
        ) from exc
    return parse_yaml_model(text, model, source, check)
