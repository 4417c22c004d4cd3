"""The injection arm's records as the frame ``analysis.injection_shifts`` reads.

An injected trial is paired with its untouched twin by key: the twin is the same spec with
the main arm and no injection, so its key is recomputed, not looked up by matching fields.
"""

from __future__ import annotations

import math
from statistics import fmean
from typing import Any

import pandas as pd
from pydantic import ValidationError

from fairpanel.analysis import INJECTION_COLUMNS, injection_shifts
from fairpanel.judging.engine._store import Store
from fairpanel.judging.experiment._design import TrialSpec
from fairpanel.judging.protocol._judgment import METRICS

__all__ = ["injection_frame", "injection_robustness"]


def _twin_key(spec: dict[str, Any]) -> str | None:
    try:
        return TrialSpec.model_validate({**spec, "arm": "main", "injection": None}).key()
    except ValidationError:  # a spec from an older store layout: it has no twin
        return None


def injection_frame(store: Store) -> pd.DataFrame:
    """Final-round answers of injected trials and of the main trials they are twins of."""
    specs: dict[str, tuple[dict[str, Any], str]] = {}
    pair_key: dict[str, str] = {}
    for key, spec, status, _error, _consensus in store.iter_trials():
        specs[key] = (spec, status)
        if spec.get("arm") == "injection" and status == "ok":
            twin = _twin_key(spec)
            if twin is not None:
                pair_key[key] = pair_key[twin] = twin
    rows = []
    for turn in store.iter_turns():
        key = turn["trial_key"]
        spec, status = specs[key]
        if key not in pair_key or status != "ok" or turn["round_kind"] != "final":
            continue
        parsed = turn["parsed"]
        if parsed is None:
            continue
        single = spec["protocol"] == "single"
        injected = "A" if single else "B"  # the candidate shown last carries the instruction
        scores = parsed if single else parsed[injected]
        rows.append(
            {
                "pair_key": pair_key[key],
                "arm": spec["arm"],
                "protocol": spec["protocol"],
                "judge": turn["judge"],
                "judge_model": turn["judge_model"],
                "score": fmean(float(scores[metric]) for metric in METRICS),
                "won": math.nan if single else float(parsed.get("winner") == injected),
            }
        )
    return pd.DataFrame(rows, columns=INJECTION_COLUMNS)


def injection_robustness(store: Store) -> dict[str, Any]:
    """``results.json``'s ``injection_robustness``: each judge model's shift, by model id."""
    return {
        shift.judge_model: shift.to_dict() for shift in injection_shifts(injection_frame(store))
    }
