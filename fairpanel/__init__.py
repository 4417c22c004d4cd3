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

from fairpanel.inputs import InputFileError
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
