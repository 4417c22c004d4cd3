"""A finished (or half-finished) run folder read back into Python."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairpanel.judging.store import STORE_FILE, RunFiles, RunFrames
from fairpanel.run_folder._folder import RESULTS_FILE, BadRunFolderError, read_frames, read_json
from fairpanel.run_folder._panel_results import panel_results
from fairpanel.studies import config_from_run, study_results

__all__ = ["Run", "load_run"]


@dataclass(frozen=True)
class Run:
    """What a run folder holds."""

    path: Path
    results: dict[str, Any]
    """results.json's content (computed from the store, not written, when the file is
    missing)."""
    summary: dict[str, Any] | None
    """summary.json's content; None until a run has finished once."""
    config: dict[str, Any] | None
    """The resolved config the run was made with (experiment.resolved.json)."""
    manifest: dict[str, Any] | None
    frames: RunFrames | None
    """The store's scores, verdicts, turns and consensus; None for study runs, whose items
    are in ``results``."""

    @property
    def study(self) -> str | None:
        """The study the run belongs to, or None for a judge-panel run."""
        study = (self.config or {}).get("study")
        return None if study is None else str(study)


def load_run(run_dir: str | Path) -> Run:
    """Read a run folder: its results, summary, config, manifest and (for a judge-panel run)
    the frames of its store. Raises ``BadRunFolderError`` for a folder with neither a store nor
    results.json."""
    run_dir = Path(run_dir)
    has_store = (run_dir / STORE_FILE).is_file()
    results = read_json(run_dir / RESULTS_FILE)
    if not has_store and results is None:
        raise BadRunFolderError(
            f"{run_dir} is not a run folder (no {STORE_FILE}, no {RESULTS_FILE})"
        )
    files = RunFiles.read(run_dir)
    study = config_from_run(files)
    frames = read_frames(run_dir) if has_store and study is None else None
    if results is None:
        results = (
            panel_results(run_dir, frames, files)
            if study is None
            else study_results(run_dir, study)
        )
    return Run(
        path=run_dir,
        results=results,
        summary=files.summary,
        config=files.experiment,
        manifest=files.manifest,
        frames=frames,
    )
