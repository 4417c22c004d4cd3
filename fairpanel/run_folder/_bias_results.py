"""results.json's manipulation blocks: each panel's bias profile, and the run's
self-preference contrasts between the panels judged by the responder's and a second model.

Both read the store's manipulated twins (``manipulation_frame``), not the arm frames: a
manipulated trial is paired with its untouched twin by key, whatever else the run holds.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from fairpanel.analysis import BiasProfileRow, SelfPreferenceRow, bias_profile, self_preference
from fairpanel.judging.experiment import ExperimentConfig
from fairpanel.judging.manipulation import find_manipulation
from fairpanel.judging.store import RunFiles

__all__ = ["in_design_order", "panel_profiles", "self_preference_rows"]

_SELF_PREFERENCE = "self_preference"


def in_design_order(frame: pd.DataFrame, files: RunFiles) -> pd.DataFrame:
    """``frame`` (the store's rows, in trial key order) with its manipulations in the
    experiment's order, any the config does not name after them by label.

    The bias profile lists manipulations in the order they first appear in its frame; taking
    them from the store in the order trials finished made results.json depend on timing."""
    if frame.empty:
        return frame
    config = files.experiment_config
    specs = [] if config is None else config.arms.manipulation_specs()
    rank = {spec.label: index for index, spec in enumerate(specs)}
    labels = sorted(
        set(frame["manipulation"]), key=lambda label: (rank.get(label, len(rank)), label)
    )
    position = frame["manipulation"].map({label: index for index, label in enumerate(labels)})
    return frame.iloc[position.to_numpy().argsort(kind="stable")].reset_index(drop=True)


def panel_profiles(
    frame: pd.DataFrame, *, alpha: float, confidence: float
) -> dict[str, list[BiasProfileRow]]:
    """Each panel's bias profile, by the panel names the frame holds."""
    if frame.empty:
        return {}
    return {
        str(panel): bias_profile(rows, alpha=alpha, confidence=confidence)
        for panel, rows in frame.groupby("panel", sort=False)
    }


def _single_model_panels(config: ExperimentConfig) -> dict[str, str]:
    """Panels whose judges all use one model, by that model's id."""
    found: dict[str, str] = {}
    for name, panel in config.panel_items():
        ids = {config.model_spec(str(seat.model)).id for seat in panel.seats()}
        if len(ids) == 1:
            found[name] = ids.pop()
    return found


def self_preference_rows(
    files: RunFiles, frame: pd.DataFrame, *, alpha: float, confidence: float
) -> list[SelfPreferenceRow]:
    """The run's self-preference contrasts (none without a self-preference arm, and none for a
    folder whose config this version does not validate: no contrast, not a crash)."""
    if frame.empty or _SELF_PREFERENCE not in set(frame["kind"]):
        return []
    config = files.experiment_config
    if config is None:
        return []
    writers: dict[str, str] = {}
    for spec in config.arms.manipulation_specs():
        if spec.kind == _SELF_PREFERENCE:
            params: Any = find_manipulation(spec.kind).params.model_validate(spec.params)
            writers[spec.label] = config.model_spec(str(params.model)).id
    return self_preference(
        frame,
        writers=writers,
        judge_models=_single_model_panels(config),
        responder=config.responder_spec.id,
        alpha=alpha,
        confidence=confidence,
    )
