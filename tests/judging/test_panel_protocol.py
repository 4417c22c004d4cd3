"""The debate protocol on the mock provider: rounds, consensus rules, blind votes, arms."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, WriteExperiment, read_json

from fairpanel.judging import METRICS, PairJudgment, SingleJudgment, consensus_of

PANEL = """\
name: protocol
seed: 4
protocols: [{protocols}]
models:
  judge:
    id: mock/judge
    mock: {{score_shift: {shift}}}
  {extra_models}
responder: {{model: mock/responder}}
panel:
  judges: {judges}
  model: judge
  discussion_rounds: {rounds}
  consensus: {consensus}
  final_vote: {final_vote}
scenarios: {{bases: [fitness-coaching, emergency-triage], derived_per_base: {derived}}}
identities:
  categories: [gender]
  signals: [{signals}]
  label_position: {position}
arms: {{placebo: {arms}, same_label: {arms}}}
treatments: {treatments}
concurrency: 8
"""


def _run(cli: Cli, write: WriteExperiment, tmp_path: Path, **changes: Any) -> Path:
    values: dict[str, Any] = {
        "protocols": "single, pair",
        "shift": "{}",
        "rounds": 1,
        "consensus": "mean",
        "final_vote": "open",
        "derived": 1,
        "signals": "explicit",
        "position": "tag",
        "arms": "false",
        "treatments": "[{name: none}]",
        "judges": "[domain_expert, creativity_reviewer, clarity_editor, reliability_auditor]",
        "extra_models": "",
    }
    values.update(changes)
    out = tmp_path / "run"
    result = cli("run", str(write(PANEL.format(**values))), "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


def _rows(out: Path, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        return db.execute(query).fetchall()


def test_four_judges_two_discussion_rounds_store_sixteen_turns_with_arms(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    out = _run(cli, write_experiment, tmp_path, protocols="pair", rounds=2, arms="true")
    per_trial = _rows(out, "SELECT trial_key, COUNT(*) FROM turns GROUP BY trial_key")
    assert per_trial and {count for _, count in per_trial} == {16}
    kinds = _rows(out, "SELECT round, round_kind, COUNT(DISTINCT judge) FROM turns "
                       "GROUP BY trial_key, round")  # fmt: skip
    assert set(kinds) == {(0, "first", 4), (1, "discussion", 4), (2, "discussion", 4),
                          (3, "final", 4)}  # fmt: skip
    specs = [json.loads(s) for (s,) in _rows(out, "SELECT spec FROM trials")]
    arms = Counter(s["arm"] for s in specs)
    # 2 scenarios: female/male in 4 arrangements; female/female and male/male in both
    # orders; the placebo's K7/Q3 in 4 arrangements, like a main-arm category.
    assert arms == {"main": 8, "same_label": 8, "placebo": 8}
    results = read_json(out / "results.json")
    assert results["n_trials"]["pair"] == 8  # the headline analysis is the main arm only
    assert set(results["control_arms"]) == {"same_label", "placebo"}
    assert results["control_arms"]["placebo"]["n_trials"]["pair"] == 8
    main = [s for s in specs if s["arm"] == "main"]
    assert Counter(tuple(s["response_indices"]) for s in main) == {(1, 2): 4, (2, 1): 4}
    assert Counter(s["identities"][0] for s in main) == {"female": 4, "male": 4}
    # Speaker order is fixed within a trial and shared by every trial of a scenario (arms,
    # label arrangements and orders alike: only the labels or the order may differ).
    per_scenario: dict[str, set[tuple[str, ...]]] = {}
    for s in specs:
        per_scenario.setdefault(s["scenario_id"], set()).add(
            tuple(seat["persona"] for seat in s["seats"])
        )
    assert len(per_scenario) == 2 and all(len(o) == 1 for o in per_scenario.values())
    orders = _rows(out, "SELECT trial_key, round, GROUP_CONCAT(judge) FROM "
                        "(SELECT * FROM turns ORDER BY speaker_index) GROUP BY 1, 2")  # fmt: skip
    by_trial: dict[str, set[str]] = {}
    for key, round_index, order in orders:
        if round_index in (1, 2):  # group-chat rounds keep the seat order
            by_trial.setdefault(key, set()).add(order)
    assert all(len(seen) == 1 for seen in by_trial.values())


def test_blind_final_vote_hides_other_judges(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    out = _run(cli, write_experiment, tmp_path, protocols="single", final_vote="blind")
    requests = [json.loads(r) for (r,) in _rows(out, "SELECT request FROM calls WHERE "
                                                     "role = 'judge:final'")]  # fmt: skip
    assert requests
    names = ["domain_expert", "creativity_reviewer", "clarity_editor", "reliability_auditor"]
    for request in requests:
        text = "\n".join(m["content"] for m in request["messages"])
        assert "blind vote" in text
        assert not any(f'<judge_turn speaker="{name}">' in text for name in names)
        assert [m["role"] for m in request["messages"]] == ["system", "system", "user"]
    open_run = _run(cli, write_experiment, tmp_path / "open", protocols="single")
    query = "SELECT request FROM calls WHERE role = 'judge:final'"
    open_text = "\n".join(
        m["content"] for (r,) in _rows(open_run, query) for m in json.loads(r)["messages"]
    )
    assert any(f'<judge_turn speaker="{name}">' in open_text for name in names)


def test_moderator_consensus_is_stored_as_its_own_turn(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    out = _run(cli, write_experiment, tmp_path, consensus="moderator")
    moderator_turns = _rows(out, "SELECT judge, parsed FROM turns WHERE round_kind='moderator'")
    trials = _rows(out, "SELECT consensus, status FROM trials")
    assert len(moderator_turns) == len(trials) == 2 * (2 + 4)
    for consensus, status in trials:
        assert status == "ok"
        assert json.loads(consensus)["method"] == "moderator"
    assert {judge for judge, _ in moderator_turns} == {"moderator"}


def test_treatment_instruction_reaches_every_judge_and_only_treated_trials(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    out = _run(
        cli, write_experiment, tmp_path, protocols="single",
        treatments='[{name: none}, {name: debias, judge_instruction: "IGNORE AUTHORSHIP."}]',
    )  # fmt: skip
    specs = [json.loads(s) for (s,) in _rows(out, "SELECT spec FROM trials")]
    assert Counter(s["treatment"] for s in specs) == {"none": 4, "debias": 4}
    requests = [json.loads(r) for (r,) in _rows(out, "SELECT request FROM calls WHERE role "
                                                     "LIKE 'judge:%'")]  # fmt: skip
    treated = [r for r in requests if "IGNORE AUTHORSHIP." in r["messages"][1]["content"]]
    assert len(treated) == len(requests) // 2
    results = read_json(out / "results.json")
    assert results["design"]["treatments"] == ["none", "debias"]
    assert results["n_trials"]["single"] == 4
    assert results["by_treatment"]["debias"]["n_trials"]["single"] == 4


@pytest.mark.parametrize(("position", "signals"), [("footer", "explicit"), ("header", "name")])
def test_planted_bias_is_found_whatever_the_label_placement_and_signal(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path, position: str, signals: str
) -> None:
    female = "female, Emma, Olivia, Sophie, Hannah, Laura, Rachel, Megan, Natalie"
    shift = "{" + ", ".join(f"{label}: {{creativity: 2.0}}" for label in female.split(", ")) + "}"
    out = _run(
        cli, write_experiment, tmp_path, protocols="single", shift=shift, derived=10,
        position=position, signals=signals,
    )  # fmt: skip
    results = read_json(out / "results.json")
    rows = {row["identity"]: row for row in results["single"]["mean_scores"]["rows"]}
    assert rows["female"]["creativity"] - rows["male"]["creativity"] > 1.5
    assert abs(rows["female"]["accuracy"] - rows["male"]["accuracy"]) < 0.5
    requests = [json.loads(r) for (r,) in _rows(out, "SELECT request FROM calls WHERE role "
                                                     "= 'judge:first' LIMIT 1")]  # fmt: skip
    context = requests[0]["messages"][0]["content"]
    assert 'author="' not in context and "This response was written by" in context


def _single(creativity: float, winner: str | None = None) -> SingleJudgment | PairJudgment:
    scores = {"creativity": creativity, "accuracy": 5, "efficiency": 5, "reliability": 5}
    if winner is None:
        return SingleJudgment(reason="r", **scores)
    return PairJudgment(reason="r", A=scores, B=scores, winner=winner)  # type: ignore[arg-type]


def test_consensus_rules() -> None:
    finals = [_single(2), _single(8), _single(8), _single(3)]
    assert consensus_of(finals, 4, "mean")["scores"]["A"]["creativity"] == 5.25
    assert consensus_of(finals, 4, "median")["scores"]["A"]["creativity"] == 5.5
    assert consensus_of(finals, 4, "majority")["scores"]["A"]["creativity"] == 8
    tie = [_single(2), _single(8), _single(8), _single(2)]
    assert consensus_of(tie, 4, "majority")["scores"]["A"]["creativity"] == 5
    votes = [_single(5, "A"), _single(5, "B"), _single(5, "A")]
    assert consensus_of(votes, 3)["winner"] == "A"
    assert consensus_of(votes[:2], 3)["winner"] is None


def test_consensus_leaves_a_failed_judge_out(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    """A judge whose every answer is malformed fails its turns; the trial's consensus is the
    other judges' final answers alone, and says how many there were."""
    out = _run(
        cli,
        write_experiment,
        tmp_path,
        protocols="single",
        extra_models="broken: {id: mock/broken, mock: {malformed_rate: 1.0}}",
        judges="[domain_expert, creativity_reviewer, clarity_editor, "
        "{persona: reliability_auditor, model: broken}]",
    )
    trials = _rows(out, "SELECT key, consensus, status FROM trials")
    assert trials
    for key, consensus, status in trials:
        assert status == "ok"
        finals = _rows(
            out,
            "SELECT judge, parsed FROM turns WHERE round_kind = 'final' "
            f"AND trial_key = '{key}' ORDER BY judge",
        )
        valid = [json.loads(parsed) for judge, parsed in finals if parsed is not None]
        failed = [judge for judge, parsed in finals if parsed is None]
        assert failed == ["reliability_auditor"]
        combined = json.loads(consensus)
        assert (combined["valid_final"], combined["judges"]) == (3, 4)
        for metric in METRICS:
            expected = sum(answer[metric] for answer in valid) / len(valid)
            assert combined["scores"]["A"][metric] == pytest.approx(expected)
