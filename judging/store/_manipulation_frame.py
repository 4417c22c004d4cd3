"""The manipulation arms' trials as the frame ``analysis.bias_profile`` reads.

A manipulated trial is paired with its untouched twin by key: the twin is the same spec in the
main arm with no manipulation, so its key is recomputed, not looked up by matching fields. The
panel's consensus is read for both: the manipulated candidate's mean score over the four
metrics, and in pairs whether the consensus verdict went to it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from statistics import fmean
from typing import Any

import pandas as pd
from pydantic import ValidationError

from fairpanel.judging.experiment._config import DEFAULT_PANEL
from fairpanel.judging.experiment._design import MANIPULATED_RESPONSE, TrialSpec
from fairpanel.judging.protocol._judgment import METRICS
from fairpanel.judging.store._injection_frame import key_chunks
from fairpanel.judging.store._store import Store

__all__ = ["MANIPULATION_FRAME_COLUMNS", "manipulation_frame"]

MANIPULATION_FRAME_COLUMNS = [
    "pair_key", "manipulation", "kind", "control", "protocol", "panel", "base_id",
    "scenario_id", "arm", "score", "won",
]  # fmt: skip


def _twin_key(spec: Mapping[str, Any]) -> str | None:
    try:
        return TrialSpec.model_validate({**spec, "arm": "main", "manipulation": None}).key()
    except ValidationError:  # a spec from an older store layout: it has no twin
        return None


def _outcome(spec: Mapping[str, Any], consensus: Mapping[str, Any]) -> tuple[float, float]:
    """The manipulated candidate's consensus mean score, and 1/0/0.5 whether the consensus
    verdict went to it (NaN for a single trial)."""
    target = "AB"[list(spec["response_indices"]).index(MANIPULATED_RESPONSE)]
    scores = (consensus.get("scores") or {}).get(target) or {}
    values = [float(scores[m]) for m in METRICS if scores.get(m) is not None]
    score = fmean(values) if values else math.nan
    if spec["protocol"] != "pair":
        return score, math.nan
    winner = consensus.get("winner")
    return score, 0.5 if winner not in ("A", "B") else float(winner == target)


def manipulation_frame(store: Store) -> pd.DataFrame:
    """One row per ok manipulated trial and one per its ok untouched twin (repeated for each
    manipulation it is paired with); only complete pairs. A run without manipulation arms
    pays one scan of the trials' design texts and parses no spec."""
    manipulated: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    for _key, spec_text, consensus_text in store.read(
        "SELECT key, spec, consensus FROM trials WHERE status = 'ok' AND "
        "substr(design, instr(design, char(31)) + 1, 13) = 'manipulation' || char(31) "
        "ORDER BY key"  # not the order trials finished in: results must not depend on timing
    ):
        spec = json.loads(spec_text)
        twin = _twin_key(spec) if spec.get("manipulation") else None
        if twin is not None and consensus_text:
            manipulated.append((twin, spec, json.loads(consensus_text)))
    twins: dict[str, dict[str, Any]] = {}
    for chunk in key_chunks(sorted({twin for twin, _, _ in manipulated})):
        marks = ", ".join("?" * len(chunk))
        for key, consensus_text in store.read(
            f"SELECT key, consensus FROM trials WHERE status = 'ok' AND key IN ({marks})", chunk
        ):
            if consensus_text:
                twins[key] = json.loads(consensus_text)
    rows = []
    for twin, spec, consensus in manipulated:
        if twin not in twins:
            continue
        manipulation = spec["manipulation"]
        common = {
            "pair_key": twin,
            "manipulation": manipulation["label"],
            "kind": manipulation["kind"],
            "control": manipulation["kind"] == "none",
            "protocol": spec["protocol"],
            "panel": spec.get("panel") or DEFAULT_PANEL,
            "base_id": spec["base_id"],
            "scenario_id": spec["scenario_id"],
        }
        for arm, combined in (("manipulation", consensus), ("main", twins[twin])):
            score, won = _outcome(spec, combined)
            rows.append({**common, "arm": arm, "score": score, "won": won})
    return pd.DataFrame(rows, columns=MANIPULATION_FRAME_COLUMNS)
