"""What makes a folder a run folder, and reading its JSON files.

The summary's name, ``BadRunFolderError`` and the JSON reader live on the store's side
(``fairpanel.judging.store``), where the report, below this package, reads the same files; they
are named here too so this package's face keeps them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from fairpanel.judging import store as run_store
from fairpanel.judging.store import (
    STORE_FILE,
    SUMMARY_FILE,
    BadRunFolderError,
    Store,
)
from fairpanel.judging.store import read_run_json as read_json

if TYPE_CHECKING:
    from fairpanel.judging.store import RunFrames

__all__ = [
    "RESULTS_FILE",
    "SUMMARY_FILE",
    "BadRunFolderError",
    "read_frames",
    "read_json",
    "require_run_folder",
]

RESULTS_FILE = "results.json"


def require_run_folder(run_dir: Path) -> None:
    """Raise ``BadRunFolderError`` unless ``run_dir`` holds a store (opening a store that is
    not there would create an empty one)."""
    if not (run_dir / STORE_FILE).is_file():
        raise BadRunFolderError(f"{run_dir} is not a run folder (no {STORE_FILE})")


def read_frames(run_dir: Path, *, categorical: bool = False) -> RunFrames:
    """The judge-panel frames of the store in ``run_dir`` (text columns as categoricals with
    ``categorical``, see ``load_frames``)."""
    store = Store(run_dir / STORE_FILE)
    try:  # through the store's face: pandas loads only when frames are read
        return run_store.load_frames(store, categorical=categorical)
    finally:
        store.close()
