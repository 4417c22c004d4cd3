"""Promises the repository makes about itself."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_FOLDERS = ("agents", "scenarios", "personas", "judging", "analysis", "studies", "fairpanel")


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


def test_modules_stay_small() -> None:
    for folder in PACKAGE_FOLDERS:
        for module in (ROOT / folder).glob("*.py"):
            lines = module.read_text(encoding="utf-8").count("\n")
            assert lines <= 500, f"{module} has {lines} lines"


def test_only_the_adapter_modules_import_autogen() -> None:
    allowed = {"_autogen_panel.py"}
    for folder in PACKAGE_FOLDERS:
        for module in (ROOT / folder).glob("*.py"):
            if module.name in allowed:
                continue
            text = module.read_text(encoding="utf-8")
            assert not re.search(r"^\s*(from|import) autogen", text, re.MULTILINE), module
