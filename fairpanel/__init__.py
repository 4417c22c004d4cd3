"""fairpanel: measure identity bias in LLM judges and multi-agent judge panels.

The Python API, for what the ``fairpanel`` command does from a shell::

    import fairpanel

    config = fairpanel.load("examples/mock-planted-bias.yaml")  # or a study file
    outcome = fairpanel.run(config, "runs/planted")  # store, summary, results, report.html
    run = fairpanel.load_run("runs/planted")  # results, summary, frames of the store
    run.results["headline"], run.frames.scores

Everything else lives in the packages named for what they do (``fairpanel.judging``,
``fairpanel.studies``, ``fairpanel.analysis``, ``fairpanel.report``,
``fairpanel.run_folder``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from fairpanel.inputs import InputFileError

if TYPE_CHECKING:
    from fairpanel.run_folder import Run, RunOutcome, estimate, load, load_run, report_run, run

__all__ = [
    "InputFileError",
    "Run",
    "RunOutcome",
    "__version__",
    "estimate",
    "load",
    "load_run",
    "report_run",
    "run",
]

__version__ = "0.1.0"

# Python runs this module before any subpackage, so the API that composes every package (and
# brings in matplotlib, jinja2 and the report) is loaded on first use: ``import
# fairpanel.analysis`` in a notebook then costs what analysis needs, not the whole library.
_FROM_RUN_FOLDER = frozenset(
    {"Run", "RunOutcome", "estimate", "load", "load_run", "report_run", "run"}
)


def __getattr__(name: str) -> Any:
    if name in _FROM_RUN_FOLDER:
        return getattr(importlib.import_module("fairpanel.run_folder"), name)
    raise AttributeError(f"module 'fairpanel' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _FROM_RUN_FOLDER)
