"""The store's trials and turns read in columns, for ``load_frames``.

A run of a million judge turns cannot afford a Python dict per turn and per score (the frames
once cost about 8.5 KB a turn). Here SQLite pulls out only the fields the analysis reads (one
``json_extract`` per document; raw text and the rest of each spec stay in the file), and the
four frames are assembled with numpy takes over per-trial arrays: one row of a trial's design
is shared by all its turns and scores, and repeated strings are one object each.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from fairpanel.judging.engine._store import Store
from fairpanel.judging.experiment._config import DEFAULT_PANEL
from fairpanel.judging.protocol._judgment import METRICS

__all__ = ["frame_columns"]

CANDIDATES = ("A", "B")
_SPEC_PATHS = (
    "$.protocol", "$.arm", "$.treatment", "$.signal", "$.panel", "$.base_id", "$.scenario_id",
    "$.category", "$.replicate", "$.identities", "$.response_indices",
)  # fmt: skip
_SORTED_METRICS = tuple(sorted(METRICS))
_CONSENSUS_PATHS = (
    "$.method",
    "$.winner",
    *(f"$.scores.{c}.{m}" for c in CANDIDATES for m in _SORTED_METRICS),
)
_PARSED_PATHS = (
    *(f"$.{m}" for m in METRICS),
    *(f"$.{c}.{m}" for c in CANDIDATES for m in METRICS),
)


def _trial_columns(
    store: Store, spec_paths: Sequence[str], consensus_paths: Sequence[str]
) -> tuple[list[str], list[str], list[list[Any]], list[list[Any] | None]]:
    """Every trial's key, status, the values at JSON ``spec_paths`` of its spec and at
    ``consensus_paths`` of its consensus (None without one), in key order. SQLite parses
    each document once (one ``json_extract`` over all its paths) and all rows come back
    as one JSON text, so a large store is read without parsing whole specs in Python."""

    def extract(column: str, paths: Sequence[str]) -> str:
        # A first path that never exists makes json_extract return an array even for one.
        listed = ", ".join(f"'{path}'" for path in ("$.__none__", *paths))
        return f"json_extract({column}, {listed})"

    keys: list[str] = []
    statuses: list[str] = []
    specs: list[str] = []
    consensus: list[str] = []
    for key, status, spec, combined in store.read(
        f"SELECT key, status, {extract('spec', spec_paths)}, "
        f"{extract('consensus', consensus_paths)} FROM trials ORDER BY key"
    ):
        keys.append(key)
        statuses.append(status)
        specs.append(spec)
        consensus.append(combined or "null")
    spec_values = json.loads("[" + ",".join(specs) + "]")
    consensus_values = json.loads("[" + ",".join(consensus) + "]")
    return (
        keys,
        statuses,
        [row[1:] for row in spec_values],
        [None if row is None else row[1:] for row in consensus_values],
    )


_CHUNK_ROWS = 65_536
"""Turns converted to arrays at a time: the Python objects of one chunk are all that is ever
alive, whatever the size of the run."""


class _Codes:
    """Codes of a text column built chunk by chunk (first-seen order), as a categorical with
    sorted categories at the end."""

    def __init__(self) -> None:
        self.table: dict[str, int] = {}
        self.parts: list[np.ndarray] = []

    def add(self, values: Sequence[str]) -> None:
        table = self.table
        codes = (table.setdefault(value, len(table)) for value in values)
        self.parts.append(np.fromiter(codes, dtype=np.int32, count=len(values)))

    def categorical(self) -> Any:
        names = sorted(self.table)
        remap = np.empty(len(names), dtype=np.int32)
        for rank, name in enumerate(names):
            remap[self.table[name]] = rank
        codes = np.concatenate(self.parts) if self.parts else np.empty(0, dtype=np.int32)
        return pd.Categorical.from_codes(remap[codes], categories=pd.Index(names))


def _turn_columns(
    store: Store, parsed_paths: Sequence[str], trial_index: dict[str, int]
) -> dict[str, Any]:
    """The judge turns as columns, in trial-key, round and speaker order: ``trial`` (the
    trial's position in ``trial_index``), ``round`` and ``attempts`` (ints), ``round_kind``,
    ``judge`` and ``judge_model`` (categoricals), ``parse_ok``, ``winner_position`` (0, 1 or
    NaN), ``call_keys`` (tuples) and ``numbers``: one row per turn and one column per JSON path
    of the parsed answer (NaN where the path is missing or the turn did not parse). SQLite
    parses each answer once and the numbers of a chunk are read back as one text."""
    paths = ", ".join(f"'{path}'" for path in parsed_paths)
    missing = ",".join(["nan"] * len(parsed_paths))
    cursor = store.read(
        "SELECT trial_key, round, round_kind, judge, judge_model, attempts, "
        "parsed IS NOT NULL, json_extract(parsed, '$.winner'), "
        f"coalesce(replace(replace(replace(json_extract(parsed, '$.__none__', {paths}), "
        f"'null', 'nan'), '[nan,', ''), ']', ''), '{missing}'), call_keys "
        "FROM turns ORDER BY trial_key, round, speaker_index"
    )
    texts = {name: _Codes() for name in ("round_kind", "judge", "judge_model")}
    parts: dict[str, list[np.ndarray]] = {
        name: [] for name in ("trial", "round", "attempts", "parse_ok", "winner_position")
    }
    numbers: list[np.ndarray] = []
    call_keys: list[tuple[str, ...]] = []
    positions = {"A": 0.0, "B": 1.0}
    while rows := cursor.fetchmany(_CHUNK_ROWS):
        (trial_key, round_, round_kind, judge, judge_model, attempts, ok, winner, found,
         keys) = zip(*rows, strict=True)  # fmt: skip
        del rows
        parts["trial"].append(np.fromiter(map(trial_index.__getitem__, trial_key), np.int64))
        parts["round"].append(np.asarray(round_, dtype=np.int64))
        parts["attempts"].append(np.asarray(attempts, dtype=np.int64))
        parts["parse_ok"].append(np.asarray(ok, dtype=bool))
        parts["winner_position"].append(
            np.fromiter((positions.get(w, math.nan) for w in winner), dtype=float)
        )
        for name, values in (("round_kind", round_kind), ("judge", judge), ("judge_model",
                             judge_model)):  # fmt: skip
            texts[name].add(values)
        chunk = np.fromstring(",".join(found), sep=",")
        if chunk.size != len(found) * len(parsed_paths):
            raise ValueError("a parsed judge answer holds a score that is not a number")
        numbers.append(chunk.reshape(len(found), len(parsed_paths)))
        call_keys.extend(tuple(map(str, k)) for k in json.loads("[" + ",".join(keys) + "]"))
    out: dict[str, Any] = {
        name: np.concatenate(values) if values else np.empty(0, dtype=np.int64)
        for name, values in parts.items()
    }
    out["parse_ok"] = out["parse_ok"].astype(bool)
    out["winner_position"] = out["winner_position"].astype(float)
    out.update({name: codes.categorical() for name, codes in texts.items()})
    out["numbers"] = (
        np.concatenate(numbers) if numbers else np.empty((0, len(parsed_paths)), dtype=float)
    )
    out["call_keys"] = call_keys
    return out


def _categorical(values: Any, categories: Any = None) -> pd.Categorical:
    """``values`` as a categorical with sorted categories (None is missing): a design column
    of a million rows then costs a byte a row and its comparisons and groupings run on codes.
    Sorted categories keep sorting by the column lexical, as it was for strings."""
    if categories is None:
        categories = sorted({value for value in values if value is not None})
    return pd.Categorical(values, categories=categories)


def _pick(second: np.ndarray, first_values: Any, second_values: Any) -> Any:
    """Per row, the second categorical's value where ``second`` else the first's (the two
    share their categories)."""
    codes = np.where(second, second_values.codes, first_values.codes)
    return pd.Categorical.from_codes(codes, dtype=first_values.dtype)


def _winner_position(winners: np.ndarray) -> np.ndarray:
    return np.where(winners == "A", 0.0, np.where(winners == "B", 1.0, np.nan))


def _trials(store: Store) -> dict[str, np.ndarray]:
    """One array per design field, one entry per trial in key order."""
    keys, statuses, specs, consensus = _trial_columns(store, _SPEC_PATHS, _CONSENSUS_PATHS)
    n = len(keys)
    columns: dict[str, list[Any]] = {name: [] for name in (
        "protocol", "arm", "treatment", "signal", "panel", "base_id", "scenario_id", "category",
        "replicate", "first_identity", "second_identity", "first_response_index",
        "second_response_index", "n_identities",
    )}  # fmt: skip
    for (
        protocol,
        arm,
        treatment,
        signal,
        panel,
        base,
        scenario,
        category,
        replicate,
        ids,
        idx,
    ) in specs:
        columns["protocol"].append(protocol)
        columns["arm"].append("main" if arm is None else arm)
        columns["treatment"].append("none" if treatment is None else treatment)
        columns["signal"].append("explicit" if signal is None else signal)
        columns["panel"].append(panel or DEFAULT_PANEL)
        columns["base_id"].append(base)
        columns["scenario_id"].append(scenario)
        columns["category"].append(category)
        columns["replicate"].append(int(replicate or 0))
        columns["first_identity"].append(ids[0])
        columns["second_identity"].append(ids[1] if len(ids) > 1 else None)
        columns["first_response_index"].append(idx[0])
        columns["second_response_index"].append(idx[1] if len(idx) > 1 else -1)
        columns["n_identities"].append(len(ids))
    numeric = ("replicate", "first_response_index", "second_response_index", "n_identities")
    out: dict[str, Any] = {
        name: _categorical(values) for name, values in columns.items() if name not in numeric
    }
    for name in numeric:
        out[name] = np.asarray(columns[name], dtype=np.int64)
    identities = sorted({v for v in columns["first_identity"] + columns["second_identity"] if v})
    for name in ("first_identity", "second_identity"):
        out[name] = _categorical(columns[name], identities)
    # Keys are unique and already sorted: each trial is its own category.
    out["trial_key"] = pd.Categorical.from_codes(np.arange(n), categories=pd.Index(keys))
    out["trial_status"] = _categorical(statuses)
    out["has_consensus"] = np.asarray([row is not None for row in consensus], dtype=bool)
    rows = [row if row is not None else [None] * len(_CONSENSUS_PATHS) for row in consensus]
    out["consensus_method"] = _categorical([row[0] for row in rows])
    out["consensus_winner"] = np.asarray([row[1] for row in rows], dtype=object)
    scores = np.array([row[2:] for row in rows], dtype=float).reshape(n, 2, len(METRICS))
    out["consensus_scores"] = scores
    return out


def _frame(columns: list[str], values: dict[str, Any], categorical: bool) -> pd.DataFrame:
    """The frame of ``columns``; text columns as categoricals, or as strings (what pandas
    makes of Python strings) when ``categorical`` is False."""
    if not categorical:
        values = {
            name: np.asarray(value, dtype=object) if isinstance(value, pd.Categorical) else value
            for name, value in values.items()
        }
    return pd.DataFrame({name: values[name] for name in columns}, columns=columns)


def frame_columns(
    store: Store, score_columns: list[str], verdict_columns: list[str],
    turn_columns: list[str], consensus_columns: list[str], *, categorical: bool,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:  # fmt: skip
    """The scores, verdicts, turns and consensus frames of ``store`` (see ``load_frames``)."""
    trials = _trials(store)
    ok = trials["trial_status"] == "ok"

    # Verdicts: finished pair trials with a consensus, in key order.
    chosen = np.flatnonzero((trials["protocol"] == "pair") & ok & trials["has_consensus"])
    winner = _winner_position(trials["consensus_winner"][chosen])
    verdict: dict[str, Any] = {
        name: trials[name][chosen] for name in verdict_columns if name in trials
    }
    verdict["winner_position"] = winner
    won = _pick(winner == 1.0, verdict["first_identity"], verdict["second_identity"])
    verdict["winner_identity"] = pd.Categorical.from_codes(
        np.where(np.isnan(winner), -1, won.codes), dtype=won.dtype
    )
    verdicts = _frame(verdict_columns, verdict, categorical)

    # Consensus: (finished trial, candidate, sorted metric) rows that have a score.
    with_consensus = ok & trials["has_consensus"]
    combined = trials["consensus_scores"]
    positions = np.arange(2)[None, :, None]
    present = (
        with_consensus[:, None, None]
        & (positions < trials["n_identities"][:, None, None])
        & ~np.isnan(combined)
    )
    trial_of, position, metric = np.nonzero(present)
    values = _rows(trials, consensus_columns, trial_of, position, metric, _SORTED_METRICS)
    values["score"] = combined[trial_of, position, metric]
    consensus = _frame(consensus_columns, values, categorical)

    # Turns: one row per judge turn, parsed or not.
    read = _turn_columns(
        store, _PARSED_PATHS, {key: index for index, key in enumerate(trials["trial_key"])}
    )
    turn_trial = read["trial"]
    turn = {name: trials[name][turn_trial] for name in turn_columns if name in trials}
    turn["protocol"] = trials["protocol"][turn_trial]
    for name in ("judge", "judge_model", "round_kind", "round", "attempts", "winner_position"):
        turn[name] = read[name]
    parse_ok = read["parse_ok"]
    turn["parse_ok"] = parse_ok
    turn["call_keys"] = read["call_keys"]
    turns = _frame(turn_columns, turn, categorical)

    # Scores: (parsed turn, candidate, metric) rows; a single trial's answer is candidate A.
    numbers = read["numbers"]
    single = turn["protocol"] == "single"
    n_metrics = len(METRICS)
    first = np.where(single[:, None], numbers[:, :n_metrics], numbers[:, n_metrics : 2 * n_metrics])
    by_candidate = np.stack([first, numbers[:, 2 * n_metrics :]], axis=1)
    keep = (
        parse_ok[:, None, None]
        & (positions < trials["n_identities"][turn_trial][:, None, None])
        & np.ones_like(by_candidate, dtype=bool)
    )
    turn_of, position, metric = np.nonzero(keep)
    values = _rows(trials, score_columns, turn_trial[turn_of], position, metric, METRICS)
    for name in ("judge", "judge_model", "round", "round_kind"):
        values[name] = turn[name][turn_of]
    values["score"] = by_candidate[turn_of, position, metric]
    scores = _frame(score_columns, values, categorical)
    return scores, verdicts, turns, consensus


def _rows(
    trials: dict[str, np.ndarray],
    columns: list[str],
    trial_of: np.ndarray,
    position: np.ndarray,
    metric: np.ndarray,
    metrics: tuple[str, ...],
) -> dict[str, Any]:
    """The per-candidate columns of rows that each belong to trial ``trial_of`` (an index into
    ``trials``) at candidate ``position`` and metric number ``metric``."""
    rows = {name: trials[name][trial_of] for name in columns if name in trials}
    second = position == 1
    rows["identity"] = _pick(
        second, trials["first_identity"][trial_of], trials["second_identity"][trial_of]
    )
    rows["response_index"] = np.where(
        second, trials["second_response_index"][trial_of], trials["first_response_index"][trial_of]
    )
    rows["position"] = position.astype(np.int64)
    rows["metric"] = pd.Categorical.from_codes(
        np.argsort(np.argsort(metrics))[metric], categories=pd.Index(sorted(metrics))
    )
    return rows
