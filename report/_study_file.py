"""Writes a study run's RUN_DIR/report.html from its results and the run folder's JSON files."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fairpanel.report._run_file import write_report_html
from fairpanel.report._study_page import StudyReportInputs, render_study_report
from fairpanel.report._study_sections import StudyPage

__all__ = ["write_study_report"]


def _read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def write_study_report(run_dir: Path, results: Mapping[str, Any], page: StudyPage) -> Path:
    """Render the report of the study run in ``run_dir`` (whose results.json is ``results``);
    ``page`` is the study's own part of it (``Study.report(results)``)."""
    experiment = _read_json(run_dir / "experiment.resolved.json")
    name = experiment.get("name") if isinstance(experiment, dict) else None
    html = render_study_report(
        StudyReportInputs(
            results=results,
            page=page,
            run_name=str(name or results.get("name") or run_dir.name),
            summary=_read_json(run_dir / "summary.json"),
            manifest=_read_json(run_dir / "manifest.json"),
            experiment=experiment,
            generated_at=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        )
    )
    return write_report_html(run_dir, html)
