"""What makes a folder a run folder, and reading its JSON files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fairpanel.judging.store import STORE_FILE, RunFrames, Store, load_frames

__all__ = [
    "RESULTS_FILE",
    "SUMMARY_FILE",
    "BadRunFolderError",
    "read_frames",
    "read_json",
    "require_run_folder",
]

RESULTS_FILE = "results.json"
SUMMARY_FILE = "summary.json"


class BadRunFolderError(ValueError):
    """A folder that is not a run folder, or not the kind of run a command takes."""


def require_run_folder(run_dir: Path) -> None:
    """Raise ``BadRunFolderError`` unless ``run_dir`` holds a store (opening a store that is
    not there would create an empty one)."""
    if not (run_dir / STORE_FILE).is_file():
        raise BadRunFolderError(f"{run_dir} is not a run folder (no {STORE_FILE})")


def read_json(path: Path) -> Any:
    """The JSON in ``path``, or None when there is no such file; ``BadRunFolderError`` when it
    cannot be read."""
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BadRunFolderError(f"{path} cannot be read as JSON: {exc}") from None


def read_frames(run_dir: Path, *, categorical: bool = False) -> RunFrames:
    """The judge-panel frames of the store in ``run_dir`` (text columns as categoricals with
    ``categorical``, see ``load_frames``)."""
    store = Store(run_dir / STORE_FILE)
    try:
        return load_frames(store, categorical=categorical)
    finally:
        store.close()
