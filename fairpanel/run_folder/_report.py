"""Analyse a run folder again: results.json and report.html from its store.

Apart from the runner (``_run``), so ``fairpanel report`` loads what reads a run, never the
engine that runs trials or the model clients.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairpanel.judging.store import RunFiles
from fairpanel.report import Draw, draw_here, write_report, write_study_report
from fairpanel.run_folder._folder import read_frames, require_run_folder
from fairpanel.run_folder._panel_results import write_results
from fairpanel.studies import StudyConfig, build_study, config_from_run, write_study_results

__all__ = ["Reported", "report_files", "report_run"]


@dataclass(frozen=True)
class Reported:
    """What ``report_run`` wrote: results.json's content and report.html."""

    run_dir: Path
    study: StudyConfig | None
    """The study the folder holds, or None for a judge-panel run."""
    results: dict[str, Any]
    report_file: Path
    files: RunFiles
    """The folder's experiment.resolved.json, manifest.json and summary.json, as every step
    of the report read them (once)."""


def report_files(files: RunFiles, study: StudyConfig | None, draw: Draw = draw_here) -> Reported:
    """results.json and report.html of the folder whose JSON files are ``files``: every step
    takes them from there rather than reading the files again. ``draw`` draws a judge-panel
    report's figures (``report.FigureWorkers``' to draw them beside the statistics)."""
    run_dir = files.path
    if study is not None:
        results = write_study_results(run_dir, study)
        page = build_study(study).report(results)
        written = write_study_report(run_dir, results, page, files)
        return Reported(run_dir, study, results, written, files)
    # Categoricals: the analysis reads but never builds text from the frames, and a large
    # run's frames fit in memory only so (see load_frames).
    frames = read_frames(run_dir, categorical=True)
    results = write_results(run_dir, frames, files)
    written = write_report(run_dir, results, frames.scores, files, draw)
    return Reported(run_dir, None, results, written, files)


def report_run(run_dir: str | Path, draw: Draw = draw_here) -> Reported:
    """Analyse a run folder's store again and rewrite its results.json and report.html
    (``draw``: as ``report_files``).

    Raises ``BadRunFolderError`` when ``run_dir`` holds no store, or one of its JSON files
    (experiment.resolved.json, manifest.json, summary.json) cannot be read.
    """
    run_dir = Path(run_dir)
    require_run_folder(run_dir)
    files = RunFiles.read(run_dir)
    return report_files(files, config_from_run(files), draw)
