"""What the analysis reads of a trial, kept beside its spec when it is stored.

A trial's spec (about 1.3 KB of JSON: seats, sampling, wording...) and its consensus are the
record. The analysis reads a dozen of their fields; extracting them from a hundred thousand
specs at every report (``json_extract`` parses each whole document, and the values then go
through ``json.loads``) cost more than the rest of reading the trials. So each trial also
stores those fields: its texts joined by a unit separator (``design``) and its numbers as
little-endian float64 (``design_numbers``), which the reader joins per column in SQLite and
splits or ``frombuffer``s in one go. With them goes a digest of the set of request keys its
judge turns made (``request_digest``): trials that asked the judges the same things share it,
so repeated trials are found among a hundred thousand trials rather than a million keys. It
is derived data: ``backfill_trial_designs`` rebuilds it for a store written before it existed.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from fairpanel.judging.protocol._judgment import CANDIDATE_IDS, METRICS
from fairpanel.judging.store._turn_pack import digest

__all__ = [
    "DESIGN_NUMBERS",
    "DESIGN_TEXTS",
    "MISSING",
    "UNIT",
    "backfill_trial_designs",
    "request_digest",
    "trial_design",
]

UNIT = "\x1f"
"""Separates the texts of ``design`` (and the trials' designs when the reader joins them)."""
MISSING = "\x1d"
"""A text that is absent (None), told apart from an empty one."""
DESIGN_TEXTS = (
    "protocol", "arm", "treatment", "signal", "panel", "base_id", "scenario_id", "category",
    "first_identity", "second_identity", "consensus_method", "consensus_winner",
)  # fmt: skip
"""The texts of ``design``, in order (the identities are the spec's first two)."""
SCORE_FIELDS = tuple((c, metric) for c in CANDIDATE_IDS for metric in sorted(METRICS))
DESIGN_NUMBERS = (
    "replicate", "n_identities", "first_response_index", "second_response_index",
    "has_consensus", "request_keys",
    *(f"score_{candidate}_{metric}" for candidate, metric in SCORE_FIELDS),
)  # fmt: skip
"""The numbers of ``design_numbers``, in order: a second response index of -1 means none;
``request_keys`` counts the distinct request keys of the trial's turns; a consensus score is
NaN where the consensus has none (or there is no consensus)."""
_MASK = (1 << 64) - 1


def _text(value: Any) -> str:
    return MISSING if value is None else value if isinstance(value, str) else str(value)


def _score(consensus: Mapping[str, Any] | None, candidate: str, metric: str) -> float:
    scores = consensus.get("scores") if consensus is not None else None
    by_candidate = scores.get(candidate) if isinstance(scores, Mapping) else None
    value = by_candidate.get(metric) if isinstance(by_candidate, Mapping) else None
    return math.nan if value is None else float(value)


def request_digest(keys: Iterable[str]) -> bytes:
    """The digest of a set of request keys, packed as a little-endian int64: the sum of the
    keys' digests modulo 2**64, so equal sets digest alike whatever their order and
    repetitions. Different sets that collide only make trials candidates for repeating one
    another, which the reader checks on the keys themselves."""
    total = sum(digest(key) for key in set(keys)) & _MASK
    return total.to_bytes(8, "little")


def trial_design(
    spec: Mapping[str, Any], consensus: Mapping[str, Any] | None, call_keys: Iterable[str]
) -> tuple[str, bytes, bytes]:
    """The ``design`` texts, ``design_numbers`` and ``request_digest`` of a trial whose judge
    turns made ``call_keys`` (see ``DESIGN_TEXTS`` and ``DESIGN_NUMBERS``)."""
    keys = set(call_keys)
    identities = list(spec.get("identities") or ())
    indices = list(spec.get("response_indices") or ())
    combined = consensus if isinstance(consensus, Mapping) else None
    texts = [spec.get(name) for name in DESIGN_TEXTS[:8]]
    texts += [identities[0] if identities else None, identities[1] if len(identities) > 1 else None]
    texts += [None, None] if combined is None else [combined.get("method"), combined.get("winner")]
    numbers = [
        int(spec.get("replicate") or 0),
        len(identities),
        indices[0] if indices else -1,
        indices[1] if len(indices) > 1 else -1,
        consensus is not None,
        len(keys),
        *(_score(combined, candidate, metric) for candidate, metric in SCORE_FIELDS),
    ]
    packed = np.asarray(numbers, dtype="<f8").tobytes()
    return UNIT.join(map(_text, texts)), packed, request_digest(keys)


def backfill_trial_designs(db: sqlite3.Connection) -> None:
    """Fill the design of every trial stored without one (a store written before schema 6)."""
    rows = db.execute("SELECT rowid, key, spec, consensus FROM trials WHERE design IS NULL")
    updates = []
    for rowid, key, spec, consensus in rows.fetchall():
        combined = None if consensus is None else json.loads(consensus)
        listed = db.execute(
            "SELECT '[' || coalesce(group_concat(call_keys), '') || ']' FROM turns "
            "WHERE trial_key = ?",
            (key,),
        ).fetchone()[0]
        keys = [str(one) for turn in json.loads(listed) for one in turn]
        updates.append((*trial_design(json.loads(spec), combined, keys), rowid))
    db.executemany(
        "UPDATE trials SET design = ?, design_numbers = ?, request_digest = ? WHERE rowid = ?",
        updates,
    )
