"""Loading identity sets and judge personas from YAML.

The identities file nests identities under their category instead of repeating the category on
every entry, so it is parsed with file-level models and then turned into the public ones.
Uniqueness (labels, category names, judge names) spans list items, which a pydantic field
validator cannot point at; it is checked here so the error still names the offending line.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field

from fairpanel.inputs import InputFileError, load_yaml_model

from ._model import (
    CategoryName,
    Explicit,
    Identity,
    IdentityCategory,
    IdentitySet,
    JudgePersona,
    Label,
    Names,
)

__all__ = ["builtin_personas_dir", "load_identities", "load_judge_personas"]

_Loc = tuple[str | int, ...]


class _IdentityEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    label: Label
    explicit: Explicit
    names: Names = Field(default_factory=list)


class _CategoryEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: CategoryName
    description: str = Field(min_length=1)
    identities: list[_IdentityEntry] = Field(min_length=1)


class _IdentitiesFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    categories: list[_CategoryEntry] = Field(min_length=1)


class _JudgesFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    judges: list[JudgePersona] = Field(min_length=1)


def builtin_personas_dir() -> Path:
    return Path(str(files("fairpanel.personas") / "data"))


def _line(path: Path, loc: _Loc) -> int | None:
    """1-based line of the key or item at ``loc`` (only called after a successful load)."""
    try:
        node: yaml.Node | None = yaml.compose(
            path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader
        )
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    line: int | None = None
    for part in loc:
        if isinstance(node, yaml.MappingNode) and isinstance(part, str):
            match = [(k, v) for k, v in node.value if k.value == part]
            if not match:
                return None
            line, node = int(match[0][0].start_mark.line) + 1, match[0][1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            if part >= len(node.value):
                return None
            node = node.value[part]
            line = int(node.start_mark.line) + 1
        else:
            return None
    return line


def _duplicate_error(path: Path, what: str, value: str, locs: Sequence[_Loc]) -> InputFileError:
    """Error at the second occurrence, pointing back at the first."""
    first, second = (_line(path, loc) for loc in locs[:2])
    field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in locs[1]).lstrip(".")
    where = f"{path}:{second}" if second is not None else str(path)
    earlier = f" (first at line {first})" if first is not None else ""
    return InputFileError(str(path), [f"{where}: {field}: duplicate {what} {value!r}{earlier}"])


def _check_unique(path: Path, what: str, items: Sequence[tuple[str, _Loc]]) -> None:
    seen: dict[str, _Loc] = {}
    for value, loc in items:
        if value in seen:
            raise _duplicate_error(path, what, value, [seen[value], loc])
        seen[value] = loc


def load_identities(path: Path | None = None) -> IdentitySet:
    """Load an identity set (default: the built-in MALIBU identities plus extensions)."""
    path = builtin_personas_dir() / "identities.yaml" if path is None else Path(path)
    parsed = load_yaml_model(path, _IdentitiesFile)
    _check_unique(
        path,
        "category name",
        [(c.name, ("categories", i, "name")) for i, c in enumerate(parsed.categories)],
    )
    _check_unique(
        path,
        "identity label",
        [
            (entry.label, ("categories", i, "identities", j, "label"))
            for i, category in enumerate(parsed.categories)
            for j, entry in enumerate(category.identities)
        ],
    )
    return IdentitySet(
        categories=[
            IdentityCategory(
                name=category.name,
                description=category.description,
                identities=[
                    Identity(category=category.name, **entry.model_dump())
                    for entry in category.identities
                ],
            )
            for category in parsed.categories
        ]
    )


def load_judge_personas(path: Path | None = None) -> list[JudgePersona]:
    """Load judge personas in file order (default: the built-in panel)."""
    path = builtin_personas_dir() / "judges.yaml" if path is None else Path(path)
    parsed = load_yaml_model(path, _JudgesFile)
    _check_unique(
        path,
        "judge name",
        [(judge.name, ("judges", i, "name")) for i, judge in enumerate(parsed.judges)],
    )
    return list(parsed.judges)
