"""The store's trials and turns read in columns, for ``load_frames``.

A run of a million judge turns cannot afford a Python dict per turn and per score (the frames
once cost about 8.5 KB a turn). Here SQLite pulls out only the fields the analysis reads (one
``json_extract`` per document; raw text and the rest of each spec stay in the file), and the
four frames are assembled with numpy takes over per-trial arrays: one row of a trial's design
is shared by all its turns and scores, and repeated strings are one object each.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from fairpanel.judging.engine._store import Store
from fairpanel.judging.engine._turn_read import read_turns, repeated_trials
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


def _trial_columns(
    store: Store, spec_paths: Sequence[str], consensus_paths: Sequence[str]
) -> tuple[tuple[str, ...], tuple[str, ...], list[list[Any]], list[list[Any] | None]]:
    """Every trial's key, status, the values at JSON ``spec_paths`` of its spec and at
    ``consensus_paths`` of its consensus (None without one), in key order. SQLite parses
    each document once (one ``json_extract`` over all its paths) and the whole table comes
    back as one JSON text, so a large store is read without a Python row per trial."""

    def extract(column: str, paths: Sequence[str]) -> str:
        # A first path that never exists makes json_extract return an array even for one.
        listed = ", ".join(f"'{path}'" for path in ("$.__none__", *paths))
        return f"json_extract({column}, {listed})"

    spec = extract("spec", spec_paths)
    combined = f"coalesce({extract('consensus', consensus_paths)}, 'null')"
    (text,) = store.read(
        "SELECT '[' || coalesce(group_concat(json_array(key, status, "
        f"json({spec}), json({combined}))), '') || ']' "
        "FROM (SELECT * FROM trials ORDER BY key)"
    ).fetchone()
    rows = json.loads(text)
    if not rows:
        return (), (), [], []
    keys, statuses, specs, consensus = zip(*rows, strict=True)
    return (
        keys,
        statuses,
        [row[1:] for row in specs],
        [None if row is None else row[1:] for row in consensus],
    )


def _categorical(values: Sequence[Any], categories: Sequence[str] | None = None) -> Any:
    """``values`` as a categorical with sorted categories (None is missing): a design column
    of a million rows then costs a byte a row and its comparisons and groupings run on codes.
    Sorted categories keep sorting by the column lexical, as it was for strings. Coded by
    factorising the objects (a string array would be built and hashed otherwise)."""
    codes, unique = pd.factorize(np.asarray(values, dtype=object))
    if categories is None:
        categories = sorted(value for value in unique if value is not None)
    index = pd.Index(categories)
    of_unique = np.append(index.get_indexer(pd.Index(unique, dtype=object)), -1)
    return pd.Categorical.from_codes(of_unique[codes], categories=index)


def _pick(second: np.ndarray, first_values: Any, second_values: Any) -> Any:
    """Per row, the second categorical's value where ``second`` else the first's (the two
    share their categories)."""
    codes = np.where(second, second_values.codes, first_values.codes)
    return pd.Categorical.from_codes(codes, dtype=first_values.dtype)


def _winner_position(winners: np.ndarray) -> np.ndarray:
    return np.where(winners == "A", 0.0, np.where(winners == "B", 1.0, np.nan))


def _trials(store: Store) -> dict[str, Any]:
    """One array per design field, one entry per trial in key order."""
    keys, statuses, specs, consensus = _trial_columns(store, _SPEC_PATHS, _CONSENSUS_PATHS)
    n = len(keys)
    fields = ("protocol", "arm", "treatment", "signal", "panel", "base_id", "scenario_id",
              "category", "replicate", "identities", "response_indices")  # fmt: skip
    spec = (
        dict(zip(fields, zip(*specs, strict=True), strict=True))
        if n
        else {name: () for name in fields}
    )
    defaults = {"arm": "main", "treatment": "none", "signal": "explicit", "panel": DEFAULT_PANEL}
    out: dict[str, Any] = {}
    for name in ("protocol", "arm", "treatment", "signal", "panel", "base_id", "scenario_id",
                 "category"):  # fmt: skip
        default = defaults.get(name)
        values = spec[name] if default is None else [v or default for v in spec[name]]
        out[name] = _categorical(values)
    out["replicate"] = np.asarray([int(v or 0) for v in spec["replicate"]], dtype=np.int64)
    ids, idx = spec["identities"], spec["response_indices"]
    first_identity = [row[0] for row in ids]
    second_identity = [row[1] if len(row) > 1 else None for row in ids]
    out["first_response_index"] = np.asarray([row[0] for row in idx], dtype=np.int64)
    out["second_response_index"] = np.asarray(
        [row[1] if len(row) > 1 else -1 for row in idx], dtype=np.int64
    )
    out["n_identities"] = np.asarray([len(row) for row in ids], dtype=np.int64)
    identities = sorted({v for v in (*first_identity, *second_identity) if v})
    out["first_identity"] = _categorical(first_identity, identities)
    out["second_identity"] = _categorical(second_identity, identities)
    # Keys are unique and already sorted: each trial is its own category.
    out["trial_key"] = pd.Categorical.from_codes(np.arange(n), categories=pd.Index(keys))
    out["trial_keys"] = keys
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
    # copy=False: each column stays the array it is (pandas would otherwise copy them into
    # blocks, twice the memory of the largest frame at its peak).
    return pd.DataFrame({name: values[name] for name in columns}, columns=columns, copy=False)


def frame_columns(
    store: Store, score_columns: list[str], verdict_columns: list[str],
    turn_columns: list[str], consensus_columns: list[str], *, categorical: bool,
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame, list[str]]:  # fmt: skip
    """The scores, verdicts, turns and consensus frames of ``store`` (see ``load_frames``),
    each trial that repeats an earlier one left out, and those trials' keys. Without
    ``categorical`` the turns carry their request keys (``call_keys``); with it they do not
    (a million tuples of keys would cost more than the rest of a turn)."""
    trials = _trials(store)
    read = read_turns(store, trials["trial_keys"], keep_keys=not categorical)
    dropped = repeated_trials(store, read, trials["trial_keys"], trials["panel"].codes)
    kept = np.ones(len(trials["trial_keys"]), dtype=bool)
    if dropped:
        kept[trials["trial_key"].categories.get_indexer(list(dropped))] = False
    turn_kept = kept[read.trial]
    ok = (trials["trial_status"] == "ok") & kept

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
    turn_trial = read.trial[turn_kept]
    turn = {name: trials[name][turn_trial] for name in turn_columns if name in trials}
    turn["protocol"] = trials["protocol"][turn_trial]
    for name in ("judge", "judge_model", "round_kind", "round", "attempts", "winner_position"):
        turn[name] = getattr(read, name)[turn_kept]
    parse_ok = read.parse_ok[turn_kept]
    turn["parse_ok"] = parse_ok
    if read.call_keys is not None:
        turn["call_keys"] = [read.call_keys[i] for i in np.flatnonzero(turn_kept)]
    else:
        turn_columns = [name for name in turn_columns if name != "call_keys"]
    turns = _frame(turn_columns, turn, categorical)

    # Scores: (parsed turn, candidate, metric) rows; a single trial's answer is candidate A.
    numbers = read.numbers[turn_kept]
    single = turn["protocol"] == "single"
    n_metrics = len(METRICS)
    first = np.where(single[:, None], numbers[:, :n_metrics], numbers[:, n_metrics : 2 * n_metrics])
    by_candidate = np.stack([first, numbers[:, 2 * n_metrics :]], axis=1)
    keep = (
        parse_ok[:, None, None]
        & (positions < trials["n_identities"][turn_trial][:, None, None])
        & np.ones_like(by_candidate, dtype=bool)
    )
    # Scores are the largest frame (about 7 rows a turn): narrow indices, and the turn-level
    # arrays freed before it is built, keep a million turns' peak memory down.
    turn_of, candidate, metric_of = (axis.astype(np.int32) for axis in np.nonzero(keep))
    score = by_candidate[turn_of, candidate, metric_of]
    del numbers, first, by_candidate, keep
    values = _rows(trials, score_columns, turn_trial[turn_of], candidate, metric_of, METRICS)
    for name in ("judge", "judge_model", "round", "round_kind"):
        values[name] = turn[name][turn_of]
    del turn_of, candidate, metric_of
    values["score"] = score
    scores = _frame(score_columns, values, categorical)
    return scores, verdicts, turns, consensus, sorted(dropped)


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
