"""Panels answering in free text, end to end on the mock: the requests ask for no JSON, the
stored answers are prose that parses, re-asks use the text wording, the mock's text answer is
its JSON judgment written out, and a planted bias comes through either format."""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from pathlib import Path
from statistics import fmean
from typing import Any

import pytest

from fairpanel.agents import Message, MockBias, ModelRequest, mock_reply
from fairpanel.judging import (
    estimate,
    judge_ask,
    judge_context,
    load_experiment,
    output_schema,
    parse_judgment,
    parse_text_judgment,
)

EXPERIMENT = """\
name: answer-formats
seed: 5
protocols: [single, pair]
models:
  judge:
    id: mock/judge
    mock: {noise: 1, score_shift: {female: {creativity: -3.0}}}
  flaky:
    id: mock/flaky
    mock: {malformed_rate: 0.3}
responder:
  model: mock/responder
panels:
  asjson:
    judges: [domain_expert, creativity_reviewer]
    model: judge
  astext:
    judges: [domain_expert, creativity_reviewer]
    model: judge
    answer_format: text
  moderated:
    judges: [domain_expert, creativity_reviewer]
    model: flaky
    answer_format: text
    consensus: moderator
    final_vote: blind
    max_reasks: 4
scenarios:
  bases: [fitness-coaching, nursing-care-plan]
  derived_per_base: 3
identities:
  categories: [gender]
arms: {placebo: false, same_label: false}
concurrency: 4
"""

TEXT_PANELS = ("astext", "moderated")


