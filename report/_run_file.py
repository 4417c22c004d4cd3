"""Writes RUN_DIR/report.html from what the run folder holds.

The analysis package renders; this module gathers the inputs (the results dict, the store's
scores, the folder's JSON files as ``RunFiles`` read them, a few unparsed answers) because only
the judging package reads the store. Nothing outside the run folder goes into the report.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from fairpanel.judging.store import STORE_FILE, RunFiles, Store, load_frames
from fairpanel.report._figure_workers import Draw, draw_here
from fairpanel.report._run_page import ReportInputs, render_report

__all__ = ["REPORT_FILE", "write_report", "write_report_html"]

REPORT_FILE = "report.html"
FAILURE_EXAMPLES = 6
RAW_TEXT_LIMIT = 600


def _failure_examples(store: Store) -> list[dict[str, Any]]:
    """The first few stored parse failures (in key order, so the choice is stable)."""
    examples = []
    for turn in store.failed_turns(FAILURE_EXAMPLES):
        raw = str(turn["raw_text"])
        examples.append(
            {
                "judge": turn["judge"],
                "round_kind": turn["round_kind"],
                "identities": " vs ".join(turn["identities"]),
                "parse_error": turn["parse_error"],
                "raw_text": raw if len(raw) <= RAW_TEXT_LIMIT else raw[:RAW_TEXT_LIMIT] + " […]",
            }
        )
    return examples


def write_report(
    run_dir: Path,
    results: dict[str, Any],
    scores: pd.DataFrame | None = None,
    files: RunFiles | None = None,
    draw: Draw = draw_here,
) -> Path:
    """Render the report of ``run_dir`` (whose results.json is ``results``) to report.html;
    ``scores`` is the store's scores frame and ``files`` the folder's JSON files when the
    caller already holds them; ``draw`` draws the figures (``FigureWorkers.draw``)."""
    files = files if files is not None else RunFiles.read(run_dir)
    store = Store(run_dir / STORE_FILE)
    try:
        if scores is None:
            scores = load_frames(store).scores
        examples = _failure_examples(store)
    finally:
        store.close()
    html = render_report(
        ReportInputs(
            results=results,
            scores=scores,
            run_name=files.run_name,
            summary=files.summary,
            manifest=files.manifest,
            experiment=files.experiment,
            failure_examples=examples,
            generated_at=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            draw=draw,
        )
    )
    return write_report_html(run_dir, html)


def write_report_html(run_dir: Path, html: str, name: str = REPORT_FILE) -> Path:
    """Write ``html`` to RUN_DIR/``name`` (report.html) atomically, so a reader never opens a
    half-written file."""
    target = run_dir / name
    # A plain open (not mkstemp, which makes the file private) so the umask decides who may read.
    temporary = run_dir / f".report-{os.getpid()}.html"
    try:
        temporary.write_text(html, encoding="utf-8")
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return target
