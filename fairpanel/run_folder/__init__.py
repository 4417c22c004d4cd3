"""Run folders: run a file into one, report it, export it, read it back, compare several.

This layer composes the others: the runners (``fairpanel.judging``, ``fairpanel.studies``) fill
the store, ``fairpanel.analysis`` computes results.json and ``fairpanel.report`` draws the
pages. Nothing below it imports it; the command line (``fairpanel.cli``) and the public API in
``fairpanel`` call it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from fairpanel.run_folder._report import Reported, report_run
    from fairpanel.run_folder._run import RunOutcome, run, run_async
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

_HOME: dict[str, str] = {
    **dict.fromkeys(
        (
            "COMPARE_FILE",
            "COMPARE_PAGE",
            "compare",
            "comparison_inputs",
            "write_comparison",
        ),
        "fairpanel.run_folder._compare",
    ),
    **dict.fromkeys(
        (
            "RunConfig",
            "UnknownStudyError",
            "config_schema",
            "default_run_dir",
            "estimate",
            "load",
        ),
        "fairpanel.run_folder._configs",
    ),
    **dict.fromkeys(
        (
            "RESPONSES_EXPORT",
            "export_responses",
            "export_run",
        ),
        "fairpanel.run_folder._export",
    ),
    **dict.fromkeys(
        (
            "RESULTS_FILE",
            "SUMMARY_FILE",
            "BadRunFolderError",
            "read_frames",
            "require_run_folder",
        ),
        "fairpanel.run_folder._folder",
    ),
    **dict.fromkeys(
        (
            "GROW_STUDY_FILE",
            "GrownFiles",
            "grow_scenarios",
        ),
        "fairpanel.run_folder._grow",
    ),
    **dict.fromkeys(
        (
            "INSPECT_EXPORT",
            "MissingExtraError",
            "export_inspect",
        ),
        "fairpanel.run_folder._inspect_log",
    ),
    **dict.fromkeys(
        (
            "Run",
            "load_run",
        ),
        "fairpanel.run_folder._load",
    ),
    **dict.fromkeys(
        (
            "panel_results",
            "write_results",
        ),
        "fairpanel.run_folder._panel_results",
    ),
    **dict.fromkeys(
        (
            "Reported",
            "report_run",
        ),
        "fairpanel.run_folder._report",
    ),
    **dict.fromkeys(
        (
            "RunOutcome",
            "run",
            "run_async",
        ),
        "fairpanel.run_folder._run",
    ),
    **dict.fromkeys(
        ("write_transcripts",),
        "fairpanel.run_folder._transcripts",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
