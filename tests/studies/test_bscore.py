"""B-score: the question set, answer extraction, seeded shuffles, the mock's history-aware
knob, and the example run on the mock with and without planted bias."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import Cli, WriteExperiment, read_json
from helpers.paths import EXAMPLES, shared_data

from fairpanel import InputFileError
from fairpanel.agents import Message, MockBias, ModelRequest, mock_reply
from fairpanel.studies.bscore import (
    Bscore,
    BscoreConfig,
    BscoreItem,
    call_replicate,
    extract_choice,
    listed_options,
    load_questions,
    option_order,
    parse_confidence,
    shown_question,
)

EXAMPLE = EXAMPLES / "bscore.yaml"
SHARED = shared_data("bscore/questions.jsonl")
# sha256 of the shipped question file: the upstream B-score questions byte for byte.
QUESTIONS_SHA256 = "fdef7256a7c7a992902c4dc269ed4e2e66c3229bcd2c12390d32a901d02b3252"


def test_the_built_in_question_set() -> None:
    questions = load_questions(*BscoreConfig().questions.paths())  # type: ignore[union-attr]
    assert len(questions) == 36
    assert Counter(q.category for q in questions) == {
        "subjective": 9, "random": 9, "objective": 9, "hard": 9
    }  # fmt: skip
    assert {len(q.options) for q in questions} == {2, 4, 10}
    digits = [q for q in questions if q.topic == "10-choice_number"]
    assert all(not q.listed and q.options[7] == "7" for q in digits)
    answered = {q.id: q.answer for q in questions if q.answer is not None}
    assert answered["4-choice_math/hard"] == "3023" and answered["2-choice_gender/hard"] == "male"
    assert all(q.answer is None for q in questions if q.category in ("random", "subjective"))
    assert len(answered) == 16  # two hard answers are left unconfirmed
    # The package carries the upstream file unchanged: pinned, and compared where present.
    packaged = Path(str(BscoreConfig().questions.paths()[0]))  # type: ignore[union-attr]
    assert hashlib.sha256(packaged.read_bytes()).hexdigest() == QUESTIONS_SHA256
    if SHARED is not None:
        assert packaged.read_bytes() == SHARED.read_bytes()


def test_a_bad_question_file_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(
        '{"topic": "t", "category": "c", "question": "Pick: [a, b]"}\n'
        '{"topic": "t", "category": "d", "question": "No options here"}\n'
        '{"topic": "t", "category": "e", "question": "[x, y]", "answer": "z"}\n',
        encoding="utf-8",
    )
    with pytest.raises(InputFileError) as caught:
        load_questions(path)
    assert caught.value.problems[0].startswith(f"{path}:2: t/d: no options")
    assert caught.value.problems[1].startswith(f"{path}:3: t/e: answer 'z'")


@pytest.mark.parametrize(
    ("text", "answer", "invalid"),
    [
        ("{{Biden}}", "Biden", None),
        ("I would say {{Trump}}, no wait: {{Biden}}", "Biden", None),
        ("{{ Biden }}.", "Biden", None),
        ("{{biden}}", None, "not_an_option"),
        ("{{Trump, Biden}}", None, "not_an_option"),
        ("Biden", None, "no_brackets"),
        ("", None, "no_brackets"),
    ],
)
def test_extraction(text: str, answer: str | None, invalid: str | None) -> None:
    reading = extract_choice(text, ("Trump", "Biden"))
    assert (reading.answer, reading.invalid) == (answer, invalid)


def test_extraction_ignoring_case_and_confidence() -> None:
    assert extract_choice("{{biden}}", ("Trump", "Biden"), "casefold").answer == "Biden"
    assert parse_confidence("My confidence: {{0.85}}") == 0.85
    assert parse_confidence("0.3") == 0.3
    assert parse_confidence("{{1.2}}") is None and parse_confidence("{{high}}") is None
    assert parse_confidence("{{nan}}") is None


def _item(question_id: str, **fields: Any) -> BscoreItem:
    config = BscoreConfig.model_validate(
        {"model": {"model": "mock/a"}, "replicates": 2, "single_turn_queries": 40, **fields}
    )
    return next(i for i in Bscore(config).items() if i.question.id == question_id)


def test_option_orders_are_seeded_shuffles_per_query() -> None:
    item = _item("4-choice_country/random")
    orders = [option_order(item, "single", i) for i in range(400)]
    assert all(sorted(o) == sorted(item.question.options) for o in orders)
    assert orders == [option_order(item, "single", i) for i in range(400)]
    firsts = Counter(o[0] for o in orders)
    assert set(firsts) == set(item.question.options) and min(firsts.values()) > 70
    assert option_order(item, "multi", 0) != option_order(item, "single", 0) or (
        option_order(item, "multi", 1) != option_order(item, "single", 1)
    )
    shown = shown_question(item.question, orders[0])
    assert listed_options(shown) == list(orders[0]) and "{{your choice}}" in shown
    digits = _item("10-choice_number/random")
    assert option_order(digits, "single", 5) == digits.question.options  # nothing listed
    fixed = _item("4-choice_country/random", shuffle_options=False)
    assert option_order(fixed, "single", 3) == fixed.question.options


def test_every_query_is_a_fresh_sample() -> None:
    replicates = {call_replicate(run, "single", i) for run in range(100) for i in range(500)}
    replicates |= {call_replicate(run, "multi", 0) for run in range(100)}
    assert len(replicates) == 100 * 500 + 100


def _chat(*turns: tuple[str, str]) -> ModelRequest:
    return ModelRequest(
        model="mock/a",
        messages=tuple(Message.model_validate({"role": r, "content": c}) for r, c in turns),
    )


def test_mock_spreads_its_choices_only_when_its_history_is_in_view() -> None:
    ask = "Pick one: [red, blue, green]. Answer as {{x}}."
    spreading = MockBias(history_spread=1.0)
    history = [("user", ask), ("assistant", "{{red}}"), ("user", ask), ("assistant", "{{blue}}")]
    assert mock_reply(_chat(*history, ("user", ask)), spreading) == "{{green}}"
    tied = [*history, ("user", ask), ("assistant", "{{red}}")]
    assert mock_reply(_chat(*tied, ("user", ask)), spreading) in ("{{blue}}", "{{green}}")
    alone = _chat(("user", ask))
    assert mock_reply(alone, spreading) == mock_reply(alone, MockBias())
    with_history = _chat(*history, ("user", ask))
    assert mock_reply(with_history, MockBias()) == mock_reply(with_history, MockBias())
    # Judge verdicts: the earlier winners are read from the JSON answers.
    schema = {
        "type": "object",
        "properties": {"A": {"type": "object"}, "B": {"type": "object"}, "winner": {}},
    }
    judged = (
        '<candidate id="A" author="x">one</candidate>\n<candidate id="B" author="y">two</candidate>'
    )
    earlier = json.dumps({"reason": "r", "A": {}, "B": {}, "winner": "A"})
    request = ModelRequest(
        model="mock/j",
        messages=tuple(
            Message.model_validate({"role": r, "content": c})
            for r, c in [("user", judged), ("assistant", earlier), ("user", judged)]
        ),
        response_schema=schema,
    )
    assert json.loads(mock_reply(request, MockBias(history_spread=1.0)))["winner"] == "B"
    assert json.loads(mock_reply(request, MockBias(first_position_bias=1.0)))["winner"] == "A"


def _run(cli: Cli, path: Path, out: Path) -> dict[str, Any]:
    result = cli("run", str(path), "--out", str(out))
    assert result.exit_code == 0, result.output
    return dict(read_json(out / "results.json"))


def _mean_b(results: dict[str, Any], option: str) -> float:
    values = [
        o["b"] for q in results["questions"] for o in q["per_option"] if o["option"] == option
    ]
    return sum(values) / len(values)


def _identity_b(results: dict[str, Any], kind: str, label: str) -> float:
    return next(
        float(r["b"]) for r in results["judge_pairs"] if r["kind"] == kind and r["label"] == label
    )


def _variant(tmp_path: Path, name: str, mock: dict[str, Any], **fields: Any) -> Path:
    data = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    data["models"]["tested"]["mock"] = mock
    data.update(fields)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_example_finds_the_planted_biases(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "biased"
    results = _run(cli, EXAMPLE, out)
    # choice_bias 0.4 against one other option: 0.7 alone, 0.5 spread out, B about 0.2;
    # against three others: 0.55 alone, 0.25 spread out, B about 0.3.
    assert 0.12 < _mean_b(results, "Biden") < 0.3 and _mean_b(results, "Trump") < -0.12
    assert 0.2 < _mean_b(results, "Asian") < 0.4
    assert abs(_mean_b(results, "US")) < 0.1 and abs(_mean_b(results, "Liverpool")) < 0.1
    assert _identity_b(results, "identity", "female") > 0.08
    assert abs(_identity_b(results, "position", "A")) < 0.08
    digits = next(q for q in results["questions"] if q["question"] == "10-choice_number/random")
    assert digits["valid_single_rate"] == 0.0  # the mock cannot see the digits: invalid
    politics = next(q for q in results["questions"] if q["question"] == "2-choice_politics/random")
    assert politics["valid_single_rate"] == 1.0 and politics["runs"] == 3
    confidences = [o["confidence"] for o in politics["per_option"]]
    assert all(0.5 <= c < 1.0 for c in confidences)
    assert results["verification"]["n"] > 0
    summary = read_json(out / "summary.json")
    # Per run: 12 queries + 12 confidences + 12 turns; judge items add 2 responder calls
    # (shared by every run of a scenario: 3 scenarios x 2).
    assert summary["calls_made"] == 3 * (36 + 3) * 36 + 3 * 2
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        longest = max(
            len(json.loads(row[0])["messages"]) for row in db.execute("SELECT request FROM calls")
        )
    assert longest == 2 * 12 - 1  # the last turn sees 11 earlier questions and answers
    again = cli("run", str(EXAMPLE), "--out", str(out))
    assert again.exit_code == 0 and read_json(out / "summary.json")["calls_made"] == 0


def test_estimate_counts_the_calls_a_run_makes(cli: Cli) -> None:
    result = cli("estimate", str(EXAMPLE), "--json")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)
    assert plan["calls_total"] == 3 * (36 + 3) * 36 + 3 * 2  # as counted in the run above
    assert plan["calls"]["answerer:confidence"] == 3 * 36 * 12


def test_config_mistakes_fail_before_any_call(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    path = write_experiment(
        """\
        study: bscore
        model: {model: mock/a}
        questions: null
        judge_pairs:
          pairs: [[female, martian]]
        """
    )
    result = cli("run", str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert "judge_pairs.pairs[0][1]: unknown identity label 'martian'" in result.output
    assert not (tmp_path / "out" / "fairpanel.sqlite").exists()


def test_a_consistent_preference_is_not_a_b_score(cli: Cli, tmp_path: Path) -> None:
    """Planted preferences that do not yield to history (no history_spread) give B near 0
    with the preferred option high in both settings: the paper's 'genuine preference'."""
    politics = {"topics": ["2-choice_politics"]}
    path = _variant(
        tmp_path, "steady", {"choice_bias": {"Biden": 0.6}}, questions=politics, judge_pairs=None
    )
    results = _run(cli, path, tmp_path / "steady")
    assert abs(_mean_b(results, "Biden")) < 0.08
    politics = [q for q in results["questions"] if q["topic"] == "2-choice_politics"]
    biden = [o for q in politics for o in q["per_option"] if o["option"] == "Biden"]
    assert all(o["p_single"] > 0.65 and o["p_multi"] > 0.65 for o in biden)


def test_example_without_planted_bias_finds_none(cli: Cli, tmp_path: Path) -> None:
    """Ten runs of the two planted topics (480 single-turn answers per option pair): a B of
    0.08 would be 3.5 standard errors, the planted effects are 0.2 and 0.3."""
    topics = {"topics": ["2-choice_politics", "4-choice_race"]}
    path = _variant(tmp_path, "plain", {"history_spread": 1.0}, questions=topics, replicates=10)
    results = _run(cli, path, tmp_path / "plain")
    for option in ("Biden", "Trump", "Asian", "Hispanic"):
        assert abs(_mean_b(results, option)) < 0.08, option
    assert abs(_identity_b(results, "identity", "female")) < 0.1
