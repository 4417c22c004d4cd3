"""A run folder's judge turns (one row each, CSV or Parquet) and its candidate responses
(JSON Lines, for ``responses_from`` of later runs)."""

from __future__ import annotations

from pathlib import Path

from fairpanel.judging.experiment import (
    CandidateSourceError,
    read_candidate_source,
    write_candidates,
)
from fairpanel.judging.store import STORE_FILE, ExportFormat, Store, export_frame, write_export
from fairpanel.run_folder._folder import BadRunFolderError, require_run_folder

__all__ = ["RESPONSES_EXPORT", "export_responses", "export_run"]

RESPONSES_EXPORT = "responses.jsonl"


def export_run(
    run_dir: Path, fmt: ExportFormat = "csv", out: Path | None = None
) -> tuple[Path, int]:
    """Write RUN_DIR's judge turns to ``out`` (default RUN_DIR/turns.<format>); returns the
    file and its number of rows. Raises ``BadRunFolderError`` when there is no store."""
    require_run_folder(run_dir)
    store = Store(run_dir / STORE_FILE)
    try:
        frame = export_frame(store)
    finally:
        store.close()
    return write_export(frame, out or run_dir / f"turns.{fmt}", fmt), len(frame)


def export_responses(run_dir: Path, out: Path | None = None) -> tuple[Path, int, str]:
    """Write every response RUN_DIR's store holds to ``out`` (default RUN_DIR/responses.jsonl),
    one JSON object a line; returns the file, the count and the digest a run judging them
    records. The store is read without its lock, so a running folder can be exported. Raises
    ``BadRunFolderError`` when there is no store to read."""
    require_run_folder(run_dir)
    try:
        source = read_candidate_source(run_dir)
    except CandidateSourceError as exc:
        raise BadRunFolderError(str(exc)) from None
    path = out or run_dir / RESPONSES_EXPORT
    count, digest = write_candidates(source.candidates, path)
    return path, count, digest
