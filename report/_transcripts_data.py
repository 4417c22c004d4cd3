"""The transcripts page's data: a run's trials and turns as one compact JSON document, and the
escaping that keeps it inert inside the page.

Texts repeat (a scenario's task and its two answers appear in every trial built on them, a
judge's reason often recurs), so every text goes once into a string table ``s`` and the trials
and turns hold indices into it: a column of integers per field, not an object per trial. The
page filters and searches these arrays and draws one page of trials at a time.

Outcomes are decided here, once, as bits of ``t.out``: ``FLIPPED`` (a pair trial whose
label-swapped twin, the same answers in the same order under swapped labels, has a different
consensus winner), ``MOVED`` (some judge's final answer differs from its first-round answer:
its verdict in a pair trial, its scores in a single one) and ``PARSE`` (some turn's answer did
not validate after its re-asks).
"""

from __future__ import annotations

import json
import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

__all__ = ["FLIPPED", "MOVED", "PARSE", "TranscriptSource", "embed_json", "transcript_payload"]

FLIPPED, MOVED, PARSE = 1, 2, 4
METRIC_NAMES = ("creativity", "accuracy", "efficiency", "reliability")
"""The order of the metrics in a turn's packed scores (after the verdict position)."""
_ESCAPES = {
    "<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"
}  # fmt: skip


class TranscriptSource(Protocol):
    """What the page reads of a run (``fairpanel.judging.TranscriptColumns`` has it)."""

    @property
    def key(self) -> list[str]: ...
    @property
    def protocol(self) -> list[str]: ...
    @property
    def status(self) -> list[str]: ...
    @property
    def panel(self) -> list[str | None]: ...
    @property
    def arm(self) -> list[str]: ...
    @property
    def treatment(self) -> list[str]: ...
    @property
    def signal(self) -> list[str]: ...
    @property
    def label_position(self) -> list[str]: ...
    @property
    def category(self) -> list[str]: ...
    @property
    def scenario_id(self) -> list[str]: ...
    @property
    def replicate(self) -> list[int]: ...
    @property
    def identities(self) -> list[tuple[str, ...]]: ...
    @property
    def authors(self) -> list[tuple[str, ...]]: ...
    @property
    def response_indices(self) -> list[tuple[int, ...]]: ...
    @property
    def task(self) -> list[str]: ...
    @property
    def candidates(self) -> list[tuple[str, ...]]: ...
    @property
    def consensus_winner(self) -> list[str | None]: ...
    @property
    def consensus_scores(self) -> list[dict[str, Any] | None]: ...
    @property
    def turn_trial(self) -> np.ndarray: ...
    @property
    def turn_round(self) -> np.ndarray: ...
    @property
    def turn_round_kind(self) -> list[str]: ...
    @property
    def turn_judge(self) -> list[str]: ...
    @property
    def turn_raw(self) -> list[str]: ...
    @property
    def turn_reason(self) -> list[str | None]: ...
    @property
    def turn_parsed(self) -> np.ndarray: ...
    @property
    def turn_parse_error(self) -> list[str | None]: ...
    @property
    def turn_attempts(self) -> np.ndarray: ...
    @property
    def turn_scores(self) -> np.ndarray: ...


def embed_json(value: Any) -> str:
    """``value`` as JSON that cannot end the ``<script type="application/json">`` element it
    sits in, nor start a comment or an entity there: ``<``, ``>``, ``&`` and the two JavaScript
    line separators are written as ``\\u`` escapes, which ``JSON.parse`` reads back unchanged."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for raw, escaped in _ESCAPES.items():
        text = text.replace(raw, escaped)  # str.replace: far faster than translate on MBs
    return text


class _Strings:
    """The string table: each distinct text once, ``-1`` for none."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, text: str | None) -> int:
        if text is None:
            return -1
        found = self.index.get(text)
        if found is None:
            found = self.index[text] = len(self.index)
        return found

    def many(self, texts: Sequence[str | None]) -> list[int]:
        return [self(text) for text in texts]


def _number(value: float) -> str:
    return "–" if math.isnan(value) else f"{round(value, 2):g}"


def _turn_scores(source: TranscriptSource) -> list[float] | list[int]:
    """Every turn's scores as one flat list, eight a turn (A's four metrics then B's; a single
    answer's four then four missing), -1 for a missing score: integers when every score is one,
    so the page's data stays small."""
    scores = source.turn_scores
    if not len(scores):
        return []
    single = np.asarray(source.protocol, dtype=object)[source.turn_trial] == "single"
    missing = np.full((len(scores), 4), np.nan)
    values = np.where(single[:, None], np.hstack([scores[:, 1:5], missing]), scores[:, 5:13])
    values = np.where(np.isnan(values), -1.0, np.round(values, 2))
    if np.array_equal(values, np.round(values)):
        return list(values.astype(np.int64).ravel().tolist())
    return list(values.ravel().tolist())


def _consensus_text(scores: Mapping[str, Any] | None) -> str:
    if not scores:
        return ""
    parts = []
    for candidate in ("A", "B"):
        values = scores.get(candidate)
        if isinstance(values, Mapping):
            shown = "/".join(
                _number(float(values[m])) if values.get(m) is not None else "–"
                for m in METRIC_NAMES
            )
            parts.append(f"{candidate} {shown}")
    return " · ".join(parts)


