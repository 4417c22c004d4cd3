"""``fairpanel --help`` and every command's help read well at any terminal width: help
paragraphs come from docstrings whose lines are broken for the source, and those breaks must
not survive into the terminal, where they would end a line mid-sentence."""

from __future__ import annotations

import inspect
import itertools
import re

import pytest
import typer
from typer.testing import CliRunner

from fairpanel.cli import app
from fairpanel.cli._app import _COMMANDS, _GROUPS, _attribute

WIDTHS = (80, 120)
_SENTENCE_END = re.compile(r"(?<=[.;:])\s+")


def _docstrings() -> dict[tuple[str, ...], str]:
    """Every command's docstring, by the arguments that show its help."""
    found: dict[tuple[str, ...], str] = {}
    for name, where in _COMMANDS.items():
        found[(name,)] = inspect.getdoc(_attribute(*where)) or ""
    for name, where in _GROUPS.items():
        group: typer.Typer = _attribute(*where)
        for info in group.registered_commands:
            assert info.callback is not None and info.name is not None
            found[(name, info.name)] = inspect.getdoc(info.callback) or ""
    return found


DOCSTRINGS = _docstrings()
PAGES = [(), *((name,) for name in [*_COMMANDS, *_GROUPS]), *DOCSTRINGS]


def _help(args: tuple[str, ...], width: int) -> str:
    result = CliRunner().invoke(app, [*args, "--help"], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    return str(result.output)


def _flat(text: str) -> str:
    """``text`` without panel borders, its whitespace collapsed."""
    return " ".join(re.sub("[│╭╮╰╯─]", " ", text).split())


def _rows(page: str) -> list[list[str]]:
    """The page's wrapped paragraphs of docstring text, each a list of its lines: the
    description (the lines between the usage line and the first panel, split at blank lines)
    and each row of a Commands panel (a command's line and the lines after it whose first
    column is blank). Option and argument help, in narrow columns, is left out."""
    rows: list[list[str]] = []
    lines = page.splitlines()
    start = next(i for i, line in enumerate(lines) if "Usage:" in line) + 1
    description: list[str] = []
    for line in lines[start:]:
        if line.strip().startswith("╭"):
            break
        if line.strip():
            description.append(line.strip())
        elif description:
            rows.append(description)
            description = []
    if description:
        rows.append(description)
    panel = ""
    for line in lines:
        if line.startswith("╭"):
            panel = line.strip("╭─╮ ")
            continue
        if panel != "Commands" or not line.startswith("│"):
            continue
        inner = line[1:].rstrip().removesuffix("│").rstrip()
        if inner.startswith(" " * 6) and inner.strip():
            rows[-1].append(inner.strip())
        elif inner.strip():
            rows.append([inner.strip()])
    return rows


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("args", PAGES, ids=lambda args: " ".join(args) or "fairpanel")
def test_no_help_line_ends_mid_sentence(args: tuple[str, ...], width: int) -> None:
    """A line of a wrapped help paragraph is at least half the width unless it ends the
    paragraph."""
    page = _help(args, width)
    for row in _rows(page):
        for line, after in itertools.pairwise(row):
            assert len(line) >= width // 2 - 4, f"{line!r} then {after!r} at {width}:\n{page}"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("args", list(DOCSTRINGS), ids=" ".join)
def test_every_docstring_sentence_is_shown_whole(args: tuple[str, ...], width: int) -> None:
    """On the command's own page and in its group's list, each sentence of its docstring
    appears as written, whitespace aside (markup such as ``fairpanel[inspect]`` included)."""
    sentences = [s for s in _SENTENCE_END.split(" ".join(DOCSTRINGS[args].split())) if s]
    assert sentences
    for shown in (_help(args, width), _help(args[:-1], width)):
        flat = _flat(shown)
        for sentence in sentences:
            assert sentence in flat, f"{sentence!r} at {width}:\n{shown}"
