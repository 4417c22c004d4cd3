"""Writes a study run's RUN_DIR/report.html from its results and the run folder's JSON files."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fairpanel.judging.store import RunFiles
from fairpanel.report._run_file import write_report_html
from fairpanel.report._study_page import StudyReportInputs, render_study_report
from fairpanel.report._study_sections import StudyPage

__all__ = ["write_study_report"]


def write_study_report(
    run_dir: Path, results: Mapping[str, Any], page: StudyPage, files: RunFiles | None = None
) -> Path:
    """Render the report of the study run in ``run_dir`` (whose results.json is ``results``);
    ``page`` is the study's own part of it (``Study.report(results)``), ``files`` the folder's
    JSON files when the caller already read them."""
    files = files if files is not None else RunFiles.read(run_dir)
    html = render_study_report(
        StudyReportInputs(
            results=results,
            page=page,
            run_name=str(files.name or results.get("name") or run_dir.name),
            summary=files.summary,
            manifest=files.manifest,
            experiment=files.experiment,
            generated_at=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        )
    )
    return write_report_html(run_dir, html)
