"""Finding and loading scenario files.

One base scenario per file keeps diffs reviewable and lets a researcher add a domain by dropping
in a file; the price is that id clashes can only be seen across files, so they are checked here.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

import yaml

from fairpanel.inputs import InputFileError, load_yaml_model

from ._model import BaseScenario, DerivedScenario

__all__ = ["builtin_scenarios_dir", "derived_scenarios", "load_scenarios"]


def builtin_scenarios_dir() -> Path:
    """The packaged scenario directory (a real directory: the package is not zip-imported)."""
    return Path(str(files("fairpanel.scenarios") / "data"))


def _yaml_files(path: Path) -> list[Path]:
    if not path.is_dir():
        return [path]
    found = sorted(p for p in path.glob("*.yaml") if p.is_file())
    if not found:
        # An empty directory is almost always a wrong path; running zero scenarios is never wanted.
        raise InputFileError(str(path), [f"{path}: directory contains no *.yaml scenario files"])
    return found


def _id_line(path: Path) -> int | None:
    """Line of the top-level ``id`` key, for pointing at the second of two clashing files."""
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if isinstance(root, yaml.MappingNode):
        for key, _value in root.value:
            if isinstance(key, yaml.ScalarNode) and key.value == "id":
                return int(key.start_mark.line) + 1
    return None


def _where(path: Path) -> str:
    line = _id_line(path)
    return f"{path}:{line}" if line is not None else str(path)


def load_scenarios(paths: Sequence[Path] | None = None) -> list[BaseScenario]:
    """Load base scenarios from files and/or directories (default: the built-in set).

    Directories contribute their ``*.yaml`` files sorted by name, so the order (and thus the
    order of derived ids in every run) does not depend on the file system. A file reached twice
    (say, directly and through its directory) is loaded once.
    """
    targets = [builtin_scenarios_dir()] if paths is None else [Path(p) for p in paths]
    seen_files: set[Path] = set()
    owner: dict[str, Path] = {}
    scenarios: list[BaseScenario] = []
    for target in targets:
        for path in _yaml_files(target):
            key = path.resolve()
            if key in seen_files:
                continue
            seen_files.add(key)
            scenario = load_yaml_model(path, BaseScenario)
            first = owner.get(scenario.id)
            if first is not None:
                raise InputFileError(
                    str(path),
                    [
                        f"{_where(path)}: id: duplicate base scenario id {scenario.id!r}, "
                        f"already defined in {_where(first)}"
                    ],
                )
            owner[scenario.id] = path
            scenarios.append(scenario)
    return scenarios


def derived_scenarios(bases: Sequence[BaseScenario]) -> list[DerivedScenario]:
    """Flatten base scenarios into the prompts a responder answers, in base order."""
    return [derived for base in bases for derived in base.derived()]
