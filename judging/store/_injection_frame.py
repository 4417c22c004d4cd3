"""The injection arm's records as the frame ``analysis.injection_shifts`` reads.

An injected trial is paired with its untouched twin by key: the twin is the same spec with
the main arm and no injection, so its key is recomputed, not looked up by matching fields.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from statistics import fmean
from typing import Any

import pandas as pd
from pydantic import ValidationError

from fairpanel.analysis import INJECTION_COLUMNS, injection_shifts
from fairpanel.judging.experiment._design import TrialSpec
from fairpanel.judging.protocol._judgment import METRICS
from fairpanel.judging.store._store import Store

__all__ = ["injection_frame", "injection_robustness", "key_chunks"]


def _twin_key(spec: dict[str, Any]) -> str | None:
    try:
        return TrialSpec.model_validate({**spec, "arm": "main", "injection": None}).key()
    except ValidationError:  # a spec from an older store layout: it has no twin
        return None


_CHUNK = 500
"""Keys per ``IN (...)`` query (well under SQLite's bound on parameters)."""


def key_chunks(keys: list[str]) -> Iterator[list[str]]:
    """``keys`` in runs short enough for one ``IN (...)`` query."""
    for start in range(0, len(keys), _CHUNK):
        yield keys[start : start + _CHUNK]


def injection_frame(store: Store) -> pd.DataFrame:
    """Final-round answers of injected trials and of the main trials they are twins of. Only
    those trials and turns are read (SQLite picks the injection arm out of the trials' design
    texts, whose second field is the arm), so a large run without the injection arm pays one
    scan of the trials table and parses no spec."""
    specs: dict[str, tuple[dict[str, Any], str]] = {}
    pair_key: dict[str, str] = {}
    injected = store.read(
        "SELECT key, spec, status FROM trials WHERE substr(design, instr(design, char(31)) + 1, "
        "10) = 'injection' || char(31)"
    ).fetchall()
    for key, spec_text, status in injected:
        spec = json.loads(spec_text)
        if spec.get("arm") != "injection":
            continue
        specs[key] = (spec, status)
        if status == "ok":
            twin = _twin_key(spec)
            if twin is not None:
                pair_key[key] = pair_key[twin] = twin
    keys = sorted(pair_key)
    for chunk in key_chunks(keys):
        marks = ", ".join("?" * len(chunk))
        for key, spec_text, status in store.read(
            f"SELECT key, spec, status FROM trials WHERE key IN ({marks})", chunk
        ):
            specs.setdefault(key, (json.loads(spec_text), status))
    rows = []
    for chunk in key_chunks(keys):
        marks = ", ".join("?" * len(chunk))
        for key, judge, judge_model, parsed_text in store.read(
            "SELECT trial_key, judge, judge_model, parsed FROM turns WHERE round_kind = 'final' "
            f"AND parsed IS NOT NULL AND trial_key IN ({marks}) "
            "ORDER BY trial_key, round, speaker_index",
            chunk,
        ):
            spec, status = specs[key]
            if status != "ok":
                continue
            parsed = json.loads(parsed_text)
            single = spec["protocol"] == "single"
            shown_last = "A" if single else "B"  # the candidate shown last carries the text
            scores = parsed if single else parsed[shown_last]
            rows.append(
                {
                    "pair_key": pair_key[key],
                    "arm": spec["arm"],
                    "protocol": spec["protocol"],
                    "judge": judge,
                    "judge_model": judge_model,
                    "score": fmean(float(scores[metric]) for metric in METRICS),
                    "won": math.nan if single else float(parsed.get("winner") == shown_last),
                }
            )
    return pd.DataFrame(rows, columns=INJECTION_COLUMNS)


def injection_robustness(store: Store) -> dict[str, Any]:
    """``results.json``'s ``injection_robustness``: each judge model's shift, by model id."""
    return {
        shift.judge_model: shift.to_dict() for shift in injection_shifts(injection_frame(store))
    }
