"""The ``fairpanel`` Typer app: built here, its commands registered from one module per group.

A command's module is imported when that command runs (or its help is shown), not when the app
starts: the modules bring in the library (pandas, scipy, matplotlib, the judging engine), and
``fairpanel report --help`` or ``fairpanel schema`` should not pay for what ``compare`` or
``simulate`` need. ``fairpanel --help`` lists every command with the first lines of its help,
read from the modules' source (``_listed``) rather than by importing them, so it starts in the
time typer and rich take.

Help text comes from the commands' docstrings, whose lines are broken for the source; each
paragraph is joined into one line here (``_reflowed``), so the terminal's wrapping is the only
one and no help line ends mid-sentence.
"""

from __future__ import annotations

import ast
import gc
import importlib
import importlib.util
import inspect
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from typer.core import TyperGroup

__all__ = ["app", "main"]

_COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("fairpanel.cli._run", "run_command"),
    "status": ("fairpanel.cli._status", "status_command"),
    "report": ("fairpanel.cli._run", "report_command"),
    "export": ("fairpanel.cli._export", "export_command"),
    "view": ("fairpanel.cli._view", "view_command"),
    "label-bias": ("fairpanel.cli._label_bias", "label_bias_command"),
    "estimate": ("fairpanel.cli._estimate", "estimate_command"),
    "schema": ("fairpanel.cli._info", "schema_command"),
    "personas": ("fairpanel.cli._info", "personas_command"),
    "compare": ("fairpanel.cli._compare", "compare_command"),
    "simulate": ("fairpanel.cli._simulate", "simulate_command"),
}
"""Command name: (module, function), in the order ``fairpanel --help`` lists them."""

_GROUPS: dict[str, tuple[str, str]] = {
    "scenarios": ("fairpanel.cli._scenarios", "scenarios_app"),
    "responses": ("fairpanel.cli._export", "responses_app"),
}
"""Command groups (a Typer app of their own): name: (module, app)."""

_EPILOGS: dict[str, tuple[str, str]] = {"export": ("fairpanel.cli._export", "EXPORT_EPILOG")}


def _attribute(module: str, name: str) -> Any:
    return getattr(importlib.import_module(module), name)


def _reflowed(text: str) -> str:
    """A docstring's paragraphs, each on one line, as rich markup that shows them as written
    (``fairpanel[inspect]`` is a package extra, not a style)."""
    paragraphs = (" ".join(part.split()) for part in inspect.cleandoc(text).split("\n\n"))
    return escape("\n\n".join(paragraph for paragraph in paragraphs if paragraph))


def _readable(command: Any) -> Any:
    """``command`` (and a group's subcommands) with its help reflowed (``_reflowed``)."""
    if command.help:
        command.help = _reflowed(command.help)
    for subcommand in getattr(command, "commands", {}).values():
        _readable(subcommand)
    return command


# Typer vends its own copy of click (``typer._click``, private): its contexts and commands are
# typed ``Any`` here.
def _command(name: str) -> Any:
    """The click command Typer builds for ``name``, its module imported now."""
    if name in _GROUPS:
        group = typer.main.get_group(_attribute(*_GROUPS[name]))
        group.name = name
        return _readable(group)
    single = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    epilog = _attribute(*_EPILOGS[name]) if name in _EPILOGS else None
    single.command(name, epilog=epilog)(_attribute(*_COMMANDS[name]))
    return _readable(typer.main.get_command(single))


def _source_help(module: str, name: str) -> str:
    """The help of function or Typer app ``name`` in ``module``'s source: the function's
    docstring, or the app's ``help=`` text."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, module
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return ast.get_docstring(node, clean=False) or ""
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(target, ast.Name) and target.id == name for target in node.targets)
            and isinstance(node.value, ast.Call)
        ):
            for keyword in node.value.keywords:
                if keyword.arg == "help" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
    raise LookupError(f"no help for {name} in {module}")


def _listed(name: str) -> Any:
    """A stand-in for command ``name`` that carries only what the top-level help lists: its
    name and help (``_reflowed``, as the real command's)."""
    module, attribute = _GROUPS.get(name) or _COMMANDS[name]
    return typer.core.TyperCommand(name, help=_reflowed(_source_help(module, attribute)))


class _LazyGroup(TyperGroup):
    """A group that builds a command the first time it is asked for; its own help lists the
    commands from their source (``_listed``) and builds none."""

    _listing = False

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return [*_COMMANDS, *_GROUPS]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if self._listing and cmd_name not in self.commands and cmd_name in (*_COMMANDS, *_GROUPS):
            return _listed(cmd_name)
        if cmd_name not in self.commands and cmd_name in (*_COMMANDS, *_GROUPS):
            self.commands[cmd_name] = _command(cmd_name)
        return self.commands.get(cmd_name)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in (*_COMMANDS, *_GROUPS):
            # Typer suggests the nearest names among the commands built so far: build them all
            # (only an unknown command pays for that).
            for name in self.list_commands(ctx):
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)


app = typer.Typer(
    name="fairpanel",
    help="Measure identity bias in LLM judges and judge panels.",
    cls=_LazyGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _main() -> None:
    """Makes the app a group whose commands ``_LazyGroup`` supplies."""


def main() -> None:
    """The ``fairpanel`` program: the app, then a quick exit. At exit the interpreter's last
    garbage collection walks every object the command loaded (about 0.25 s after a small
    run's report, a tenth of it); frozen, they are only freed."""
    try:
        app()
    finally:
        gc.freeze()
