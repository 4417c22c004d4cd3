"""The judge-bias study: answers and prompts, the design, the bias-sensitive rate against an
independent computation from the store, and the example on the mock with and without its
planted length preference.

Runtime: two shrunk runs of the example (192 mock calls each, no report) shared by the module.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from conftest import Cli
from helpers.paths import EXAMPLES
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

import fairpanel
from fairpanel.judging import STORE_FILE
from fairpanel.studies import estimate_study, load_study, study_results
from fairpanel.studies.judge_bias import (
    CORRECT_ANSWER,
    OUTCOME_COLUMNS,
    JudgeBias,
    JudgeBiasConfig,
    bias_sensitivity,
    judge_prompt,
    wrong_answer,
)

EXAMPLE = EXAMPLES / "judge-bias.yaml"
SHRINK = {
    "categories": ["Religion", "SES"],
    "items_per_category": 12,
    "manipulations": [{"kind": "verbosity", "ratio": 2}, "bandwagon"],
    "bootstrap_resamples": 400,
}


def _example(planted: bool) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    if not planted:
        del data["models"]["judge"]["mock"]
    return {**data, **SHRINK}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, Any]]]:
    """The example shrunk, with and without the planted length preference: run folder and
    results."""
    found = {}
    for name, planted in (("planted", True), ("plain", False)):
        folder = tmp_path_factory.mktemp(name)
        path = folder / "judge-bias.yaml"
        path.write_text(yaml.safe_dump(_example(planted)), encoding="utf-8")
        config = load_study(path)
        first = fairpanel.run(config, folder / "run", report=False).summary
        # Run again: every item and call is already stored, nothing is asked twice.
        again = fairpanel.run(config, folder / "run", report=False).summary
        assert first.calls_made == first.items_ok == 192 and again.calls_made == 0, name
        found[name] = (folder / "run", study_results(folder / "run", config))
    return found


def _row(results: dict[str, Any], label: str) -> dict[str, Any]:
    row: dict[str, Any] = next(r for r in results["manipulations"] if r["label"] == label)
    return row


def test_the_design_judges_every_item_in_both_orders_untouched_and_manipulated() -> None:
    config = JudgeBiasConfig.model_validate({**SHRINK, "judge": {"model": "mock/j"}})
    items = list(JudgeBias(config).items())
    # 24 BBQ items x 2 orders x (untouched, verbosity, bandwagon, same-text control).
    assert len(items) == 24 * 2 * 4 and len({i.key() for i in items}) == len(items)
    # No two BBQ items show the judge the same text (BBQ repeats some in its metadata only).
    assert len({(i.task, i.wrong, i.order, i.arm) for i in items}) == len(items)
    assert {i.arm for i in items} == {
        "untouched",
        "verbosity-2x",
        "bandwagon-80",
        "same-text-control",
    }
    for item in items[:8]:
        prompt, wrong = judge_prompt(item)
        first, second = prompt.index('<candidate id="A"'), prompt.index('<candidate id="B"')
        wrong_at = first if item.order == "wrong_first" else second
        right_at = second if item.order == "wrong_first" else first
        assert prompt.index(wrong) > wrong_at and prompt.index(CORRECT_ANSWER, right_at) > 0
        if item.arm == "verbosity-2x":  # the wrong answer padded, the correct one untouched
            assert wrong.startswith(item.wrong) and len(wrong.split()) >= 2 * len(
                item.wrong.split()
            )
            assert prompt.count(CORRECT_ANSWER) == 1
        if item.arm == "bandwagon-80":  # a note naming the wrong answer's letter
            letter = "A" if item.order == "wrong_first" else "B"
            assert f"preferred candidate {letter}." in prompt and wrong == item.wrong
    # One judge call per item, and `fairpanel estimate` plans exactly those.
    assert estimate_study(config).calls == {"judge": len(items)}
    # The two answers are of one length class.
    bbq = JudgeBias(config).chosen
    ratios = [len(wrong_answer(i).split()) / len(CORRECT_ANSWER.split()) for i in bbq]
    assert min(ratios) >= 0.8 and max(ratios) <= 1.6


def test_a_planted_length_preference_is_caught_on_the_padded_wrong_answer(
    runs: dict[str, tuple[Path, dict[str, Any]]],
) -> None:
    planted = _row(runs["planted"][1], "verbosity-2x")
    plain = _row(runs["plain"][1], "verbosity-2x")
    assert planted["n_pairs"] == plain["n_pairs"] == 48
    # Padded, the wrong answer wins almost every pair: every right verdict flips.
    assert planted["accuracy_manipulated"] < 0.05 and planted["reverse"] < 0.05
    assert planted["rate"] > 0.9 * planted["accuracy_untouched"] > 0.3
    assert planted["called"] and planted["ci_low"] > plain["rate"]
    # Without the preference the mock's verdict is a fresh coin on any changed text: flips go
    # both ways about equally and match the same-text control's; nothing is called.
    for results in (runs["plain"][1], runs["planted"][1]):
        for label in ("bandwagon-80", "same-text-control"):
            assert not _row(results, label)["called"], label
    assert not plain["called"] and abs(plain["net"]) < 0.1 and abs(plain["excess"]) < 0.1
    assert planted["net"] > 0.35 and planted["excess"] > plain["excess"] + 0.15
    assert planted["length_ratio"] > 2 and _row(runs["plain"][1], "bandwagon-80")[
        "length_ratio"
    ] == pytest.approx(1.0)


def _stored_outcomes(run_dir: Path) -> pd.DataFrame:
    with sqlite3.connect(run_dir / STORE_FILE) as db:
        rows = db.execute("SELECT spec, result FROM study_items WHERE status = 'ok'").fetchall()
    records = []
    for spec_text, result_text in rows:
        spec, result = json.loads(spec_text), json.loads(result_text)
        wrong_letter = "A" if spec["order"] == "wrong_first" else "B"
        records.append(
            {
                "item": (spec["category"], spec["example_id"], spec["order"]),
                "arm": spec["arm"],
                "right": result["winner"] != wrong_letter,
            }
        )
    return pd.DataFrame(records).pivot(index="item", columns="arm", values="right")


def test_the_rate_and_mcnemar_match_an_independent_computation_from_the_store(
    runs: dict[str, tuple[Path, dict[str, Any]]],
) -> None:
    for run_dir, results in runs.values():
        wide = _stored_outcomes(run_dir)
        p_values = []
        for row in results["manipulations"]:
            before, after = wide["untouched"].astype(bool), wide[row["label"]].astype(bool)
            assert row["rate"] == pytest.approx((before & ~after).mean())
            assert row["reverse"] == pytest.approx((~before & after).mean())
            assert row["accuracy_untouched"] == pytest.approx(before.mean())
            assert row["accuracy_manipulated"] == pytest.approx(after.mean())
            table = pd.crosstab(before, after).reindex(
                index=[True, False], columns=[True, False], fill_value=0
            )
            expected = mcnemar(table.to_numpy(), exact=True).pvalue
            assert row["p_mcnemar"] == pytest.approx(expected)
            p_values.append(expected)
        holm = multipletests(p_values, method="holm")[1]
        assert [r["p_holm"] for r in results["manipulations"]] == pytest.approx(list(holm))


def test_unreadable_verdicts_drop_their_pair_and_one_item_has_no_interval() -> None:
    nan = float("nan")
    rows = [
        # item, order, replicate, category, arm, right
        ("x:1", "wrong_first", 0, "Age", "untouched", 1.0),
        ("x:1", "wrong_first", 0, "Age", "padded", 0.0),
        ("x:1", "wrong_second", 0, "Age", "untouched", 1.0),
        ("x:1", "wrong_second", 0, "Age", "padded", nan),  # unreadable: no pair
        ("x:2", "wrong_first", 0, "Age", "untouched", 0.0),
        ("x:2", "wrong_first", 0, "Age", "padded", 1.0),
    ]
    frame = pd.DataFrame(rows, columns=OUTCOME_COLUMNS)
    found = bias_sensitivity(frame, "untouched", "padded", resamples=200, seed=1)
    assert (found["n_pairs"], found["n_items"]) == (2, 2)
    assert (found["rate"], found["reverse"], found["net"]) == (0.5, 0.5, 0.0)
    assert found["p_mcnemar"] == 1.0 and found["ci_low"] <= 0.5 <= found["ci_high"]
    alone = bias_sensitivity(frame[frame["bbq_key"] == "x:1"], "untouched", "padded",
                             resamples=200, seed=1)  # fmt: skip
    assert alone["rate"] == 1.0 and alone["ci_low"] is None and alone["ci_high"] is None
    empty = bias_sensitivity(frame, "untouched", "absent", resamples=200, seed=1)
    assert empty["n_pairs"] == 0 and empty["rate"] is None and empty["p_mcnemar"] is None


def test_a_bad_manipulation_exits_2_naming_the_field_and_line(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        "study: judge-bias\n"
        "judge: {model: mock/judge}\n"
        "manipulations:\n"
        "  - authority\n"
        "  - {kind: verbosty, ratio: 2}\n"
        "  - {kind: assertiveness, by: responder}\n"
        "  - {kind: self_preference, model: mock/other}\n",
        encoding="utf-8",
    )
    result = cli("run", str(path), "--out", str(tmp_path / "run"))
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "bad.yaml:5: manipulations[1].kind: unknown manipulation 'verbosty'" in text
    assert (
        "bad.yaml:6: manipulations[2].by: assertiveness-confident-rewritten needs a model" in text
    )
    assert "bad.yaml:7: manipulations[3].kind: answer-by-mock/other needs a model" in text
    assert not (tmp_path / "run").exists()
