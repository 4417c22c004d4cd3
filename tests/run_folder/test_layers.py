"""The run folder's composition sits above the packages it composes, and no import inside a
function hides a cycle between them."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {
    "agents": "fairpanel.agents",
    "scenarios": "fairpanel.scenarios",
    "personas": "fairpanel.personas",
    "judging": "fairpanel.judging",
    "analysis": "fairpanel.analysis",
    "report": "fairpanel.report",
    "studies": "fairpanel.studies",
    "fairpanel/inputs": "fairpanel.inputs",
    "fairpanel/run_folder": "fairpanel.run_folder",
    "fairpanel/cli": "fairpanel.cli",
}
# What each package may not import (directly or through a face): the layers above it.
ABOVE = {
    "fairpanel.analysis": ("fairpanel.judging", "fairpanel.studies", "fairpanel.report"),
    "fairpanel.judging": ("fairpanel.report", "fairpanel.studies"),
    "fairpanel.report": ("fairpanel.studies",),
}
ABOVE_ALL = ("fairpanel.run_folder", "fairpanel.cli")
"""The composition of a run folder, then the command line over it: nothing below imports them."""


def _forbidden(package: str) -> tuple[str, ...]:
    if package == "fairpanel.cli":
        return ()
    if package == "fairpanel.run_folder":
        return ("fairpanel.cli",)
    return ABOVE.get(package, ()) + ABOVE_ALL


def _modules() -> Iterator[tuple[str, Path, ast.Module]]:
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield package, path, ast.parse(path.read_text(encoding="utf-8"))


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        return [node.module]
    return []


def _under(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def test_no_package_imports_a_layer_above_it() -> None:
    for package, path, tree in _modules():
        forbidden = _forbidden(package)
        for node in ast.walk(tree):
            for name in _imported(node):
                assert not _under(name, forbidden), f"{path} imports {name}"


def test_no_function_imports_a_fairpanel_module() -> None:
    for _package, path, tree in _modules():
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                for name in _imported(node):
                    assert not _under(name, ("fairpanel",)), f"{path}:{node.lineno} {name}"
