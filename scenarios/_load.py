"""Finding and loading scenario files.

One base scenario per file keeps diffs reviewable and lets a researcher add a domain by dropping
in a file; the price is that id clashes can only be seen across files, so they are checked here.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path

import yaml

from fairpanel.inputs import InputFileError, load_yaml_model

from ._checks import NEAR_DUPLICATE_THRESHOLD, identity_word_problems, near_duplicates
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


def _key_line(path: Path, name: str) -> int | None:
    """Line of the top-level key ``name``, for pointing at the second of two clashing files."""
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    if isinstance(root, yaml.MappingNode):
        for key, _value in root.value:
            if isinstance(key, yaml.ScalarNode) and key.value == name:
                return int(key.start_mark.line) + 1
    return None


def _where(path: Path, name: str = "id") -> str:
    line = _key_line(path, name)
    return f"{path}:{line}" if line is not None else str(path)


def load_scenarios(paths: Sequence[Path] | None = None) -> list[BaseScenario]:
    """Load base scenarios from files and/or directories (default: the built-in set).

    Directories contribute their ``*.yaml`` files sorted by name, so the order (and thus the
    order of derived ids in every run) does not depend on the file system. A file reached twice
    (say, directly and through its directory) is loaded once. Each file is checked for identity
    words outside the label and, with every other file loaded, for a near-duplicate template;
    a built-in file must say where it came from.
    """
    targets = [builtin_scenarios_dir()] if paths is None else [Path(p) for p in paths]
    files: list[Path] = []
    seen_files: set[Path] = set()
    for target in targets:
        for path in _yaml_files(target):
            key = path.resolve()
            if key not in seen_files:
                seen_files.add(key)
                files.append(path)
    try:
        stats = [(path, path.stat()) for path in files]
    except OSError:
        return list(_load_checked(tuple(files)))  # let the loader say what cannot be read
    signature = tuple((str(path.resolve()), st.st_mtime_ns, st.st_size) for path, st in stats)
    return list(_load_cached(signature, tuple(files)))


@functools.lru_cache(maxsize=8)
def _load_cached(
    signature: tuple[tuple[str, int, int], ...], files: tuple[Path, ...]
) -> tuple[BaseScenario, ...]:
    """One check of an unchanged set of files per process: an experiment's load asks for its
    scenarios several times, and checking 85 files for near-duplicates is not free."""
    del signature  # the cache key: the same files, unchanged since they were checked
    return _load_checked(files)


def _load_checked(files: tuple[Path, ...]) -> tuple[BaseScenario, ...]:
    builtin = builtin_scenarios_dir().resolve()
    owner: dict[str, Path] = {}
    scenarios: list[BaseScenario] = []
    for path in files:
        scenario = load_yaml_model(path, BaseScenario, identity_word_problems)
        if scenario.provenance is None and path.resolve().parent == builtin:
            raise InputFileError(
                str(path), [f"{path}: provenance: every built-in scenario says its source"]
            )
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
    _refuse_near_duplicates(scenarios, owner)
    return tuple(scenarios)


def _refuse_near_duplicates(scenarios: list[BaseScenario], owner: dict[str, Path]) -> None:
    found = near_duplicates(scenarios)
    if found:
        first = owner[found[0].later.id]
        raise InputFileError(
            str(first),
            [
                f"{_where(owner[pair.later.id], 'template')}: template: near-duplicate of "
                f"{pair.earlier.id!r} ({_where(owner[pair.earlier.id], 'template')}): ROUGE-L "
                f"F1 {pair.similarity:.2f} >= {NEAR_DUPLICATE_THRESHOLD:.2f} over their words; "
                "two bases that are one task would count one stimulus twice"
                for pair in found
            ],
        )


def derived_scenarios(bases: Sequence[BaseScenario]) -> list[DerivedScenario]:
    """Flatten base scenarios into the prompts a responder answers, in base order."""
    return [derived for base in bases for derived in base.derived()]
