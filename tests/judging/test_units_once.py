"""A unit counts once: byte-identical judge requests are one observation, and a scenario whose
two responses are (nearly) the same is reported."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from conftest import Cli, WriteExperiment, read_json

import fairpanel.agents.providers._mock_responder as mock_responder
from fairpanel.agents import Usage
from fairpanel.judging import (
    METRICS,
    NEAR_IDENTICAL_RATIO,
    STORE_FILE,
    RunFrames,
    Store,
    TrialRecord,
    TurnRecord,
    load_frames,
    response_warnings,
    similar_responses,
)
from fairpanel.judging.store import duplicate_trials_of
from fairpanel.judging.store._similar_responses import response_similarity

EXPERIMENT = """\
name: units-once
seed: 7
protocols: [single, pair]
models:
  judge: {id: mock/judge}
responder: {model: mock/responder}
panel:
  judges: [domain_expert, creativity_reviewer, clarity_editor]
  model: judge
  discussion_rounds: 1
scenarios: {bases: [fitness-coaching], derived_per_base: 2}
identities: {categories: [gender]}
pair: {counterbalance: true}
arms: {placebo: false, same_label: false}
concurrency: 4
"""


def test_duplicates_are_later_trials_with_the_same_complete_set_of_requests() -> None:
    dropped = duplicate_trials_of(
        {
            "t3": ["x", "y"],
            "t1": ["y", "x"],  # first in key order: kept
            "t2": ["x"],  # a subset is not the same requests
            "t4": ["x", "y", "x"],
            "t5": [],  # no keys: never a duplicate
            "t6": [],
        }
    )
    assert dropped == {"t3": "t1", "t4": "t1"}


def _frame(trial_keys: list[str], **columns: list[object]) -> pd.DataFrame:
    return pd.DataFrame({"trial_key": trial_keys, **columns})


def test_deduplicated_drops_repeats_from_all_four_frames() -> None:
    turns = _frame(["a", "a", "b", "b", "c"], call_keys=[("k1",), ("k2",), ("k2",), ("k1",), ()])
    frames = RunFrames(
        scores=_frame(["a", "b", "c"], score=[1.0, 2.0, 3.0]),
        verdicts=_frame(["a", "b"], winner_position=[0.0, 1.0]),
        turns=turns,
        consensus=_frame(["b", "c"], score=[2.0, 3.0]),
    ).deduplicated()
    assert frames.duplicate_trials == ("b",)
    assert list(frames.scores["trial_key"]) == ["a", "c"]
    assert list(frames.verdicts["trial_key"]) == ["a"]
    assert list(frames.turns["trial_key"]) == ["a", "a", "c"]
    assert list(frames.consensus["trial_key"]) == ["c"]
    assert frames.where(trial_key="a").duplicate_trials == ("b",)  # run-wide, kept by where
    hand_built = RunFrames(frames.scores, frames.verdicts, frames.turns.drop(columns="call_keys"))
    assert hand_built.deduplicated() is hand_built  # no request keys: nothing to compare


def _run(cli: Cli, write: WriteExperiment, tmp_path: Path) -> tuple[Path, Store]:
    out = tmp_path / "run"
    result = cli("run", str(write(EXPERIMENT)), "--out", str(out), "--no-report")
    assert result.exit_code == 0, result.output
    return out, Store(out / STORE_FILE)


def test_identical_responses_make_two_arrangements_one_observation(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The mock's rewrite swaps a few words; without them response 2 is response 1 verbatim.
    monkeypatch.setattr(mock_responder, "_SYNONYMS", ())
    out, store = _run(cli, write_experiment, tmp_path)
    try:
        texts = Counter((scenario, text) for scenario, _, _, text in store.responses())
        assert sorted(texts.values()) == [2, 2]  # both scenarios: the same text twice
        specs = {key: spec for key, spec, *_ in store.iter_trials()}
        assert len(specs) == 2 * 2 + 2 * 4  # 2 scenarios: 2 singles, 4 pair arrangements
        frames = load_frames(store)
        # Per scenario, the pair's two answer orders under one label arrangement are one
        # prompt: (female, male) shown as responses (1, 2) or (2, 1) reads the same.
        assert len(frames.duplicate_trials) == 2 * 2
        dropped = [specs[key] for key in frames.duplicate_trials]
        assert {spec["protocol"] for spec in dropped} == {"pair"}
        for name in ("scores", "verdicts", "turns", "consensus"):
            assert not set(getattr(frames, name)["trial_key"]) & set(frames.duplicate_trials)
        assert len(frames.verdicts) == 2 * 2
        assert set(frames.turns["trial_key"]) == set(specs) - set(frames.duplicate_trials)
        # Each judge request the store holds is now counted by exactly one remaining trial.
        per_trial = frames.turns.groupby("trial_key")["call_keys"].agg(
            lambda keys: {key for turn in keys for key in turn}
        )
        counted = Counter(key for keys in per_trial for key in keys)
        judge_calls = store.trial_call_keys()
        assert set(counted) == {key for keys in judge_calls.values() for key in keys}
        assert set(counted.values()) == {1}
        # The warning says what happened, and the run printed it into summary.json.
        warnings = response_warnings(store)
        assert len(warnings) == 2
        # The report counts the frames' own repeats instead of asking the store again.
        assert response_warnings(store, frames.duplicate_trials) == warnings
        assert response_warnings(store, ()) != warnings
        for warning, found in zip(warnings, similar_responses(store), strict=True):
            assert found.kind == "identical" and found.duplicate_trials == 2
            assert warning.startswith(f"scenario {found.scenario_id}: ")
            assert "byte-identical judge requests count once; 2 trials were dropped" in warning
        assert [w for w in read_json(out / "summary.json")["warnings"] if "scenario" in w] == (
            warnings
        )
    finally:
        store.close()


def test_distinct_responses_drop_nothing_and_near_copies_are_kept_with_a_warning(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    out, store = _run(cli, write_experiment, tmp_path)
    try:
        frames = load_frames(store)
        assert frames.duplicate_trials == ()
        assert frames.turns["trial_key"].nunique() == 2 * 2 + 2 * 4
        # The mock rewrites by swapping one word: nearly a copy, which the check reports.
        found = similar_responses(store)
        assert [f.kind for f in found] == ["near-identical", "near-identical"]
        assert all(NEAR_IDENTICAL_RATIO <= f.ratio < 1.0 for f in found)
        warnings = response_warnings(store)
        assert all(
            w.endswith("kept, but label contrasts on this scenario compare near-identical answers")
            for w in warnings
        )
        assert set(warnings) <= set(read_json(out / "summary.json")["warnings"])
    finally:
        store.close()


def test_response_similarity_kinds_and_threshold() -> None:
    answer = " ".join(f"Step {i}: check the dose, record it and tell the nurse." for i in range(8))
    assert response_similarity(answer, answer) == ("identical", 1.0)
    assert response_similarity(answer, "  " + answer.upper().replace(" ", "\n ")) == (
        "identical after whitespace and case normalisation",
        1.0,
    )
    one_word = answer.replace("record", "log", 1)
    kind, ratio = response_similarity(answer, one_word)
    assert kind == "near-identical" and NEAR_IDENTICAL_RATIO <= ratio < 1.0
    rewrite = " ".join(f"Stage {i}: confirm the amount, note it, inform staff." for i in range(8))
    kind, ratio = response_similarity(answer, rewrite)
    assert kind == "distinct" and ratio < NEAR_IDENTICAL_RATIO


def _turn(judge: str, parsed: dict[str, object] | None, key: str) -> TurnRecord:
    return TurnRecord(
        round=0,
        round_kind="final",
        judge=judge,
        speaker_index=0,
        judge_model="mock/judge",
        raw_text="{}",
        parsed=parsed,
        parse_error=None if parsed else "bad",
        attempts=1,
        usage=Usage(),
        latency_s=0.0,
        call_keys=(key,),
    )


def test_turns_and_scores_of_failed_trials_say_so(tmp_path: Path) -> None:
    """Failed trials' turns stay (failure rates need them) but are marked, so per-judge
    analyses can use the trials the panel's verdicts come from (audit D3)."""
    spec = {
        "protocol": "single", "arm": "main", "scenario_id": "s/01", "base_id": "s",
        "category": "gender", "identities": ["female"], "response_indices": [1],
    }  # fmt: skip
    scores = {metric: 6 for metric in METRICS}
    store = Store(tmp_path / STORE_FILE)
    try:
        store.put_trial(
            TrialRecord(
                key="ok",
                protocol="single",
                spec=spec,
                status="ok",
                error=None,
                consensus={"method": "mean", "scores": {"A": scores}},
                turns=[_turn("a", scores, "k-ok")],
            )
        )
        store.put_trial(
            TrialRecord(
                key="failed",
                protocol="single",
                spec=spec,
                status="failed",
                error="the moderator gave no valid answer",
                consensus=None,
                turns=[_turn("a", scores, "k-failed"), _turn("b", None, "k-b")],
            )
        )
        frames = load_frames(store)
    finally:
        store.close()
    status = dict(
        zip(
            frames.turns["judge"] + frames.turns["trial_key"],
            frames.turns["trial_status"],
            strict=True,
        )
    )
    assert status == {"aok": "ok", "afailed": "failed", "bfailed": "failed"}
    by_trial = frames.scores.groupby("trial_key")["trial_status"].agg(set).to_dict()
    assert by_trial == {"ok": {"ok"}, "failed": {"failed"}}
    assert set(frames.consensus["trial_key"]) == {"ok"}
    assert frames.duplicate_trials == ()
