"""A run folder's transcripts page (``fairpanel view``): the store read in columns
(``judging.read_transcripts``), drawn by ``report.transcripts_page``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from fairpanel.judging.store import STORE_FILE, RunFiles, Store, read_transcripts
from fairpanel.report import REPORT_FILE, TRANSCRIPTS_FILE, transcripts_page
from fairpanel.run_folder._folder import BadRunFolderError, require_run_folder

__all__ = ["write_transcripts"]


def write_transcripts(
    run_dir: Path, out: Path | None = None, keys: Sequence[str] | None = None
) -> tuple[Path, int]:
    """Write RUN_DIR's transcripts page (of the trials of ``keys``, or all) to ``out`` (default
    RUN_DIR/transcripts.html); returns the file and its number of trials. Raises
    ``BadRunFolderError`` when there is no store or it holds no judge-panel trial."""
    require_run_folder(run_dir)
    store = Store(run_dir / STORE_FILE)
    try:
        columns = read_transcripts(store, keys)
    finally:
        store.close()
    if not columns.key:
        raise BadRunFolderError(
            f"{run_dir} holds no judge-panel trials (a study's run folder, or a run that has not "
            "finished a trial yet)"
        )
    path = out or run_dir / TRANSCRIPTS_FILE
    summary = RunFiles.read(run_dir).summary
    name = str(summary.get("name") or run_dir.name) if summary is not None else run_dir.name
    report = run_dir / REPORT_FILE
    link = None
    if report.is_file():
        beside = path.parent.resolve() == run_dir.resolve()
        link = report.name if beside else report.resolve().as_uri()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(transcripts_page(columns, name, link), encoding="utf-8")
    return path, len(columns.key)
