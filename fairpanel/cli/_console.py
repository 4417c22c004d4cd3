"""What every command shares: the consoles, exit codes, error lines and the progress bars."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from fairpanel import run_folder  # its face: each name loads when a command uses it
from fairpanel.inputs import InputFileError

if TYPE_CHECKING:  # the library is imported by the command that runs (see ``_app``)
    from fairpanel.judging.engine import ProgressHook
    from fairpanel.run_folder import RunConfig

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_RUN_FAILED",
    "FILE_HELP",
    "bad_input",
    "console",
    "errors",
    "load_or_exit",
    "print_error",
    "problems_exit",
    "stage_progress",
]

EXIT_BAD_INPUT = 2
EXIT_RUN_FAILED = 1

console = Console()
# soft_wrap: an error names a file path and line that users (and tests) search for; a
# terminal-width line break inside it would split them.
errors = Console(stderr=True, soft_wrap=True)


def print_error(message: str) -> None:
    """``error: message`` on stderr, printed as written (no markup, no highlighting)."""
    errors.print(f"[bold red]error[/]: {escape(message)}", highlight=False, soft_wrap=True)


def bad_input(message: str) -> typer.Exit:
    """Print ``message`` as an error; the exit to raise for input the command cannot take."""
    print_error(message)
    return typer.Exit(EXIT_BAD_INPUT)


def problems_exit(exc: InputFileError) -> typer.Exit:
    """Print every problem of an input file (each with its file and line); the exit to raise."""
    for problem in exc.problems:
        print_error(problem)
    return typer.Exit(EXIT_BAD_INPUT)


@contextmanager
def stage_progress() -> Iterator[ProgressHook]:
    """A progress bar per stage, advanced by the hook this yields: (stage, done, total)."""
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as bar:
        tasks: dict[str, Any] = {}

        def advance(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total)
            bar.update(tasks[stage], completed=done, total=total)

        yield advance


FILE_HELP = "Experiment YAML; the built-in default when omitted"


def load_or_exit(path: Path | None) -> RunConfig:
    """The experiment or study file, or exit with its problems (file, line, field)."""
    try:
        return run_folder.load(path)
    except InputFileError as exc:
        raise problems_exit(exc) from None
