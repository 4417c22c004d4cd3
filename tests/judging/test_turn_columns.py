"""The turns read in columns: packed numbers, their backfill, read ranges and repeats."""

from __future__ import annotations

import dataclasses
import math
import sqlite3
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from fairpanel.agents import Usage
from fairpanel.judging import STORE_FILE, RunFrames, Store, TrialRecord, TurnRecord, load_frames
from fairpanel.judging.store import _turn_read
from fairpanel.judging.store._trial_pack import request_digest
from fairpanel.judging.store._turn_pack import NUMBER_FIELDS, PARSED_PATHS, packed_numbers

METRICS = ("creativity", "accuracy", "efficiency", "reliability")


def _spec(protocol: str, panel: str | None, scenario: str) -> dict[str, Any]:
    pair = protocol == "pair"
    return {
        "protocol": protocol, "arm": "main", "treatment": None, "signal": None, "panel": panel,
        "base_id": scenario.split("/")[0], "scenario_id": scenario, "category": "gender",
        "replicate": 0, "identities": ["female", "male"] if pair else ["female"],
        "response_indices": [1, 2] if pair else [1],
    }  # fmt: skip


def _turn(index: int, parsed: dict[str, Any] | None, keys: tuple[str, ...]) -> TurnRecord:
    return TurnRecord(
        round=index // 2,
        round_kind="first" if index < 2 else "final",
        judge=f"judge-{index % 2}",
        speaker_index=index % 2,
        judge_model="mock/judge",
        raw_text="{}",
        parsed=parsed,
        parse_error=None if parsed else "no JSON object",
        attempts=1 if parsed else 3,
        usage=Usage(),
        latency_s=0.0,
        call_keys=keys,
    )


def _trial(key: str, protocol: str, keys: list[tuple[str, ...]], panel: str | None = None,
           scenario: str = "s/01", status: str = "ok") -> TrialRecord:  # fmt: skip
    turns = []
    for index, turn_keys in enumerate(keys):
        score = {metric: (index + len(metric)) % 11 for metric in METRICS}
        if protocol == "pair":
            parsed = {"A": score, "B": {m: 10 - v for m, v in score.items()},
                      "winner": "AB"[index % 2], "reason": "r"}  # fmt: skip
        else:
            parsed = {**score, "reason": "r"}
        turns.append(_turn(index, None if index == 1 and protocol == "single" else parsed,
                           turn_keys))  # fmt: skip
    consensus = {"method": "mean", "winner": "A", "scores": {"A": {"accuracy": 5.5}}}
    return TrialRecord(key, protocol, _spec(protocol, panel, scenario), status,
                       None if status == "ok" else "boom", consensus, turns)  # fmt: skip


def _store(path: Path, records: list[TrialRecord]) -> Store:
    store = Store(path)
    for record in records:
        store.put_trial(record)
    return store


def _assert_same(first: RunFrames, second: RunFrames) -> None:
    for name in ("scores", "verdicts", "turns", "consensus"):
        pd.testing.assert_frame_equal(getattr(first, name), getattr(second, name))
    assert first.duplicate_trials == second.duplicate_trials


RECORDS = [
    _trial("t3", "pair", [("k31",), ("k32",), ("k33", "k34"), ("k35",)]),
    _trial("t1", "single", [("k11",), ("k12",), ("k13",)], status="failed"),
    _trial("t2", "pair", [("k21",), ("k22",)], scenario="u/02"),
]


def test_a_store_written_before_packed_numbers_is_backfilled_and_reads_the_same(
    tmp_path: Path,
) -> None:
    path = tmp_path / STORE_FILE
    store = _store(path, RECORDS)
    fresh = load_frames(store)
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE turns SET numbers = NULL")
        db.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    db.close()
    store = Store(path)
    try:
        _assert_same(load_frames(store), fresh)
        assert store.read("SELECT count(*) FROM turns WHERE numbers IS NULL").fetchone() == (0,)
    finally:
        store.close()
    assert len(fresh.turns) == 9 and fresh.turns["parse_ok"].sum() == 8
    assert fresh.turns["winner_position"].tolist()[3:] == [0.0, 1.0] * 3


def test_frames_do_not_depend_on_how_many_turns_a_query_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ranges of two rowids, with gaps where a failed trial's turns were replaced."""
    store = _store(tmp_path / STORE_FILE, RECORDS)
    try:
        store.put_trial(_trial("t1", "single", [("k11",), ("k12",), ("k14",)]))  # retried
        whole = load_frames(store)
        monkeypatch.setattr(_turn_read, "RANGE_TURNS", 2)
        _assert_same(load_frames(store), whole)
        _assert_same(load_frames(store, categorical=True), load_frames(store, categorical=True))
    finally:
        store.close()
    assert whole.turns["trial_key"].tolist() == ["t1"] * 3 + ["t2"] * 2 + ["t3"] * 4
    assert whole.turns.loc[whole.turns["trial_key"] == "t1", "call_keys"].tolist() == [
        ("k11",), ("k12",), ("k14",),
    ]  # fmt: skip


def test_a_trial_repeats_another_only_with_the_same_keys_in_the_same_panel(
    tmp_path: Path,
) -> None:
    keys = [("k1",), ("k2",)]
    records = [
        _trial("a", "pair", keys, panel="p"),
        _trial("b", "pair", keys, panel="p"),  # repeats a
        _trial("c", "pair", keys, panel="q"),  # another panel's observation
        _trial("d", "pair", [("k1",), ("k9",)], panel="p"),  # shares one key only
    ]
    store = _store(tmp_path / STORE_FILE, records)
    try:
        frames = load_frames(store, categorical=True)
        assert frames.duplicate_trials == ("b",)
        assert set(frames.verdicts["trial_key"]) == {"a", "c", "d"}
        # d's digest made a's (as if its keys' digests summed alike): the keys themselves decide.
        store.read(
            "UPDATE trials SET request_digest = "
            "(SELECT request_digest FROM trials WHERE key = 'a') WHERE key = 'd'"
        )
        assert store.read(
            "SELECT count(DISTINCT request_digest) FROM trials WHERE key IN ('a', 'b', 'd')"
        ).fetchone() == (1,)
        assert load_frames(store).duplicate_trials == ("b",)
    finally:
        store.close()


