"""fairpanel's modules and the imports between them, read with ``ast`` (nothing is imported).

The layering guards of tests/test_project.py ask this graph which modules import what: only
imports that run are counted (``if TYPE_CHECKING:`` blocks are left out), each import knows
whether it sits inside a function, and importing ``a.b.c`` also runs the faces (``__init__``)
of ``a`` and ``a.b`` unless the importer is already inside them.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from helpers.paths import REPO_ROOT as ROOT

__all__ = [
    "Import",
    "Module",
    "import_cycles",
    "imports_of",
    "loaded_with",
    "modules",
    "owning_package",
]

ROOT_PACKAGE = "fairpanel"
# Subpackages of the root package that count as packages of their own for the layering rules.
SEPARATE_SUBPACKAGES = ("fairpanel.inputs", "fairpanel.cli", "fairpanel.run_folder")


@dataclass(frozen=True)
class Import:
    """One imported module (``from m import name`` names ``m.name`` too when it is a module)."""

    target: str
    line: int
    in_function: bool
    explicit: bool = True  # False for the parent faces an import runs on the way


@dataclass
class Module:
    name: str
    path: Path
    is_package: bool
    lines: int
    imports: list[Import] = field(default_factory=list)

    @property
    def where(self) -> str:
        return str(self.path.relative_to(ROOT))

    def external(self) -> set[str]:
        """The top-level names of the third-party (and standard) packages it imports."""
        return {imp.target.partition(".")[0] for imp in self.imports} - {ROOT_PACKAGE}


@cache
def _package_dirs() -> dict[str, Path]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        table = tomllib.load(handle)["tool"]["setuptools"]["package-dir"]
    return {package: ROOT / folder for package, folder in table.items()}


def packages() -> tuple[str, ...]:
    """The top-level packages for the layering rules, longest name first."""
    names = [*_package_dirs(), *SEPARATE_SUBPACKAGES]
    return tuple(sorted(names, key=len, reverse=True))


def owning_package(module: str) -> str | None:
    """The top-level package ``module`` belongs to (None outside fairpanel)."""
    for package in packages():
        if module == package or module.startswith(package + "."):
            return package
    return None


def _module_name(package: str, folder: Path, path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(folder).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join([package, *parts]), is_package


def _files() -> Iterator[tuple[str, Path]]:
    dirs = _package_dirs()
    for package, folder in dirs.items():
        nested = [other for other in dirs.values() if other != folder and folder in other.parents]
        for path in sorted(folder.rglob("*.py")):
            if not any(inner in path.parents for inner in nested):
                yield package, path


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _Collector(ast.NodeVisitor):
    def __init__(self, module: str, is_package: bool, known: set[str]) -> None:
        self.module = module
        self.base = module if is_package else module.rpartition(".")[0]
        self.known = known
        self.depth = 0
        self.found: list[Import] = []

    def visit_If(self, node: ast.If) -> None:
        if _is_type_checking(node):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function  # noqa: N815

    def _add(self, target: str, line: int) -> None:
        self.found.append(Import(target, line, self.depth > 0))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            anchor = self.base.split(".")[: len(self.base.split(".")) - node.level + 1]
            source = ".".join([*anchor, node.module] if node.module else anchor)
        else:
            source = node.module or ""
        submodules = [f"{source}.{alias.name}" for alias in node.names]
        submodules = [name for name in submodules if name in self.known]
        # ``from package import submodule`` needs only the package to exist, not its face to
        # have run; any other name is read from the face.
        only_submodules = len(submodules) == len(node.names)
        self.found.append(Import(source, node.lineno, self.depth > 0, not only_submodules))
        for name in submodules:
            self._add(name, node.lineno)


def _with_faces(importer: str, imports: list[Import]) -> list[Import]:
    """Add the package faces an import runs, except the importer's own ancestors (already
    running when it is imported)."""
    own = {".".join(importer.split(".")[:n]) for n in range(1, importer.count(".") + 2)}
    result = [imp for imp in imports if imp.explicit or imp.target not in own]
    for imp in imports:
        parts = imp.target.split(".")
        for n in range(1, len(parts)):
            parent = ".".join(parts[:n])
            if parent not in own:
                result.append(Import(parent, imp.line, imp.in_function, explicit=False))
    return result


@cache
def modules() -> dict[str, Module]:
    """Every module of every fairpanel package (subpackages included), by dotted name."""
    found: dict[str, Module] = {}
    for package, path in _files():
        name, is_package = _module_name(package, _package_dirs()[package], path)
        text = path.read_text(encoding="utf-8")
        found[name] = Module(name, path, is_package, text.count("\n"))
    for module in found.values():
        source = module.path.read_text(encoding="utf-8")
        module.imports = imports_of(source, module.name, module.is_package, set(found))
    return found


def imports_of(source: str, name: str, is_package: bool, known: set[str]) -> list[Import]:
    """The imports that run when module ``name`` (whose source is ``source``) is imported;
    ``known`` are the module names that exist, to tell submodules from other names."""
    collector = _Collector(name, is_package, known)
    collector.visit(ast.parse(source))
    return _with_faces(name, collector.found)


def import_cycles() -> list[list[str]]:
    """The strongly connected groups of the module graph (Tarjan), each a sorted list of
    modules that import each other; a module importing itself is a group of one. Imports
    inside functions count: a cycle dodged by importing late is still a cycle."""
    graph = {
        name: sorted({imp.target for imp in module.imports if imp.target in modules()})
        for name, module in modules().items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in graph[node]:
            if successor not in index:
                connect(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            group: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph[node]:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return sorted(groups)


def loaded_with(name: str) -> set[str]:
    """Every fairpanel module that importing ``name`` loads: its ancestors' faces, and what each
    loaded module imports at module level, transitively (imports inside functions wait for a
    call, so they are left out)."""
    known = modules()
    parts = name.split(".")
    todo = [".".join(parts[:n]) for n in range(1, len(parts) + 1)]
    seen: set[str] = set()
    while todo:
        current = todo.pop()
        if current in seen or current not in known:
            continue
        seen.add(current)
        todo += [imp.target for imp in known[current].imports if not imp.in_function]
    return seen
