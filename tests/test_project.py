"""Promises the repository makes about itself."""

from __future__ import annotations

import ast
import re
import tomllib
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from helpers.module_graph import (
    Module,
    import_cycles,
    imports_of,
    loaded_with,
    modules,
    owning_package,
)

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 400
MAX_MODULES_PER_FOLDER = 20


def _docstring(path: Path) -> str | None:
    return ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.DOTALL)
    assert block, "the README opens with a bash block"
    assert text.index("```bash") < 40, "the set-up commands come first"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_readme_starts_with_exactly_two_commands() -> None:
    commands = _readme_commands()
    assert len(commands) == 2
    assert commands[0].endswith("fairpanel run")
    assert "pytest" in commands[1] or "check.sh" in commands[1]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    second = _readme_commands()[1].replace("pip install -e", "pip install -q -e")
    second = second.replace("pip install --no-deps", "pip install -q --no-deps")
    assert second in ci


def test_every_example_says_how_long_it_takes_and_the_readme_lists_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for example in sorted((ROOT / "examples").glob("*.yaml")):
        first = example.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# Time: ") and "calls" in first, example.name
        assert example.stem in readme, example.name


def test_python_is_not_capped() -> None:
    """Every dependency ships wheels for newer Pythons, so no upper bound keeps users back."""
    with (ROOT / "pyproject.toml").open("rb") as handle:
        requires = tomllib.load(handle)["project"]["requires-python"]
    assert requires == ">=3.11"


def _offenders(found: list[str]) -> str:
    return "\n".join(sorted(found))


def test_the_guards_see_every_package_and_subpackage() -> None:
    names = set(modules())
    for expected in (
        "fairpanel.__main__",
        "fairpanel.cli._app",
        "fairpanel.run_folder",
        "fairpanel.inputs",
        "fairpanel.agents.providers._mock",
        "fairpanel.judging.engine",
        "fairpanel.report",
        "fairpanel.studies.label_bias",
    ):
        assert expected in names
    assert owning_package("fairpanel.cli._app") == "fairpanel.cli"
    assert owning_package("fairpanel.run_folder._run") == "fairpanel.run_folder"
    assert owning_package("fairpanel.judging.engine._runner") == "fairpanel.judging"
    assert owning_package("fairpanel") == "fairpanel"


def test_the_import_reader_sees_what_runs() -> None:
    """The guards below are only as good as this reading of a module's imports."""
    source = """
from typing import TYPE_CHECKING
from . import _sibling
from .. import face_name
import rich.table
if TYPE_CHECKING:
    from fairpanel.studies import Study
def late():
    from fairpanel.judging import run_experiment
"""
    known = {"fairpanel.agents.providers._sibling", "fairpanel.agents.providers._mock"}
    found = imports_of(source, "fairpanel.agents.providers._mock", False, known)
    explicit = {(imp.target, imp.in_function) for imp in found if imp.explicit}
    assert explicit == {
        ("typing", False),
        ("fairpanel.agents.providers._sibling", False),
        ("fairpanel.agents", False),
        ("rich.table", False),
        ("fairpanel.judging", True),
    }
    faces = {imp.target for imp in found if not imp.explicit}
    # the importer's own ancestors are already running; other packages' faces run on the way
    assert faces == {"rich"}


def test_modules_stay_small() -> None:
    large = [f"{m.where}: {m.lines} lines" for m in modules().values() if m.lines > MAX_LINES]
    assert not large, _offenders(large)


def test_no_folder_holds_more_than_twenty_modules() -> None:
    """A folder a newcomer reads by its file names: past twenty, group by the question each
    module answers into subpackages (the face's ``__init__`` counts as one)."""
    by_folder = Counter(m.path.parent for m in modules().values())
    crowded = [
        f"{folder.relative_to(ROOT)}: {count} modules"
        for folder, count in by_folder.items()
        if count > MAX_MODULES_PER_FOLDER
    ]
    assert not crowded, _offenders(crowded)


def test_every_subpackage_says_what_question_it_answers() -> None:
    """Each package face opens with a docstring: the reader's first stop in a folder."""
    silent = [m.where for m in modules().values() if m.is_package and not _docstring(m.path)]
    assert not silent, _offenders(silent)


