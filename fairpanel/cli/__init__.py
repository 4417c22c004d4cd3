"""The ``fairpanel`` command line: parses arguments, calls the library, prints."""

from fairpanel.cli._compare import BadRunFolderError, compare_command, load_run
from fairpanel.cli._main import app, write_results
from fairpanel.cli._simulate import recommendations, simulate_command
from fairpanel.cli._studies import estimate_command, report_command, run_command

__all__ = [
    "BadRunFolderError",
    "app",
    "compare_command",
    "estimate_command",
    "load_run",
    "recommendations",
    "report_command",
    "run_command",
    "simulate_command",
    "write_results",
]