def test_turns_without_packed_numbers_are_an_error_not_missing_scores(tmp_path: Path) -> None:
    store = _store(tmp_path / STORE_FILE, RECORDS)
    try:
        store.read("UPDATE turns SET numbers = NULL WHERE trial_key = 't2'")
        with pytest.raises(ValueError, match="without their packed numbers"):
            load_frames(store)
    finally:
        store.close()


def test_packed_numbers_hold_the_verdict_position_and_every_score() -> None:
    def unpacked(parsed: dict[str, Any] | None) -> list[float]:
        return pd.Series(memoryview(packed_numbers(parsed)).cast("d")).tolist()

    pair = {"A": {"accuracy": 7}, "B": {"accuracy": 3.5, "creativity": None}, "winner": "B"}
    values = unpacked(pair)
    assert len(values) == NUMBER_FIELDS == 1 + len(PARSED_PATHS)
    assert values[0] == 1.0
    assert values[1 + PARSED_PATHS.index(("A", "accuracy"))] == 7.0
    assert values[1 + PARSED_PATHS.index(("B", "accuracy"))] == 3.5
    assert sum(not math.isnan(v) for v in values) == 3
    assert math.isnan(unpacked({**pair, "winner": "tie"})[0])
    assert math.isnan(unpacked({"winner": "A", "accuracy": 2})[0]) is False
    assert all(math.isnan(v) for v in unpacked(None))
    with pytest.raises(ValueError, match="not a number"):
        packed_numbers({"accuracy": True})
    with pytest.raises(ValueError, match="not a number"):
        packed_numbers({"A": {"accuracy": "7"}})


def test_a_store_written_before_designs_and_codes_is_backfilled_and_reads_the_same(
    tmp_path: Path,
) -> None:
    path = tmp_path / STORE_FILE
    store = _store(path, RECORDS)
    fresh = load_frames(store)
    categorical = load_frames(store, categorical=True)
    packed = "SELECT key, design, design_numbers, request_digest FROM trials ORDER BY key"
    written = store.read(packed).fetchall()
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("UPDATE trials SET design = NULL, design_numbers = NULL, request_digest = NULL")
        db.execute("UPDATE turns SET codes = NULL")
        db.execute("DELETE FROM turn_names")
        db.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    db.close()
    store = Store(path)
    try:
        _assert_same(load_frames(store), fresh)
        _assert_same(load_frames(store, categorical=True), categorical)
        assert store.read("SELECT count(*) FROM turns WHERE codes IS NULL").fetchone() == (0,)
        assert store.read(packed).fetchall() == written
    finally:
        store.close()
    assert fresh.turns["judge"].tolist()[:3] == ["judge-0", "judge-1", "judge-0"]
    assert fresh.consensus["score"].tolist() == [5.5, 5.5]  # t2 and t3: A accuracy
    assert fresh.verdicts["trial_key"].tolist() == ["t2", "t3"]


def test_turns_find_their_trials_by_key_when_two_trials_digests_collide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store(tmp_path / STORE_FILE, RECORDS)
    try:
        whole = load_frames(store)
        collide = {"t1": 7, "t2": 7, "t3": 9}
        monkeypatch.setattr(_turn_read, "digest", collide.__getitem__)
        _assert_same(load_frames(store), whole)
    finally:
        store.close()


def test_turns_without_their_codes_or_names_are_an_error(tmp_path: Path) -> None:
    store = _store(tmp_path / STORE_FILE, RECORDS)
    try:
        store.read("DELETE FROM turn_names WHERE judge = 'judge-1'")
        with pytest.raises(ValueError, match="names it does not hold"):
            load_frames(store)
        store.read("UPDATE turns SET codes = NULL WHERE trial_key = 't2'")
        with pytest.raises(ValueError, match="without their packed codes"):
            load_frames(store)
        store.read("UPDATE trials SET design = NULL WHERE key = 't2'")
        with pytest.raises(ValueError, match="without their design fields"):
            load_frames(store)
    finally:
        store.close()


def test_a_judge_named_only_by_a_replaced_attempt_is_no_category(tmp_path: Path) -> None:
    failed = _trial("t1", "single", [("k11",), ("k12",)], status="failed")
    gone = dataclasses.replace(failed, turns=[
        dataclasses.replace(turn, judge=f"gone-{turn.speaker_index}") for turn in failed.turns
    ])  # fmt: skip
    store = _store(tmp_path / STORE_FILE, [gone, *RECORDS])  # RECORDS' t1 replaces it
    try:
        assert store.read(
            "SELECT count(*) FROM turn_names WHERE judge LIKE 'gone-%'"
        ).fetchone() == (2,)
        frames = load_frames(store, categorical=True)
        assert list(frames.turns["judge"].cat.categories) == ["judge-0", "judge-1"]
        assert list(frames.turns["round_kind"].cat.categories) == ["final", "first"]
    finally:
        store.close()


def test_a_request_digest_is_of_the_set_of_keys() -> None:
    assert request_digest(["k1", "k2", "k1"]) == request_digest(["k2", "k1"])
    assert request_digest(["k1", "k2"]) != request_digest(["k1", "k3"])
    assert request_digest(["k1"]) != request_digest(["k1", "k2"]) != request_digest([])
