"""Run folders: run a file into one, report it, export it, read it back, compare several.

This layer composes the others: the runners (``fairpanel.judging``, ``fairpanel.studies``) fill
the store, ``fairpanel.analysis`` computes results.json and ``fairpanel.report`` draws the
pages. Nothing below it imports it; the command line (``fairpanel.cli``) and the public API in
``fairpanel`` call it.
"""

from fairpanel.run_folder._compare import (
    COMPARE_FILE,
    COMPARE_PAGE,
    compare,
    comparison_inputs,
    write_comparison,
)
from fairpanel.run_folder._configs import (
    RunConfig,
    UnknownStudyError,
    config_schema,
    default_run_dir,
    estimate,
    load,
)
from fairpanel.run_folder._export import RESPONSES_EXPORT, export_responses, export_run
from fairpanel.run_folder._folder import (
    RESULTS_FILE,
    SUMMARY_FILE,
    BadRunFolderError,
    read_frames,
    require_run_folder,
)
from fairpanel.run_folder._grow import GROW_STUDY_FILE, GrownFiles, grow_scenarios
from fairpanel.run_folder._inspect_log import INSPECT_EXPORT, MissingExtraError, export_inspect
from fairpanel.run_folder._load import Run, load_run
from fairpanel.run_folder._panel_results import panel_results, write_results
from fairpanel.run_folder._run import Reported, RunOutcome, report_run, run, run_async
from fairpanel.run_folder._transcripts import write_transcripts

__all__ = [
    "COMPARE_FILE",
    "COMPARE_PAGE",
    "GROW_STUDY_FILE",
    "INSPECT_EXPORT",
    "RESPONSES_EXPORT",
    "RESULTS_FILE",
    "SUMMARY_FILE",
    "BadRunFolderError",
    "GrownFiles",
    "MissingExtraError",
    "Reported",
    "Run",
    "RunConfig",
    "RunOutcome",
    "UnknownStudyError",
    "compare",
    "comparison_inputs",
    "config_schema",
    "default_run_dir",
    "estimate",
    "export_inspect",
    "export_responses",
    "export_run",
    "grow_scenarios",
    "load",
    "load_run",
    "panel_results",
    "read_frames",
    "report_run",
    "require_run_folder",
    "run",
    "run_async",
    "write_comparison",
    "write_results",
    "write_transcripts",
]
