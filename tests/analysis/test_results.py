"""results.json's typed blocks: the file is their plain dump, byte for byte, and an older file
without the later blocks still loads."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_analysis import GENDER, make_scores, make_turns, make_verdicts

from fairpanel.analysis import (
    ArmResults,
    ControlFalsePositives,
    DesignBlock,
    RunResults,
    WinRateRow,
    analyze,
    analyze_arm,
)


@pytest.fixture(scope="module")
def report() -> dict[str, object]:
    rng = np.random.default_rng(5)
    single = make_scores(rng, {"gender": GENDER}, n_trials=12)
    pair = make_scores(rng, {"gender": GENDER}, n_trials=12, protocol="pair")
    scores = pd.concat([single, pair], ignore_index=True)
    return analyze(scores, make_verdicts(rng, 40), make_turns(30, fail_every=4))


def test_analyze_is_the_dump_of_the_typed_results(report: dict[str, object]) -> None:
    typed = RunResults.model_validate(report)
    # Same keys, same order, same numbers: the JSON text is identical.
    assert json.dumps(typed.to_json()) == json.dumps(report)
    assert typed.position_bias is not None and typed.effects and typed.pair.win_rates
    assert isinstance(typed.single.mean_scores.rows[0].n, int)


def test_analyze_arm_returns_the_typed_form_of_analyze() -> None:
    empty = pd.DataFrame()
    typed = analyze_arm(empty, empty, empty)
    assert isinstance(typed, ArmResults)
    assert typed.to_json() == analyze(empty, empty, empty)
    # A run without verdicts writes its position-bias block as {} and reads it back as None.
    assert typed.position_bias is None and typed.to_json()["position_bias"] == {}


def test_numbers_keep_the_type_the_statistics_gave_them() -> None:
    # An int in a rate stays an int and a float a float, so a dump writes "0" where the
    # analysis wrote 0 and "0.0" where it wrote 0.0 (pydantic's float would turn 0 into 0.0).
    row = {"category": "gender", "identity": "female", "rate": 0, "ci_low": 0.0}
    dumped = WinRateRow.model_validate(row).model_dump()
    assert json.dumps(dumped["rate"]) == "0" and json.dumps(dumped["ci_low"]) == "0.0"


def test_writing_refuses_a_key_the_models_do_not_carry(report: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="do not carry every computed key"):
        ArmResults.from_report({**report, "new_block": []})
    failures = report["failures"]
    assert isinstance(failures, list) and failures
    renamed = [{**failures[0], "extra": 1}, *failures[1:]]
    with pytest.raises(ValueError, match="do not carry"):
        ArmResults.from_report({**report, "failures": renamed})


def test_an_older_results_file_loads_with_its_missing_blocks_empty(tmp_path: Path) -> None:
    old = {
        "n_trials": {"single": 4, "pair": 0},
        "single": {"mean_scores": {"rows": [{"category": "gender", "identity": "female"}]}},
        "pair": {"win_rates": [{"category": "gender", "identity": "female", "wins": 3}]},
        "failures": [],
        "retired_block": {"anything": 1},
    }
    path = tmp_path / "results.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    typed = RunResults.read(path)
    assert typed.headline is None and typed.design is None and typed.position_bias is None
    assert typed.effects == [] and typed.control_arms == {} and typed.injection_robustness == {}
    assert typed.round_kind == "final"
    assert typed.pair.win_rates[0].wins == 3 and typed.pair.win_rates[0].losses == 0
    assert typed.single.mean_scores.rows[0].overall is None


def test_control_false_positives_keep_their_shape() -> None:
    block = {
        "same_label": {
            "n_verdicts": 2,
            "identity_effect": None,
            "verdict": "no verdict: no identity contrast",
            "label_swap_tests": {"tests": 1, "rejected": 0, "rows": [{"contrast": "a vs b"}]},
        },
        "placebo": {
            "n_verdicts": 3,
            "identity_effect": False,
            "verdict": "No detectable identity effect",
            "position_bias": False,
            "primary_tests": 2,
        },
        "note": "control arms carry no identity contrast",
    }
    typed = RunResults.model_validate({"control_false_positives": block})
    assert set(typed.false_positive_arms()) == {"same_label", "placebo"}
    assert typed.false_positive_note == block["note"]
    placebo = typed.false_positive_arms()["placebo"]
    assert isinstance(placebo, ControlFalsePositives) and placebo.label_swap_tests is None
    assert placebo.identity_effect is False and placebo.primary_tests == 2
    dumped = typed.to_json()["control_false_positives"]
    assert "label_swap_tests" not in dumped["placebo"]
    assert dumped["same_label"]["label_swap_tests"]["rows"][0]["contrast"] == "a vs b"
    assert list(dumped) == ["same_label", "placebo", "note"]


def test_control_blocks_from_before_the_arms_had_a_headline_still_load() -> None:
    # Older files held a position-bias block per arm; it made no call, so it reads as none.
    old = {"placebo": {"n_verdicts": 3, "position_bias": {"first_position_win_rate": 0.6}}}
    typed = RunResults.model_validate({"control_false_positives": old})
    placebo = typed.false_positive_arms()["placebo"]
    assert placebo.position_bias is None and placebo.identity_effect is None


def test_assemble_writes_what_the_run_folder_held(report: dict[str, object]) -> None:
    empty = pd.DataFrame()
    main = ArmResults.model_validate(report)
    control = analyze_arm(empty, empty, empty)
    design: dict[str, object] = {
        "arms": ["main", "placebo"],
        "treatments": ["none"],
        "signals": ["explicit"],
        "n_bases": 6,
        "duplicates_dropped": 2,
        "warnings": ["scenario s1: the two responses are identical"],
        "note": "the sections above cover the main arm under treatment 'none'",
    }
    placebo = ControlFalsePositives(n_verdicts=0, verdict="no verdict").to_json()
    false_positives = {"placebo": placebo, "note": "no contrast"}
    by_hand = {
        **report,
        "design": design,
        "by_treatment": {},
        "treatment_effects": [],
        "control_arms": {"placebo": control.to_json()},
        "injection_robustness": {},
        "control_false_positives": false_positives,
    }
    assembled = RunResults.assemble(
        main,
        design=DesignBlock.model_validate(design),
        by_treatment={},
        control_arms={"placebo": control},
        injection_robustness={},
        control_false_positives=false_positives,
    )
    assert json.dumps(assembled.to_json()) == json.dumps(by_hand)
