"""A finished pilot run, read for planning: its primary contrasts' variance components and the
design that produced them.

The headline reads the main arm under the baseline treatment, and the first panel of a run that
compares panels; the components come from exactly those frames, so they describe the noise the
planned run's verdict will face. A folder that is not a finished judge-panel run is refused
(``BadRunFolderError``): an unfinished run's units per base are not the design's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fairpanel.analysis import VarianceComponents, contrast_components
from fairpanel.judging.store import (
    STORE_FILE,
    SUMMARY_FILE,
    BadRunFolderError,
    RunFiles,
    RunFrames,
    Store,
    load_frames,
)

__all__ = ["Pilot", "read_pilot"]


@dataclass(frozen=True)
class Pilot:
    """What a pilot run says about the noise of its primary contrasts."""

    path: Path
    name: str
    components: list[VarianceComponents]
    bases: int
    derived_per_base: float
    """Distinct derived scenarios per base, averaged over bases (the main arm's)."""
    replicates: int

    def cells_per_base(self) -> float:
        """Derived scenarios x replicates per base: what a design multiplies."""
        return self.derived_per_base * self.replicates


def _headline_frames(files: RunFiles, frames: RunFrames) -> RunFrames:
    """The rows the headline reads: the main arm, the baseline treatment, the first panel."""
    design = {"arm": "main"}
    treatments = files.treatments or sorted(str(t) for t in frames.turns["treatment"].unique())
    if treatments:
        design["treatment"] = treatments[0]
    if files.panels and "panel" in frames.turns.columns:
        design["panel"] = files.panels[0]
    return frames.where(**design)


def read_pilot(run_dir: Path) -> Pilot:
    """The pilot run in ``run_dir``; ``BadRunFolderError`` unless it is a finished judge-panel
    run with judged trials in its main arm."""
    if not (run_dir / STORE_FILE).is_file():
        raise BadRunFolderError(f"{run_dir} is not a run folder (no {STORE_FILE})")
    files = RunFiles.read(run_dir)
    if files.summary is None:
        raise BadRunFolderError(
            f"{run_dir} is not a finished run (no {SUMMARY_FILE}): finish it first "
            "(run the same experiment into it again), then plan from it"
        )
    if files.study is not None:
        raise BadRunFolderError(
            f"{run_dir} is a {files.study} study run; a pilot must be a judge-panel experiment's"
        )
    store = Store(run_dir / STORE_FILE)
    try:
        frames = _headline_frames(files, load_frames(store))
    finally:
        store.close()
    components = contrast_components(frames)
    if not components:
        raise BadRunFolderError(f"{run_dir} has no judged identity contrast in its main arm")
    trials = frames.turns.drop_duplicates("trial_key")
    derived = trials.groupby("base_id")["scenario_id"].nunique()
    return Pilot(
        path=run_dir,
        name=files.run_name,
        components=components,
        bases=int(derived.size),
        derived_per_base=float(derived.mean()),
        replicates=int(trials["replicate"].nunique()),
    )
