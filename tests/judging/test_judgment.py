"""Reading judge answers: tolerant of format, strict about content."""

from __future__ import annotations

import pytest

from fairpanel.judging import PairJudgment, SingleJudgment, output_schema, parse_judgment

FULL = '{"reason": "fine", "creativity": 7, "accuracy": 8, "efficiency": 6, "reliability": 9}'


def test_plain_json() -> None:
    result = parse_judgment(FULL, "single")
    assert isinstance(result, SingleJudgment)
    assert result.scores() == {
        "A": {"creativity": 7.0, "accuracy": 8.0, "efficiency": 6.0, "reliability": 9.0}
    }


@pytest.mark.parametrize(
    "text",
    [
        f"Here is my verdict:\n```json\n{FULL}\n```\nThanks.",
        f"Sure! {FULL} Hope that helps.",
        '{"Reason": "ok", "CREATIVITY": "7/10", "Accuracy": "8", "efficiency": 6.0, '
        '"Reliability": "9 out of 10"}',
    ],
)
def test_prose_fences_and_score_formats(text: str) -> None:
    result = parse_judgment(text, "single")
    assert isinstance(result, SingleJudgment), result
    assert result.creativity == 7 and result.reliability == 9


def test_a_numeric_reason_stays_text() -> None:
    result = parse_judgment(FULL.replace('"reason": "fine"', '"reason": "10"'), "single")
    assert isinstance(result, SingleJudgment) and result.reason == "10"


def test_half_points_are_kept() -> None:
    result = parse_judgment(FULL.replace('"creativity": 7', '"creativity": "8.5"'), "single")
    assert isinstance(result, SingleJudgment) and result.creativity == 8.5


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I think 8/10.", "no JSON object"),
        (FULL.replace('"creativity": 7', '"creativity": 11'), "creativity"),
        (FULL.replace('"creativity": 7', '"creativity": -1'), "creativity"),
        (FULL.replace(', "reliability": 9', ""), "reliability"),
        (FULL.replace('"accuracy": 8', '"accuracy": "high"'), "accuracy"),
        (
            '{"reason": "x", "creativity": 7, "accuracy": 8, "efficiency": 6, "reliability": 9, '
            '"bonus": 1}',
            "bonus",
        ),
    ],
)
def test_failures_are_messages_never_scores(text: str, expected: str) -> None:
    result = parse_judgment(text, "single")
    assert isinstance(result, str)
    assert expected in result


def test_pair_answers() -> None:
    scores = '"creativity": 7, "accuracy": 8, "efficiency": 6, "reliability": 9'
    text = f'{{"reason": "r", "a": {{{scores}}}, "b": {{{scores}}}, "Winner": "Candidate B"}}'
    result = parse_judgment(text, "pair")
    assert isinstance(result, PairJudgment)
    assert result.winner == "B"
    bad = parse_judgment(text.replace("Candidate B", "both"), "pair")
    assert isinstance(bad, str) and "winner" in bad
    assert isinstance(parse_judgment(text.replace(', "b": {' + scores + "}", ""), "pair"), str)


def test_last_valid_object_wins_over_earlier_drafts() -> None:
    draft = FULL.replace('"creativity": 7', '"creativity": 3')
    result = parse_judgment(f"Draft: {draft}\nFinal: {FULL}", "single")
    assert isinstance(result, SingleJudgment) and result.creativity == 7


def test_schema_puts_reason_first_and_bounds_scores() -> None:
    for protocol in ("single", "pair"):
        schema = output_schema(protocol)["schema"]
        assert next(iter(schema["properties"])) == "reason"
        assert schema["required"][0] == "reason"
        assert schema["additionalProperties"] is False
    single = output_schema("single")["schema"]["properties"]
    assert single["creativity"] == {"type": "integer", "minimum": 0, "maximum": 10}
