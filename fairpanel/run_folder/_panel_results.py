"""results.json of a judge-panel run: the analysis of its store, arm by arm and treatment by
treatment.

The analysis reads only the store (and the resolved config, read once as ``RunFiles``, for the
treatments' and panels' order), so ``fairpanel report`` re-derives the same results from a
finished or half-finished run folder.
Each control arm is analysed exactly as the main arm is, and its own headline is what the
control block reports. A treatment's effect on bias is the treatment x label interaction
against the baseline treatment (the difference of the paired effects, matched by scenario),
not the difference between the two treatments' verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fairpanel.analysis import (
    ArmResults,
    DesignBlock,
    Effect,
    EffectRow,
    ReportPart,
    RunResults,
    arm_parts,
    arm_results,
    control_false_positives,
    correct_effects,
    treatment_interactions,
)
from fairpanel.judging.store import (
    STORE_FILE,
    RunFiles,
    RunFrames,
    Store,
    injection_robustness,
    load_frames,
    manipulation_frame,
    response_warnings,
)
from fairpanel.run_folder._bias_results import (
    in_design_order,
    panel_profiles,
    self_preference_rows,
)
from fairpanel.run_folder._folder import RESULTS_FILE
from fairpanel.run_folder._panel_comparison import compare_panels
from fairpanel.run_folder._part_pool import run_parts

__all__ = ["analyze_subsets", "panel_results", "write_results"]

ALPHA = 0.05
CONFIDENCE = 0.95


def _configured_first(configured: list[str], found: list[str]) -> list[str]:
    """The names found, those the experiment names first and in its order, then the rest."""
    ordered = [name for name in configured if name in found]
    return ordered + [name for name in found if name not in ordered]


def _treatment_order(files: RunFiles, found: list[str]) -> list[str]:
    """Treatments in the experiment's order (the first is the baseline), then any others."""
    return _configured_first(files.treatments, found) or ["none"]


def _parts(frames: RunFrames) -> dict[str, ReportPart]:
    return arm_parts(
        frames.scores,
        frames.verdicts,
        frames.turns,
        consensus=frames.consensus,
        alpha=ALPHA,
        confidence=CONFIDENCE,
    )


def analyze_subsets(
    subsets: dict[str, RunFrames],
    *,
    workers: int | None = None,
    processes: bool | None = None,
    alongside: Callable[[], object] | None = None,
) -> dict[str, ArmResults]:
    """Each subset's analysis, its parts (``arm_parts``) run several at once (``run_parts``:
    ``workers``, ``processes`` and ``alongside`` are its own). Parts rather than whole arms, so
    that one large arm does not finish alone."""
    done = run_parts(
        {name: _parts(frames) for name, frames in subsets.items()},
        sizes={name: len(frames.scores) for name, frames in subsets.items()},
        workers=workers,
        processes=processes,
        alongside=alongside,
    )
    return {name: arm_results(blocks) for name, blocks in done.items()}


def _n_bases(frames: RunFrames, arm: str) -> int:
    """Distinct base scenarios among the trials of ``arm`` (the unit every test generalises
    over)."""
    # The distinct values of each frame as text (a million rows hold a few dozen bases); the
    # arm's rows picked from the one column, not by taking the arm's whole frames.
    seen = {
        str(base)
        for frame in (frames.scores, frames.verdicts)
        for base in frame.loc[frame["arm"] == arm, "base_id"].dropna().unique()
    }
    return len(seen)


def _treatment_effects(
    by_treatment: dict[str, RunFrames], treatments: list[str]
) -> list[EffectRow]:
    """Each further treatment's interactions with the primary label contrasts, against the
    baseline; with several treatments, Holm runs again over all of them (one family a run)."""
    baseline = by_treatment[treatments[0]]
    effects: list[Effect] = []
    for name in treatments[1:]:
        effects += treatment_interactions(
            baseline, by_treatment[name], treatment=name, alpha=ALPHA, confidence=CONFIDENCE
        )
    if len(treatments) > 2:
        effects, _ = correct_effects(effects, ALPHA)
    return [EffectRow.model_validate(effect.to_dict()) for effect in effects]


