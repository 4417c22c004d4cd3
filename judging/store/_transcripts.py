"""Every trial of a run as people read it: the task, both candidates with their labels, every
judge turn of every round, the consensus and the verdict (for ``fairpanel view``).

Read in columns: one query for the trials (their specs parsed once each, a trial being the unit
the page shows), one for the turns, whose scores come from the packed ``turns.numbers`` in one
``frombuffer`` and whose reason SQLite extracts from the answer, so no judge answer is parsed
in Python. Texts (tasks, candidates) are looked up once per scenario, not per trial.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fairpanel.judging.store._store import Store
from fairpanel.judging.store._turn_pack import NUMBER_FIELDS

__all__ = ["TranscriptColumns", "read_transcripts"]


@dataclass(frozen=True)
class TranscriptColumns:
    """The trials (one entry per trial, in key order) and their turns (flat, in trial, round
    and speaking order; ``turn_trial`` is each turn's trial index).

    Scores are ``turn_scores[i]``: the pair verdict's position (0 = A, 1 = B, NaN = none), the
    single answer's four metrics, then A's and B's (NaN where absent), as ``turns.numbers``."""

    key: list[str]
    protocol: list[str]
    status: list[str]
    error: list[str | None]
    panel: list[str | None]
    arm: list[str]
    treatment: list[str]
    signal: list[str]
    label_position: list[str]
    category: list[str]
    base_id: list[str]
    scenario_id: list[str]
    replicate: list[int]
    identities: list[tuple[str, ...]]
    authors: list[tuple[str, ...]]
    response_indices: list[tuple[int, ...]]
    task: list[str]
    candidates: list[tuple[str, ...]]
    consensus_winner: list[str | None]
    consensus_scores: list[dict[str, Any] | None]
    turn_trial: np.ndarray
    turn_round: np.ndarray
    turn_round_kind: list[str]
    turn_judge: list[str]
    turn_raw: list[str]
    turn_reason: list[str | None]
    turn_parsed: np.ndarray
    turn_parse_error: list[str | None]
    turn_attempts: np.ndarray
    turn_scores: np.ndarray


def _tasks(store: Store) -> dict[str, str]:
    """Each scenario's task as the responder was asked it (the last message of its request);
    a scenario whose call is not in this store (frozen responses) has none."""
    found: dict[str, str] = {}
    rows = store.read(
        "SELECT r.scenario_id, c.request FROM responses r JOIN calls c ON c.key = r.call_key "
        "WHERE r.response_index = (SELECT MIN(response_index) FROM responses "
        "WHERE scenario_id = r.scenario_id)"
    )
    for scenario_id, request in rows:
        if scenario_id in found:
            continue
        messages = json.loads(request).get("messages") or []
        found[scenario_id] = str(messages[-1].get("content", "")) if messages else ""
    return found


def read_transcripts(store: Store, keys: Sequence[str] | None = None) -> TranscriptColumns:
    """Every trial of ``store`` (or those of ``keys``) with its turns (see
    ``TranscriptColumns``)."""
    chosen = ""
    parameters: tuple[str, ...] = ()
    if keys is not None:
        chosen, parameters = "WHERE {} IN (SELECT value FROM json_each(?))", (json.dumps(keys),)
    texts = {(s, i, m): t for s, i, m, t in store.responses()}
    tasks = _tasks(store)
    trials: dict[str, list[Any]] = {
        name: [] for name in TranscriptColumns.__dataclass_fields__ if not name.startswith("turn_")
    }
    index: dict[str, int] = {}
    for key, spec_text, status, error, consensus_text in store.read(
        f"SELECT key, spec, status, error, consensus FROM trials {chosen.format('key')} "
        "ORDER BY key",
        parameters,
    ):
        spec = json.loads(spec_text)
        consensus = json.loads(consensus_text) if consensus_text else None
        index[key] = len(index)
        responses = tuple(int(i) for i in spec.get("response_indices") or ())
        model = spec.get("responder_model") or ""
        scenario = spec["scenario_id"]
        for name, value in (
            ("key", key),
            ("protocol", spec["protocol"]),
            ("status", status),
            ("error", error),
            ("panel", spec.get("panel")),
            ("arm", spec.get("arm", "main")),
            ("treatment", spec.get("treatment", "none")),
            ("signal", spec.get("signal", "explicit")),
            ("label_position", spec.get("label_position", "tag")),
            ("category", spec["category"]),
            ("base_id", spec["base_id"]),
            ("scenario_id", scenario),
            ("replicate", int(spec.get("replicate") or 0)),
            ("identities", tuple(spec.get("identities") or ())),
            ("authors", tuple(str(a) for a in spec.get("authors") or ())),
            ("response_indices", responses),
            ("task", tasks.get(scenario, "")),
            ("candidates", tuple(texts.get((scenario, i, model), "") for i in responses)),
            ("consensus_winner", consensus.get("winner") if consensus else None),
            ("consensus_scores", consensus.get("scores") if consensus else None),
        ):
            trials[name].append(value)
    # In storage order (a trial's turns are written together), sorted here: SQLite would sort
    # the rows, texts and all, in a temporary b-tree.
    rows = store.read(
        "SELECT trial_key, round, round_kind, judge, raw_text, json_extract(parsed, '$.reason'), "
        "parsed IS NOT NULL, parse_error, attempts, numbers, speaker_index FROM turns "
        + chosen.format("trial_key"),
        parameters,
    ).fetchall()
    columns = list(zip(*rows, strict=True)) if rows else [()] * 11
    del rows
    trial = np.fromiter((index[k] for k in columns[0]), dtype=np.int64, count=len(columns[0]))
    rounds = np.asarray(columns[1], dtype=np.int64)
    order = np.lexsort((np.asarray(columns[10], dtype=np.int64), rounds, trial))
    take = order.tolist()

    def taken(values: tuple[Any, ...]) -> list[Any]:
        return [values[i] for i in take]

    empty = bytes(8 * NUMBER_FIELDS)
    packed = b"".join([blob if blob else empty for blob in taken(columns[9])])
    return TranscriptColumns(
        **trials,
        turn_trial=trial[order],
        turn_round=rounds[order],
        turn_round_kind=taken(columns[2]),
        turn_judge=taken(columns[3]),
        turn_raw=taken(columns[4]),
        turn_reason=[None if r is None else str(r) for r in taken(columns[5])],
        turn_parsed=np.asarray(columns[6], dtype=bool)[order],
        turn_parse_error=taken(columns[7]),
        turn_attempts=np.asarray(columns[8], dtype=np.int64)[order],
        turn_scores=np.frombuffer(packed, dtype="<f8").reshape(len(take), NUMBER_FIELDS),
    )
