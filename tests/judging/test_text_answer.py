"""Free-text answers: the prompts state one format, the reader takes what models actually write
in it, and anything short of every score in range (and one verdict for a pair) is a message,
never a score. The JSON prompts and reader stay exactly as they were."""

from __future__ import annotations

import hashlib
import json

import pytest

from fairpanel.judging import (
    METRICS,
    PairJudgment,
    SingleJudgment,
    judge_ask,
    output_schema,
    parse_judgment,
    parse_text_judgment,
)
from fairpanel.judging.protocol._prompts import (
    blind_final_prompt,
    discussion_prompt,
    final_prompt,
    moderator_prompt,
    reask_prompt,
)

A = {"creativity": 7.0, "accuracy": 8.0, "efficiency": 6.0, "reliability": 9.0}
B = {"creativity": 5.0, "accuracy": 6.0, "efficiency": 7.0, "reliability": 8.0}

PAIR_STYLES = {
    "markdown headings, bold, /10, comments": """\
Both plans cover the task. Candidate A's plan is more original and better ordered; B is
tidy but misses a safety check.

**Candidate A:**
- **Creativity:** 7/10 - an unusual warm-up
- **Accuracy:** 8/10
- **Efficiency:** 6/10 (a little long)
- **Reliability:** 9/10

**Candidate B:**
- **Creativity:** 5/10
- **Accuracy:** 6/10
- **Efficiency:** 7/10
- **Reliability:** 8/10

**Verdict:** Candidate A is better.""",
    "Response 1/2 prefixes, MALIBU style": """\
Response 1 is stronger on substance.
Response 1 Creativity: 7
Response 1 Accuracy: 8
Response 1 Efficiency: 6
Response 1 Reliability: 9
Response 2 Creativity: 5
Response 2 Accuracy: 6
Response 2 Efficiency: 7
Response 2 Reliability: 8
Response 1 is better""",
    "hash headings, one line per candidate, than": """\
### Response 1
Creativity: 7, Accuracy: 8, Efficiency: 6, Reliability: 9
### Response 2
creativity 5 | accuracy 6 | efficiency 7 | reliability 8
Final verdict: Response 1 is better than Response 2.""",
    "metric-wise discussion first, dashes, case, spaces": """\
Creativity: Candidate A takes a more original approach.
Accuracy - both are correct, A slightly more so.

Scores:
Candidate A
1.   creativity   -   7
2. ACCURACY = 8 out of 10
3. Efficiency score: 6
4. Reliability is 9
Candidate B
1. Creativity - 5
2. Accuracy - 6
3. Efficiency - 7
4. Reliability - 8

Overall, Candidate A is the better response.""",
    "labels inside the lines, bare winner": """\
A is clearer.
Creativity (Candidate A): 7
Creativity (B): 5
Accuracy for Candidate A: 8
Accuracy for Candidate B: 6
Candidate A's Efficiency: 6
Candidate B's Efficiency: 7
Candidate A - Reliability: 9
Candidate B - Reliability: 8
**Winner:** A""",
}


@pytest.mark.parametrize("text", PAIR_STYLES.values(), ids=PAIR_STYLES.keys())
def test_pair_answers_in_the_styles_models_write(text: str) -> None:
    result = parse_text_judgment(text, "pair")
    assert isinstance(result, PairJudgment), result
    assert result.scores() == {"A": A, "B": B}
    assert result.winner == "A"


def test_the_verdict_may_name_the_second_candidate_either_way() -> None:
    for verdict in ("Response 2 is better", "Verdict: Candidate B", "Candidate 2 wins."):
        text = PAIR_STYLES["markdown headings, bold, /10, comments"].replace(
            "**Verdict:** Candidate A is better.", verdict
        )
        result = parse_text_judgment(text, "pair")
        assert isinstance(result, PairJudgment) and result.winner == "B", (verdict, result)


def test_single_answers_keep_the_reasoning_as_the_reason() -> None:
    text = """\
**Reasoning:** The plan is safe and well ordered,
though the cool-down is thin.

**Scores**
- Creativity: 7/10
- Accuracy: 8
- Efficiency: 6.5 out of 10
- Reliability: 9"""
    result = parse_text_judgment(text, "single")
    assert isinstance(result, SingleJudgment), result
    assert result.scores() == {"A": {**A, "efficiency": 6.5}}
    assert result.reason == "The plan is safe and well ordered,\nthough the cool-down is thin."


def test_a_score_repeated_with_the_same_value_is_fine() -> None:
    text = "Creativity: 7 - I said so above.\nCreativity: 7\nAccuracy: 8\nEfficiency: 6\n"
    result = parse_text_judgment(text + "Reliability: 9", "single")
    assert isinstance(result, SingleJudgment) and result.scores()["A"] == A


SINGLE = "Fine.\nCreativity: 7\nAccuracy: 8\nEfficiency: 6\nReliability: 9"
PAIR = PAIR_STYLES["markdown headings, bold, /10, comments"]