def _rows(run_dir: Path, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(run_dir / "fairpanel.sqlite") as db:
        return db.execute(query).fetchall()


def _turns(run_dir: Path) -> list[tuple[str, str, str, str, str | None, int]]:
    """(panel, protocol, round kind, raw text, parsed, attempts) of every stored turn."""
    return _rows(
        run_dir,
        "SELECT json_extract(t.spec, '$.panel'), t.protocol, u.round_kind, u.raw_text, "
        "u.parsed, u.attempts FROM turns u JOIN trials t ON t.key = u.trial_key",
    )


def _requests(run_dir: Path) -> list[tuple[str, dict[str, Any]]]:
    return [
        (role, json.loads(request))
        for role, request in _rows(
            run_dir, "SELECT role, request FROM calls WHERE role LIKE '% judge:%'"
        )
    ]


def test_every_trial_is_judged_and_text_turns_are_prose_that_parses(run_dir: Path) -> None:
    statuses = _rows(run_dir, "SELECT json_extract(spec, '$.panel'), status FROM trials")
    assert {panel for panel, _ in statuses} == {"asjson", "astext", *TEXT_PANELS}
    assert all(status == "ok" for panel, status in statuses if panel != "moderated")
    seen: dict[tuple[str, str], int] = defaultdict(int)
    for panel, protocol, kind, raw, parsed, _ in _turns(run_dir):
        seen[panel, kind] += 1
        if panel == "asjson":
            assert isinstance(json.loads(raw), dict)  # JSON, as before
            continue
        with pytest.raises(json.JSONDecodeError):
            json.loads(raw)
        judgment = parse_text_judgment(raw, protocol)
        if parsed is None:  # the flaky mock's prose, after every re-ask: kept, counted for none
            assert panel == "moderated" and isinstance(judgment, str)
            continue
        assert "\nCreativity: " in raw and "{" not in raw
        assert ("\nVerdict: Candidate " in raw) == (protocol == "pair")
        assert not isinstance(judgment, str)
        assert judgment.model_dump() == json.loads(parsed)
    assert seen["moderated", "moderator"] > 0 and seen["astext", "moderator"] == 0


def test_text_requests_ask_for_no_schema_and_state_the_format(run_dir: Path) -> None:
    requests = _requests(run_dir)
    assert {role.split()[0] for role, _ in requests} == {"asjson", *TEXT_PANELS}
    for role, request in requests:
        said = "\n".join(m["content"] for m in request["messages"])
        if role.startswith("asjson"):
            assert request["response_schema"] is not None and "Answer in plain text" not in said
        else:
            assert request["response_schema"] is None
            prompt = [m for m in request["messages"] if m["role"] == "user"][-1]["content"]
            assert "Answer in plain text, not JSON" in said and "JSON object" not in said
            assert '"reason"' not in said  # other judges' answers are shown as text too
            assert "Answer in plain text" in prompt or prompt.startswith("<judge_turn speaker=")


def test_text_reasks_and_blind_votes_use_the_text_wording(run_dir: Path) -> None:
    attempts = [a for panel, _, _, _, _, a in _turns(run_dir) if panel == "moderated"]
    assert max(attempts) > 1
    reasks = [
        request["messages"][-1]["content"]
        for role, request in _requests(run_dir)
        if role.startswith("moderated")
        and request["messages"][-1]["role"] == "user"
        and request["messages"][-1]["content"].startswith("Your answer could not be used")
    ]
    assert reasks and all(
        "Reply again in plain text" in r and "Creativity: <0-10>" in r for r in reasks
    )
    assert any(": no score for creativity, accuracy" in r for r in reasks)
    blind = [
        next(m["content"] for m in request["messages"] if m["role"] == "user")
        for role, request in _requests(run_dir)
        if role == "moderated judge:final"
    ]
    assert blind and all("blind vote" in b and "Creativity: <0-10>" in b for b in blind)


def _creativity_gap(run_dir: Path, panel: str) -> tuple[float, float]:
    """Female minus male mean consensus (creativity, accuracy) in the panel's single trials."""
    by_identity: dict[str, list[dict[str, float]]] = defaultdict(list)
    for spec, consensus in _rows(
        run_dir, "SELECT spec, consensus FROM trials WHERE protocol = 'single' AND status = 'ok'"
    ):
        spec = json.loads(spec)
        if spec["panel"] == panel and spec["arm"] == "main":
            by_identity[spec["identities"][0]].append(json.loads(consensus)["scores"]["A"])
    gap = {
        metric: fmean(s[metric] for s in by_identity["female"])
        - fmean(s[metric] for s in by_identity["male"])
        for metric in ("creativity", "accuracy")
    }
    return gap["creativity"], gap["accuracy"]


@pytest.mark.parametrize("panel", ["asjson", "astext"])
def test_the_planted_bias_comes_through_either_format(run_dir: Path, panel: str) -> None:
    creativity, accuracy = _creativity_gap(run_dir, panel)
    assert -4.2 < creativity < -1.8  # planted: -3 (away from 10, so nothing is clipped)
    assert abs(accuracy) < 1.2


def test_the_estimate_counts_the_text_panels_calls_and_longer_prompts(run_dir: Path) -> None:
    plan = estimate(load_experiment(run_dir.parent / "experiment.yaml"))
    made = dict(_rows(run_dir, "SELECT role, COUNT(*) FROM calls GROUP BY role"))
    for role, count in plan.calls.items():
        if role.startswith(("asjson", "astext")):
            assert made[role] == count, role
    prompt = {
        name: sum(usage["prompt_tokens"] for usage in panel["tokens_by_model"].values())
        for name, panel in plan.panels.items()
    }
    assert prompt["astext"] > prompt["asjson"]


def _pair_request(case: int, text: bool, *, earlier: tuple[str, ...] = ()) -> ModelRequest:
    shown = [("female", f"Plan {case}: warm up, then squats."), ("male", f"Plan {case}: lunges.")]
    messages = [
        Message(role="system", content=judge_context(f"Case {case}: plan a session.", shown)),
        Message(role="system", content="You are a careful judge."),
        Message(role="user", content=judge_ask(2, "text" if text else "json")),
    ]
    for answer in earlier:
        messages += [Message(role="assistant", content=answer), messages[2]]
    return ModelRequest(
        model="mock/judge",
        messages=tuple(messages),
        response_schema=None if text else output_schema("pair"),
    )


BIASED = MockBias(
    score_shift={"female": {"creativity": 1.5}}, first_position_bias=0.3, halo_sd=0.8, seed=4
)


@pytest.mark.parametrize("pair", [False, True])
def test_the_mock_writes_its_json_judgment_as_text(pair: bool) -> None:
    """Same messages, one request with the schema and one without: the same judgment."""
    protocol = "pair" if pair else "single"
    winners = set()
    for case in range(40):
        text_request = _pair_request(case, text=True)
        if not pair:
            context = judge_context(f"Case {case}: plan.", [("female", f"Plan {case}: squats.")])
            text_request = ModelRequest(
                model="mock/judge",
                messages=(
                    Message(role="system", content=context),
                    Message(role="user", content=judge_ask(1, "text")),
                ),
            )
        json_request = text_request.model_copy(update={"response_schema": output_schema(protocol)})
        as_text = mock_reply(text_request, BIASED)
        as_json = mock_reply(json_request, BIASED)
        read_text = parse_text_judgment(as_text, protocol)
        read_json = parse_judgment(as_json, protocol)
        assert not isinstance(read_text, str), as_text
        assert read_text == read_json
        winners.add(getattr(read_text, "winner", None))
    assert winners == ({"A", "B"} if pair else {None})


def test_the_mock_spreads_its_verdicts_over_its_own_earlier_text_answers() -> None:
    """With history_spread 1 the mock names the candidate it named least so far: it must read
    its earlier verdicts from the text, or it would just answer as without history."""
    bias = MockBias(history_spread=1.0)
    for case in range(20):
        first = mock_reply(_pair_request(case, text=True), bias)
        again = mock_reply(_pair_request(case, text=True, earlier=(first,)), bias)
        before = parse_text_judgment(first, "pair")
        after = parse_text_judgment(again, "pair")
        assert not isinstance(before, str) and not isinstance(after, str)
        assert {before.winner, after.winner} == {"A", "B"}
