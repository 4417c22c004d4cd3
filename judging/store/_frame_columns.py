"""The store's trials and turns read in columns, for ``load_frames``.

A run of a million judge turns cannot afford a Python dict per turn and per score (the frames
once cost about 8.5 KB a turn). Here only what the store packed for the analysis is read (each
trial's design fields, each turn's packed integers and numbers; raw text and the rest of each
spec stay in the file), and the four frames are assembled with numpy takes over per-trial
arrays: one row of a trial's design is shared by all its turns and scores, and repeated
strings are one object each.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pandas as pd

from fairpanel.judging.experiment._config import DEFAULT_PANEL
from fairpanel.judging.protocol._judgment import METRICS
from fairpanel.judging.store._store import Store
from fairpanel.judging.store._trial_pack import DESIGN_NUMBERS, DESIGN_TEXTS, MISSING, UNIT
from fairpanel.judging.store._turn_read import read_turn_packs, read_turns, repeated_trials

__all__ = ["frame_columns"]

_SORTED_METRICS = tuple(sorted(METRICS))


def _trial_columns(
    store: Store,
) -> tuple[list[str], list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Every trial's key, status, design texts (an object array, a row per trial and a
    column per ``DESIGN_TEXTS``; None where absent) and design numbers (a float row per
    trial, a column per ``DESIGN_NUMBERS``), in key order. The designs were stored with each
    trial (``_trial_pack``): SQLite joins each column over the trials and Python splits it.
    Last, each trial's ``request_digest``."""
    # Read in the table's order (a scan; ORDER BY key would visit the rows by the key index,
    # one lookup each) and sorted here.
    keys, statuses, texts, numbers, digests, count = store.read(
        "SELECT group_concat(key, char(31)), group_concat(status, char(31)), "
        "group_concat(design, char(31)), CAST(group_concat(design_numbers, '') AS BLOB), "
        "CAST(group_concat(request_digest, '') AS BLOB), count(*) FROM trials"
    ).fetchone()
    if not count:
        empty = np.empty((0, len(DESIGN_TEXTS)), object)
        return [], [], empty, np.empty((0, len(DESIGN_NUMBERS))), np.empty(0, np.int64)
    key_array = np.asarray(keys.split(UNIT), dtype=object)
    status_array = np.asarray(statuses.split(UNIT), dtype=object)
    if not key_array.size == status_array.size == count:
        raise ValueError("a trial key holds a control character")
    values = np.frombuffer(numbers or b"", dtype="<f8")
    request = np.frombuffer(digests or b"", dtype="<i8")
    split = np.asarray((texts or "").split(UNIT), dtype=object)
    if (
        values.size != count * len(DESIGN_NUMBERS)
        or split.size != count * len(DESIGN_TEXTS)
        or request.size != count
    ):
        raise ValueError(
            "the store holds trials without their design fields (or a design text holds a "
            "control character)"
        )
    split[split == MISSING] = None
    order = np.argsort(key_array, kind="stable")
    return (
        key_array[order].tolist(),
        status_array[order].tolist(),
        split.reshape(count, -1)[order],
        values.reshape(count, -1)[order],
        request[order],
    )


def _categorical(
    values: Sequence[Any] | np.ndarray, categories: Sequence[str] | None = None
) -> Any:
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
    keys, statuses, texts, numbers, request = _trial_columns(store)
    n = len(keys)
    text = {name: texts[:, index] for index, name in enumerate(DESIGN_TEXTS)}
    number = {name: numbers[:, index] for index, name in enumerate(DESIGN_NUMBERS)}
    defaults = {"arm": "main", "treatment": "none", "signal": "explicit", "panel": DEFAULT_PANEL}
    out: dict[str, Any] = {}
    for name in DESIGN_TEXTS[:8]:
        values = text[name]
        if name in defaults:
            values = values.copy()
            values[(values == None) | (values == "")] = defaults[name]  # noqa: E711
        out[name] = _categorical(values)
    for name in ("replicate", "n_identities", "first_response_index", "second_response_index",
                 "request_keys"):  # fmt: skip
        out[name] = number[name].astype(np.int64)
    out["request_digest"] = request
    first_identity, second_identity = text["first_identity"], text["second_identity"]
    identities = sorted({v for v in (*set(first_identity), *set(second_identity)) if v})
    out["first_identity"] = _categorical(first_identity, identities)
    out["second_identity"] = _categorical(second_identity, identities)
    # Keys are unique and already sorted: each trial is its own category.
    out["trial_key"] = pd.Categorical.from_codes(np.arange(n), categories=pd.Index(keys))
    out["trial_keys"] = keys
    out["trial_status"] = _categorical(statuses)
    out["has_consensus"] = number["has_consensus"] == 1.0
    out["consensus_method"] = _categorical(text["consensus_method"])
    out["consensus_winner"] = text["consensus_winner"]
    scores = numbers[:, len(DESIGN_NUMBERS) - 2 * len(METRICS) :]
    out["consensus_scores"] = np.ascontiguousarray(scores).reshape(n, 2, len(METRICS))
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
    # The turns' packs are read on another thread, during the trials' read.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="turns") as pool:
        packs = pool.submit(read_turn_packs, store, keep_keys=not categorical)
        trials = _trials(store)
        read = read_turns(store, packs.result(), trials["trial_keys"])
    dropped = repeated_trials(
        store,
        trials["request_digest"],
        trials["request_keys"] > 0,
        trials["trial_keys"],
        trials["panel"].codes,
    )
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
