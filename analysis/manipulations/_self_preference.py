"""Self-preference as a difference in differences across judge models.

The self-preference arm shows each panel the same tasks with response 1 written by a second
model (W) instead of the responder (R). In the panel judged by R, the twin's shift is R's view
of W's answer against its own; in the panel judged by W, it is W's view of its own answer
against R's. The second shift minus the first is the two judges' combined preference for their
own answers: how much better each finds its own model's answer than the other judge does, so
the answers' quality, which both see, cancels. Both panels judge the very same trials, so the
difference is paired on base scenarios: each base scenario's mean shift in one panel minus the
other's, tested over base scenarios with the cluster t test every identity contrast uses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from fairpanel.analysis.results import SelfPreferenceRow
from fairpanel.analysis.tools import cluster_mean_test, holm

__all__ = ["SelfPreferenceRow", "self_preference"]

_MEASURE = {"single": ("score", "score points (0-10)"), "pair": ("won", "win share (-1..1)")}


def _base_shifts(frame: pd.DataFrame, label: str, protocol: str) -> pd.Series:
    """Each base scenario's mean paired shift (manipulated minus untouched) in one panel."""
    rows = frame[(frame["manipulation"] == label) & (frame["protocol"] == protocol)]
    value = _MEASURE[protocol][0]
    twins = rows.pivot_table(index=["pair_key", "base_id"], columns="arm", values=value)
    if twins.empty or not {"main", "manipulation"} <= set(twins.columns):
        return pd.Series(dtype=float)
    shifts = (twins["manipulation"] - twins["main"]).dropna()
    return shifts.groupby(level="base_id").mean()


def _panel_of(judge_models: Mapping[str, str], model: str) -> str | None:
    found = [panel for panel, judged_by in judge_models.items() if judged_by == model]
    return found[0] if found else None


def self_preference(
    frame: pd.DataFrame,
    *,
    writers: Mapping[str, str],
    judge_models: Mapping[str, str],
    responder: str,
    alpha: float = 0.05,
    confidence: float = 0.95,
) -> list[SelfPreferenceRow]:
    """The self-preference rows of a run: for each self-preference arm (``writers`` maps its
    label to the second model's id) and protocol, the paired difference between the panel
    judged by that model and the panel judged by the responder (``judge_models`` maps a panel
    to the one model all its judges use). ``frame`` is the run's manipulation frame, every
    panel's rows (``bias_profile``'s columns)."""
    rows: list[SelfPreferenceRow] = []
    protocols: Sequence[str] = [p for p in ("single", "pair") if p in set(frame["protocol"])]
    for label, own in writers.items():
        own_panel, responder_panel = (
            _panel_of(judge_models, own),
            _panel_of(judge_models, responder),
        )
        for protocol in protocols:
            common = {
                "manipulation": label, "protocol": protocol, "own_model": own,
                "own_panel": own_panel, "responder_model": responder,
                "responder_panel": responder_panel, "scale": _MEASURE[protocol][1],
            }  # fmt: skip
            if own_panel is None or responder_panel is None:
                missing = own if own_panel is None else responder
                reason = f"no panel judged only by {missing}: the contrast needs one per model"
                rows.append(SelfPreferenceRow(**common, reason=reason))
                continue
            mine = _base_shifts(frame[frame["panel"] == own_panel], label, protocol)
            theirs = _base_shifts(frame[frame["panel"] == responder_panel], label, protocol)
            both = mine.index.intersection(theirs.index)
            test = cluster_mean_test(
                (mine[both] - theirs[both]).to_numpy(), both.to_numpy(), confidence=confidence
            )
            rows.append(
                SelfPreferenceRow(
                    **common,
                    estimate=test.estimate,
                    ci_low=test.ci_low,
                    ci_high=test.ci_high,
                    p_value=test.p_value,
                    n_bases=test.n_clusters,
                    reason=test.reason,
                    method=(
                        f"each base scenario's mean shift under {own_panel} minus under "
                        f"{responder_panel}; {test.describe(confidence)}; Holm over the run's "
                        "self-preference rows"
                    ),
                )
            )
    tested = [i for i, row in enumerate(rows) if row.p_value is not None]
    adjusted = holm(np.array([rows[i].p_value for i in tested], dtype=float))
    for i, p_holm in zip(tested, adjusted, strict=True):
        rows[i] = rows[i].model_copy(
            update={"p_holm": float(p_holm), "called": bool(p_holm < alpha)}
        )
    return rows