def _twins(source: TranscriptSource) -> tuple[list[int], list[int]]:
    """Each pair trial's label-swapped twin (same answers, same order, labels swapped) and
    order-swapped twin (the same labelled answers in the opposite order), or -1."""
    where: dict[Hashable, int] = {}
    units: list[Hashable | None] = []
    for i, protocol in enumerate(source.protocol):
        ids, resp = source.identities[i], source.response_indices[i]
        if protocol != "pair" or len(ids) < 2 or len(resp) < 2:
            units.append(None)
            continue
        unit = (
            source.panel[i], source.arm[i], source.treatment[i], source.signal[i],
            source.label_position[i], source.scenario_id[i], source.replicate[i],
        )  # fmt: skip
        units.append(unit)
        where[(unit, resp[0], ids[0], resp[1], ids[1])] = i
    label, order = [-1] * len(units), [-1] * len(units)
    for i, found in enumerate(units):
        if found is None:
            continue
        (r0, r1), (i0, i1) = source.response_indices[i][:2], source.identities[i][:2]
        if i0 != i1:
            label[i] = where.get((found, r0, i1, r1, i0), -1)
        if r0 != r1:
            order[i] = where.get((found, r1, i1, r0, i0), -1)
    return label, order


def _moved(source: TranscriptSource) -> np.ndarray:
    """Per trial: whether a judge's last turn differs from its first: its verdict in a pair
    trial, its scores in a single one."""
    n = len(source.key)
    if not len(source.turn_trial):
        return np.zeros(n, dtype=bool)
    judge_names = np.asarray(source.turn_judge, dtype=object)
    judges, judge_codes = np.unique(judge_names, return_inverse=True)
    group = source.turn_trial * len(judges) + judge_codes
    _, first = np.unique(group, return_index=True)
    _, last_reversed = np.unique(group[::-1], return_index=True)
    last = len(group) - 1 - last_reversed
    pair = np.asarray(source.protocol, dtype=object)[source.turn_trial[first]] == "pair"
    a, b = source.turn_scores[first], source.turn_scores[last]
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    differs = np.where(pair, ~same[:, 0], ~same[:, 1:].all(axis=1))
    moved = np.zeros(n, dtype=bool)
    moved[source.turn_trial[first[differs & (first != last)]]] = True
    return moved


def transcript_payload(source: TranscriptSource) -> dict[str, Any]:
    """The page's document: ``s`` the string table, ``r`` the judges' raw texts (a table of
    their own: the page embeds it compressed), ``t`` the trial columns, ``u`` the turns
    (``u.scores``: eight a turn, see ``_turn_scores``; ``u.raw`` indexes ``r``)."""
    text, raw = _Strings(), _Strings()
    # The few distinct names first: a million turns then cite their judge and round kind with
    # one or two digits instead of five.
    for column in (
        source.turn_round_kind, source.turn_judge, source.protocol, source.status, source.arm,
        source.treatment, source.category, source.panel, source.consensus_winner,
    ):  # fmt: skip
        text.many(sorted({value for value in column if value is not None}))
    n = len(source.key)
    label_twin, order_twin = _twins(source)
    parse = np.zeros(n, dtype=bool)
    parse[source.turn_trial[~source.turn_parsed]] = True
    winners = source.consensus_winner
    flipped = [
        twin >= 0 and winners[i] is not None and winners[twin] not in (None, winners[i])
        for i, twin in enumerate(label_twin)
    ]
    out = FLIPPED * np.asarray(flipped, dtype=int) + MOVED * _moved(source) + PARSE * parse

    def side(column: Sequence[tuple[Any, ...]], at: int) -> list[Any]:
        return [values[at] if len(values) > at else None for values in column]

    verdicts = source.turn_scores[:, 0] if len(source.turn_scores) else np.zeros(0)
    starts = np.searchsorted(source.turn_trial, np.arange(n + 1))
    trials = {
        "key": text.many([k[:16] for k in source.key]),
        "protocol": text.many(source.protocol),
        "status": text.many(source.status),
        "panel": text.many(source.panel),
        "arm": text.many(source.arm),
        "treatment": text.many(source.treatment),
        "category": text.many(source.category),
        "scenario": text.many(source.scenario_id),
        "identA": text.many(side(source.identities, 0)),
        "identB": text.many(side(source.identities, 1)),
        "authA": text.many(side(source.authors, 0)),
        "authB": text.many(side(source.authors, 1)),
        "respA": [-1 if r is None else r for r in side(source.response_indices, 0)],
        "respB": [-1 if r is None else r for r in side(source.response_indices, 1)],
        "task": text.many(source.task),
        "candA": text.many(side(source.candidates, 0)),
        "candB": text.many(side(source.candidates, 1)),
        "winner": text.many(winners),
        "cscores": text.many([_consensus_text(s) for s in source.consensus_scores]),
        "labelTwin": label_twin,
        "orderTwin": order_twin,
        "out": out.tolist(),
        "t0": starts.tolist(),
    }
    turns = {
        "judge": text.many(source.turn_judge),
        "round": source.turn_round.tolist(),
        "kind": text.many(source.turn_round_kind),
        "verdict": np.where(np.isnan(verdicts), -1, verdicts).astype(np.int64).tolist(),
        "scores": _turn_scores(source),
        "reason": text.many(source.turn_reason),
        "raw": raw.many(source.turn_raw),
        "perr": text.many(source.turn_parse_error),
        "attempts": source.turn_attempts.tolist(),
    }
    return {
        "v": 1, "metrics": list(METRIC_NAMES), "s": list(text.index), "r": list(raw.index),
        "t": trials, "u": turns,
    }  # fmt: skip
