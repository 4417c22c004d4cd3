"""The ``fairpanel`` app builds a command's module only when that command is used, and still
lists, documents and suggests every command."""

from __future__ import annotations

import ast
import subprocess
import sys

from typer.testing import CliRunner

from fairpanel.cli import app
from fairpanel.cli._app import _COMMANDS, _GROUPS


def test_report_help_loads_no_other_commands_module() -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from fairpanel.cli import app\n"
        "result = CliRunner().invoke(app, ['report', '--help'])\n"
        "assert result.exit_code == 0, result.output\n"
        "print(sorted(name for name in sys.modules if name.startswith('fairpanel.cli.')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    loaded = set(ast.literal_eval(out))
    assert "fairpanel.cli._run" in loaded
    others = {module for module, _ in [*_COMMANDS.values(), *_GROUPS.values()]} - {
        "fairpanel.cli._run"
    }
    assert not loaded & others


def test_every_command_is_listed_and_has_help() -> None:
    runner = CliRunner()
    listing = runner.invoke(app, ["--help"])
    assert listing.exit_code == 0
    for name in [*_COMMANDS, *_GROUPS]:
        assert name in listing.output
        shown = runner.invoke(app, [name, "--help"])
        assert shown.exit_code == 0, (name, shown.output)
        assert f"{name} [OPTIONS]" in shown.output
    export = runner.invoke(app, ["responses", "export", "--help"])
    assert export.exit_code == 0 and "--out" in export.output


def test_a_typo_is_answered_with_the_nearest_commands() -> None:
    result = CliRunner().invoke(app, ["reprot"])
    assert result.exit_code != 0
    assert "Did you mean 'report'" in result.output
