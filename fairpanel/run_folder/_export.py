"""One row per judge turn of a run folder, written as CSV or Parquet."""

from __future__ import annotations

from pathlib import Path

from fairpanel.judging import STORE_FILE, ExportFormat, Store, export_frame
from fairpanel.judging.engine import write_export
from fairpanel.run_folder._folder import require_run_folder

__all__ = ["export_run"]


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