def _importers_of(names: set[str], allowed: Callable[[Module], bool]) -> list[str]:
    """Where a module not ``allowed`` to imports one of the top-level packages ``names``."""
    return [
        f"{module.where}:{imp.line} imports {imp.target}"
        for module in modules().values()
        if not allowed(module)
        for imp in module.imports
        if imp.explicit and imp.target.partition(".")[0] in names
    ]


def test_only_the_cli_imports_typer_and_rich() -> None:
    found = _importers_of({"typer", "rich"}, lambda m: owning_package(m.name) == "fairpanel.cli")
    assert not found, _offenders(found)


def test_analysis_computes_without_plotting_templates_or_terminals() -> None:
    drawn = _importers_of(
        {"matplotlib", "jinja2", "rich", "typer"},
        lambda m: owning_package(m.name) != "fairpanel.analysis",
    )
    assert not drawn, _offenders(drawn)


def test_only_the_adapter_modules_import_autogen() -> None:
    found = _importers_of(
        {"autogen", "autogen_agentchat", "autogen_core", "autogen_ext"},
        lambda m: m.name == "fairpanel.agents._autogen_panel",
    )
    assert not found, _offenders(found)


def test_only_the_inspect_log_writer_imports_inspect_ai() -> None:
    """Inspect AI is an optional extra: fairpanel must import and run without it, so only the
    writer imports it, and only inside its functions."""
    writer = "fairpanel.run_folder._inspect_log"
    found = _importers_of({"inspect_ai"}, lambda m: m.name == writer)
    found += [
        f"{modules()[writer].where}:{imp.line} imports {imp.target} at module level"
        for imp in modules()[writer].imports
        if imp.target.partition(".")[0] == "inspect_ai" and not imp.in_function
    ]
    assert not found, _offenders(found)


def test_nothing_below_the_cli_imports_it() -> None:
    found = [
        f"{module.where}:{imp.line} imports {imp.target}"
        for module in modules().values()
        if owning_package(module.name) != "fairpanel.cli" and module.name != "fairpanel.__main__"
        for imp in module.imports
        if owning_package(imp.target) == "fairpanel.cli"
    ]
    assert not found, _offenders(found)


def _private(package: str, target: str) -> bool:
    inner = target[len(package) :].split(".")
    return any(part.startswith("_") and not part.startswith("__") for part in inner)


def test_no_imports_into_another_packages_private_modules() -> None:
    """``fairpanel.X._y`` is X's own business; other packages import X's face."""
    found = [
        f"{module.where}:{imp.line} imports {imp.target}"
        for module in modules().values()
        for imp in module.imports
        if imp.explicit
        and (package := owning_package(imp.target)) is not None
        and package != owning_package(module.name)
        and _private(package, imp.target)
    ]
    assert not found, _offenders(found)


def test_no_function_level_imports_of_fairpanel() -> None:
    """An import tucked into a function hides a cycle or a layering break from the reader."""
    found = [
        f"{module.where}:{imp.line} imports {imp.target}"
        for module in modules().values()
        for imp in module.imports
        if imp.explicit and imp.in_function and owning_package(imp.target) is not None
    ]
    assert not found, _offenders(found)


def test_the_import_graph_has_no_cycles() -> None:
    cycles = [" <-> ".join(group) for group in import_cycles()]
    assert not cycles, _offenders(cycles)


def test_reading_a_run_never_loads_the_run_side() -> None:
    """The report, the transcripts page and whatever reads a stored run import the store (the
    read side), never the engine that runs trials: a report is then as quick to start as what it
    reads, and nothing on the read path can send a request."""
    readers = [
        name
        for name in modules()
        if owning_package(name) == "fairpanel.report" or name.startswith("fairpanel.judging.store")
    ]
    found = [
        f"{reader} loads {loaded}"
        for reader in readers
        for loaded in sorted(loaded_with(reader))
        if loaded.startswith("fairpanel.judging.engine")
    ]
    assert not found, _offenders(found)
