"""A whole run folder from Python: trials, summary.json, results.json and report.html.

The runners in ``fairpanel.judging`` and ``fairpanel.studies`` fill the store; this layer sits
above them, the analysis and the report, and is what ``fairpanel run`` and ``fairpanel report``
call, so a run started from Python leaves the same folder as one started from the shell.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairpanel.judging.engine import ProgressHook, RunSummary, run_experiment
from fairpanel.judging.experiment import ExperimentConfig
from fairpanel.judging.store import RunFiles
from fairpanel.run_folder._configs import RunConfig, default_run_dir, load
from fairpanel.run_folder._folder import SUMMARY_FILE
from fairpanel.run_folder._report import report_files
from fairpanel.studies import StudyConfig, StudySummary, run_study

__all__ = ["RunOutcome", "run", "run_async"]


@dataclass(frozen=True)
class RunOutcome:
    """What ``run`` did: the folder, the config it ran, its summary and, unless the run was
    made with ``report=False``, results.json's content and report.html."""

    run_dir: Path
    config: RunConfig
    summary: RunSummary | StudySummary
    results: dict[str, Any] | None
    report_file: Path | None


def _config(source: RunConfig | str | Path | None) -> RunConfig:
    if isinstance(source, ExperimentConfig | StudyConfig):
        return source
    return load(source)


async def run_async(
    source: RunConfig | str | Path | None = None,
    out_dir: str | Path | None = None,
    *,
    report: bool = True,
    retry_failed: bool = False,
    progress: ProgressHook | None = None,
    warn: Callable[[str], None] | None = None,
    max_failures: int | None = None,
    detach: bool = False,
) -> RunOutcome:
    """``run`` for callers already inside an event loop."""
    config = _config(source)
    if detach and isinstance(config, StudyConfig):
        raise ValueError("detach runs judge-panel experiments; a study runs attached")
    run_dir = default_run_dir(config) if out_dir is None else Path(out_dir)
    summary: RunSummary | StudySummary
    if isinstance(config, StudyConfig):
        summary = await run_study(
            config,
            run_dir,
            retry_failed=retry_failed,
            progress=progress,
            warn=warn,
            max_failures=max_failures,
        )
    else:
        summary = await run_experiment(
            config,
            run_dir,
            retry_failed=retry_failed,
            progress=progress,
            warn=warn,
            max_failures=max_failures,
            detach=detach,
        )
    (run_dir / SUMMARY_FILE).write_text(
        json.dumps(summary.as_dict(), indent=2) + "\n", encoding="utf-8"
    )
    if not report or (isinstance(summary, RunSummary) and summary.pending_batches):
        return RunOutcome(run_dir, config, summary, None, None)
    study = config if isinstance(config, StudyConfig) else None
    reported = report_files(RunFiles.read(run_dir), study)
    return RunOutcome(run_dir, config, summary, reported.results, reported.report_file)


def run(
    source: RunConfig | str | Path | None = None,
    out_dir: str | Path | None = None,
    *,
    report: bool = True,
    retry_failed: bool = False,
    progress: ProgressHook | None = None,
    warn: Callable[[str], None] | None = None,
    max_failures: int | None = None,
    detach: bool = False,
) -> RunOutcome:
    """Run an experiment or study (a file, or a config from ``load``; the built-in default
    experiment when None) into ``out_dir`` (default runs/<name>) and write the whole folder:
    the store, summary.json and, unless ``report`` is False, results.json and report.html.

    Resumable: finished trials and calls are never repeated. A run stopped by
    ``max_failures`` still writes its folder; ``summary.stopped`` says why it stopped.

    ``detach`` (an experiment in batch mode): return once every live trial waits on a batch
    the provider has accepted, each open batch's status read once; ``summary.pending_batches``
    lists those left open (no report is written until none is) and calling ``run`` again goes
    on from there (docs/batch.md, "Submit and come back").
    """
    return asyncio.run(
        run_async(
            source,
            out_dir,
            report=report,
            retry_failed=retry_failed,
            progress=progress,
            warn=warn,
            max_failures=max_failures,
            detach=detach,
        )
    )