def _panel_block(
    files: RunFiles,
    frames: RunFrames,
    robustness: dict[str, Any],
    warnings: list[str],
    profile: list[Any] | None = None,
) -> RunResults:
    """One panel's results: its main arm under the baseline treatment, the other treatments
    and their interactions, its control arms and their own headlines."""
    treatments = _treatment_order(files, frames.values("treatment"))
    arms = frames.values("arm")
    # Each subset is taken once, straight from the frames (a million-turn run's frames are
    # copied on every ``where``).
    by_treatment = {name: frames.where(arm="main", treatment=name) for name in treatments}
    # The manipulation arm mixes its manipulations: it is read as the bias profile, apart.
    by_arm = {arm: frames.where(arm=arm) for arm in arms if arm not in ("main", "manipulation")}
    controls = [arm for arm in arms if arm not in ("main", "injection", "manipulation")]
    # Keys: "treatment:" + name and "arm:" + name, so no treatment and arm names clash.
    interactions: list[EffectRow] = []
    analysed = analyze_subsets(
        {f"treatment:{name}": subset for name, subset in by_treatment.items()}
        | {f"arm:{arm}": subset for arm, subset in by_arm.items()},
        alongside=lambda: interactions.extend(_treatment_effects(by_treatment, treatments)),
    )
    control_arms = {arm: analysed[f"arm:{arm}"] for arm in by_arm}
    return RunResults.assemble(
        analysed[f"treatment:{treatments[0]}"],
        design=DesignBlock(
            arms=arms,
            treatments=treatments,
            signals=frames.values("signal"),
            n_bases=_n_bases(frames, "main"),
            duplicates_dropped=len(frames.duplicate_trials),
            warnings=warnings,
            note=f"the sections above cover the main arm under treatment {treatments[0]!r}",
        ),
        by_treatment={name: analysed[f"treatment:{name}"] for name in treatments[1:]},
        treatment_effects=interactions,
        control_arms=control_arms,
        injection_robustness=robustness,  # empty unless arms.injection is on
        control_false_positives=control_false_positives(
            {arm: control_arms[arm] for arm in controls},
            {arm: by_arm[arm].verdicts for arm in controls},
            alpha=ALPHA,
            confidence=CONFIDENCE,
        ),
        bias_profile=profile or [],
    )


def panel_results(
    run_dir: Path, frames: RunFrames | None = None, files: RunFiles | None = None
) -> dict[str, Any]:
    """Analyse a run folder's store (what results.json holds). Pass the store's ``frames`` and
    the folder's ``files`` when the caller already read them (for the report), to read them
    once.

    A run that compares panels gets each panel analysed on its own trials (``panels``), the
    first panel's blocks at the top (so a reader of one-panel files reads it unchanged), and
    the comparison of the panels on the same trials (``panel_comparison``)."""
    files = files if files is not None else RunFiles.read(run_dir)
    store = Store(run_dir / STORE_FILE)
    try:
        frames = frames if frames is not None else load_frames(store)
        robustness = injection_robustness(store)
        warnings = response_warnings(store, frames.duplicate_trials)
        manipulated = in_design_order(manipulation_frame(store), files)
    finally:
        store.close()
    profiles = panel_profiles(manipulated, alpha=ALPHA, confidence=CONFIDENCE)
    # Panels in the experiment's order (the first leads results.json and is panel a of every
    # comparison), then any others the store holds.
    found = frames.values("panel") if "panel" in frames.turns.columns else []
    names = _configured_first(files.panels, found)
    if len(names) <= 1:
        profile = next(iter(profiles.values()), [])
        return _panel_block(files, frames, robustness, warnings, profile).to_json()
    by_panel = {name: frames.where(panel=name) for name in names}
    blocks = {
        name: _panel_block(files, panel_frames, robustness, warnings, profiles.get(name))
        for name, panel_frames in by_panel.items()
    }
    first = blocks[names[0]]
    results = first.to_json()
    results["design"]["note"] = (
        f"the sections above cover panel {names[0]!r}: its main arm under the baseline "
        "treatment; every panel's own results are under `panels`"
    )
    results["panels"] = {name: block.to_json() for name, block in blocks.items()}
    results["panel_comparison"] = compare_panels(
        files,
        by_panel,
        results["panels"],
        baseline=results["design"]["treatments"][0],
        alpha=ALPHA,
        confidence=CONFIDENCE,
    )
    contrasts = self_preference_rows(files, manipulated, alpha=ALPHA, confidence=CONFIDENCE)
    if contrasts:
        results["self_preference"] = [row.model_dump() for row in contrasts]
    return results


def write_results(
    run_dir: Path, frames: RunFrames | None = None, files: RunFiles | None = None
) -> dict[str, Any]:
    """Analyse a run folder's store and write ``results.json`` beside it (``frames`` and
    ``files`` as ``panel_results`` takes them)."""
    results = panel_results(run_dir, frames, files)
    (run_dir / RESULTS_FILE).write_text(
        json.dumps(results, indent=2, allow_nan=False) + "\n", encoding="utf-8"
    )
    return results