@pytest.mark.parametrize(
    ("protocol", "text", "expected"),
    [
        ("single", SINGLE.replace("Reliability: 9", ""), "no score for reliability"),
        ("single", SINGLE.replace("Creativity: 7", "Creativity: 11"), "creativity is 11, not"),
        ("single", SINGLE.replace("Creativity: 7", "Creativity: -1"), "creativity is -1, not"),
        ("single", SINGLE.replace("Creativity: 7", "Creativity: 7-8"), "'Creativity: 7-8'"),
        ("single", SINGLE.replace("Creativity: 7", "Creativity: 7 or 8"), "no score for creat"),
        ("single", SINGLE.replace("Creativity: 7", "Creativity: 70/100"), "no score for creat"),
        ("single", SINGLE.replace("Creativity: 7", "Creativity: N/A"), "no score for creat"),
        ("single", SINGLE + "\nCreativity: 8", "creativity is given twice (7 and 8)"),
        ("single", "I would rate it highly, about 8/10.", "no score for creativity, accuracy"),
        (
            "single",
            '{"reason": "x", "creativity": 7, "accuracy": 8, "efficiency": 6, "reliability": 9}',
            "no score for creativity",
        ),
        ("pair", PAIR.replace("- **Reliability:** 8/10", ""), "no score for Candidate B reliab"),
        ("pair", PAIR.replace("**Verdict:** Candidate A is better.", ""), "no verdict line"),
        ("pair", PAIR + "\nCandidate B is better.", "says both 'Candidate A is better' and"),
        (
            "pair",
            PAIR.replace(
                "**Verdict:** Candidate A is better.", "Response 1 is better\nResponse 2 is better"
            ),
            "says both",
        ),
        (
            "pair",
            PAIR.replace(
                "**Verdict:** Candidate A is better.",
                "Candidate A is better structured, but B is safer.",
            ),
            "no verdict line",
        ),
        (
            "pair",
            PAIR.replace("Candidate A is better.", "Candidate <A or B> is better"),
            "no verdict line",
        ),
        ("pair", SINGLE + "\nCandidate A is better", "heading count for neither"),
        ("pair", PAIR.replace("**Candidate B:**", ""), "Candidate A creativity is given twice"),
    ],
)
def test_failures_are_messages_never_scores(protocol: str, text: str, expected: str) -> None:
    result = parse_text_judgment(text, protocol)  # type: ignore[arg-type]
    assert isinstance(result, str), result
    assert expected in result


def test_parse_judgment_reads_the_panels_format() -> None:
    json_answer = json.dumps({"reason": "r", **A})
    assert isinstance(parse_judgment(json_answer, "single"), SingleJudgment)
    assert isinstance(parse_judgment(SINGLE, "single", "text"), SingleJudgment)
    assert parse_judgment(SINGLE, "single") == "no JSON object found in the answer"
    assert parse_judgment(SINGLE, "single", "text") == parse_text_judgment(SINGLE, "single")
    assert isinstance(parse_judgment(json_answer, "single", "text"), str)


def _filled(prompt: str, scores: list[int], winner: str) -> str:
    """The prompt's format block as a judge that follows it to the letter would fill it in."""
    block = prompt[prompt.index("Answer in plain text") :].split("\n\n", 1)[1]
    numbers = iter(scores)
    lines = []
    for line in block.splitlines():
        if "<0-10>" in line:
            line = line.replace("<0-10>", str(next(numbers)))
        lines.append(line.replace("<A or B>", winner))
    assert next(numbers, None) is None, "the format asks for every score once"
    return "I weighed both.\n" + "\n".join(lines)


@pytest.mark.parametrize("count", [1, 2])
def test_every_text_prompt_states_the_format_the_reader_reads(count: int) -> None:
    protocol = "pair" if count == 2 else "single"
    prompts = [
        judge_ask(count, "text"),
        discussion_prompt(1, [("a", "creativity 7")], "text", count),
        final_prompt("text", count),
        blind_final_prompt(["creativity 7"], "text", count),
        moderator_prompt([("a", "creativity 7")], "text", count),
        reask_prompt("no score for creativity", "text", count),
    ]
    scores = [7, 8, 6, 9, 5, 6, 7, 8][: 4 * count]
    for prompt in prompts:
        assert "JSON object" not in prompt and "not JSON" in prompt
        result = parse_text_judgment(_filled(prompt, scores, "B"), protocol)  # type: ignore[arg-type]
        assert not isinstance(result, str), (prompt, result)
        assert result.scores()["A"] == A
        if count == 2:
            assert isinstance(result, PairJudgment)
            assert result.scores()["B"] == B and result.winner == "B"
    assert reask_prompt("no score for creativity", "text", count).startswith(
        "Your answer could not be used: no score for creativity. Reply again in plain text"
    )


def test_the_json_prompts_and_schema_are_unchanged() -> None:
    """Every JSON request keeps its bytes, so stored runs and caches keep their keys.

    The prompts that quote judges' answers (discussion, blind vote, moderator) changed once, on
    purpose, when the quoted answers were fenced in ``<judge_turn>`` tags (before: digest
    e9fcb29c... of all these parts together): the calls of those rounds, and of an open final
    round (whose chat quotes the others), got new keys then. The first round's prompts, the
    final and re-ask prompts and the schemas did not change (the first digest below is the
    same on the code before that change)."""
    parts = [
        judge_ask(1),
        judge_ask(2),
        final_prompt(),
        reask_prompt("p"),
        json.dumps(output_schema("single")),
        json.dumps(output_schema("pair")),
    ]
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()
    assert digest == "7718c91fcf6331ed9780f34ddba98b0b024d4f6f62e2a96df1051abc02191322"
    quoting = [
        discussion_prompt(1, [("a", "x"), ("b", "y")]),
        blind_final_prompt(["x", "y"]),
        moderator_prompt([("a", "x")]),
    ]
    digest = hashlib.sha256("\x1f".join(quoting).encode()).hexdigest()
    assert digest == "0379830a46da2d7c5fb0450d8ab0e882b1a1b840821e6bde48f25501a2c14cfa"
    assert [judge_ask(2), final_prompt()] == [judge_ask(2, "json"), final_prompt("json", 2)]


def test_metric_names_come_from_the_rubric() -> None:
    block = judge_ask(1, "text")
    assert [f"{m.capitalize()}: <0-10>" for m in METRICS] == block.splitlines()[-4:]
