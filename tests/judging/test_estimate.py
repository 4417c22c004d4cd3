"""Plan before paying: the estimate's counts match a real run; costs follow the price table."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import yaml
from conftest import Cli, WriteExperiment, read_json
from hypothesis import given, settings
from hypothesis import strategies as st

from fairpanel.agents import Usage
from fairpanel.judging import Price, cost_of, estimate, judge_context, load_experiment
from fairpanel.judging.engine._trial_tokens import CHARS_PER_TOKEN, _context_tokens, tokens

EXPERIMENT = """\
name: plan
models:
  judge: {{id: mock/judge}}
prices:
  mock/judge: {{input: 2.5, output: 10.0, cached_input: 1.25}}
  mock/responder: {{input: 1.0, output: 4.0}}
responder: {{model: mock/responder, sampling: {{max_tokens: 120}}}}
panel:
  judges: [domain_expert, clarity_editor, reliability_auditor]
  model: judge
  discussion_rounds: {rounds}
  consensus: {consensus}
  final_vote: {final_vote}
  sampling: {{max_tokens: 90}}
scenarios: {{bases: [nursing-care-plan, salary-negotiation], derived_per_base: 2}}
identities: {{categories: [gender, religion]}}
"""


@pytest.mark.parametrize(
    ("rounds", "consensus", "final_vote"),
    # No discussion round and two; the consensus rule does not change the calls, the moderator does.
    [(0, "mean", "open"), (2, "moderator", "blind")],
)
def test_estimated_calls_equal_the_calls_a_run_makes(
    cli: Cli,
    write_experiment: WriteExperiment,
    tmp_path: Path,
    rounds: int,
    consensus: str,
    final_vote: str,
) -> None:
    path = write_experiment(
        EXPERIMENT.format(rounds=rounds, consensus=consensus, final_vote=final_vote)
    )
    printed = cli("estimate", str(path), "--json")
    assert printed.exit_code == 0
    plan = json.loads(printed.output)
    assert not (tmp_path / "runs").exists()  # planning writes nothing
    out = tmp_path / "run"
    assert cli("run", str(path), "--out", str(out)).exit_code == 0
    summary = read_json(out / "summary.json")
    assert plan["trials_total"] == summary["trials_total"]
    assert plan["calls_total"] == summary["calls_made"]  # the mock never needs a re-ask
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        by_role = dict(db.execute("SELECT role, COUNT(*) FROM calls GROUP BY role").fetchall())
    assert plan["calls"] == by_role
    singles = 4 * (2 + 4) + 4 * 2  # + placebo: each response under both neutral labels
    # main and placebo 2x2 (label arrangements x orders), same-label both orders
    pairs = 4 * ((1 + 6) * 4 + (2 + 4) * 2 + 1 * 4)
    assert plan["trials"]["single/main"] + plan["trials"]["single/placebo"] == singles
    assert sum(v for k, v in plan["trials"].items() if k.startswith("pair/")) == pairs


def test_run_cost_follows_the_price_table(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    path = write_experiment(EXPERIMENT.format(rounds=1, consensus="mean", final_vote="open"))
    out = tmp_path / "run"
    assert cli("run", str(path), "--out", str(out)).exit_code == 0
    cost = read_json(out / "summary.json")["cost"]
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        rows = db.execute(
            "SELECT model, SUM(prompt_tokens), SUM(completion_tokens) FROM calls GROUP BY model"
        ).fetchall()
    rates = {"mock/judge": (2.5, 10.0), "mock/responder": (1.0, 4.0)}
    expected = sum(p * rates[m][0] + c * rates[m][1] for m, p, c in rows) / 1e6
    assert cost["total_usd"] == pytest.approx(expected, abs=1e-5)
    assert set(cost["by_role"]) == {"responder", "judge:first", "judge:discussion", "judge:final"}
    assert cost["unpriced_models"] == []


def test_cost_of_uses_the_cached_rate_and_lists_unpriced_models() -> None:
    prices = {"a/x": Price(input=2.0, output=8.0, cached_input=0.5)}
    usage = {
        "a/x": Usage(prompt_tokens=1_000_000, completion_tokens=500_000, cached_tokens=400_000),
        "b/y": Usage(prompt_tokens=10),
    }
    cost = cost_of(usage, prices)
    assert cost["total_usd"] == pytest.approx(0.6 * 2.0 + 0.4 * 0.5 + 0.5 * 8.0)
    assert cost["unpriced_models"] == ["b/y"]


def test_default_experiment_estimate_needs_no_model() -> None:
    plan = estimate(load_experiment())
    # Six scenarios x two responses; twelve trials (six x female/male), two judges answering
    # a first and a final round each.
    assert plan.trials_total == 12
    assert sum(plan.calls.values()) == 6 * 2 + 12 * 2 * 2


def _limited(rounds: int) -> str:
    """The experiment with every model named and rate-limited, so the plan has a wall time."""
    config = yaml.safe_load(EXPERIMENT.format(rounds=rounds, consensus="mean", final_vote="open"))
    config["models"] = {
        "judge": {"id": "mock/judge", "limits": {"requests_per_minute": 120}},
        "writer": {"id": "mock/responder", "limits": {"tokens_per_minute": 9000}},
    }
    config["responder"]["model"] = "writer"
    return yaml.safe_dump(config)


def test_estimated_tokens_cost_and_time(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    """Every answer is counted at its full max_tokens; the cost is the price table applied to
    those tokens; the time is the slowest rate limit; prompts cover what the run sent."""
    path = write_experiment(_limited(rounds=1))
    plan = json.loads(cli("estimate", str(path), "--json").output)
    judge_calls = sum(n for role, n in plan["calls"].items() if role.startswith("judge"))
    responder_calls = plan["calls"]["responder"]
    assert responder_calls == 2 * 4  # two answers per scenario, 2 bases x 2 derived
    judge, writer = plan["tokens_by_model"]["mock/judge"], plan["tokens_by_model"]["mock/responder"]
    assert judge["completion_tokens"] == 90 * judge_calls
    assert writer["completion_tokens"] == 120 * responder_calls
    expected_cost = (
        judge["prompt_tokens"] * 2.5
        + judge["completion_tokens"] * 10.0
        + writer["prompt_tokens"] * 1.0
        + writer["completion_tokens"] * 4.0
    ) / 1e6
    assert plan["cost"]["total_usd"] == pytest.approx(expected_cost, abs=1e-5)
    writer_tokens = writer["prompt_tokens"] + writer["completion_tokens"]
    expected_seconds = max(60.0 * judge_calls / 120, 60.0 * writer_tokens / 9000)
    assert plan["wall_seconds"] == pytest.approx(expected_seconds, abs=0.05)

    out = tmp_path / "run"
    assert cli("run", str(path), "--out", str(out)).exit_code == 0
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        sent = db.execute("SELECT model, request FROM calls").fetchall()
    prompt_chars: dict[str, int] = {}
    for model, request in sent:
        messages = json.loads(request)["messages"]
        prompt_chars[model] = prompt_chars.get(model, 0) + sum(len(m["content"]) for m in messages)
    # The mock answers in fewer words than max_tokens allows, so the plan's prompts (which
    # carry full-length answers) are at least what was sent, at 4 characters a token.
    for model, usage in plan["tokens_by_model"].items():
        assert prompt_chars[model] / 4 <= usage["prompt_tokens"] <= 3 * prompt_chars[model] / 4


def test_estimate_has_no_time_without_rate_limits(
    cli: Cli, write_experiment: WriteExperiment
) -> None:
    path = write_experiment(EXPERIMENT.format(rounds=1, consensus="mean", final_vote="open"))
    plan = json.loads(cli("estimate", str(path), "--json").output)
    assert plan["wall_seconds"] is None


FENCE_PIECES = ["<", "\uff1c", "/", "candidate", "judge_turn", "task", '"', "&", ">", "\u200b", " "]
author_text = st.lists(st.sampled_from(FENCE_PIECES) | st.text(max_size=4), max_size=6).map("".join)


@settings(max_examples=60, deadline=None)
@given(
    task=author_text,
    authors=st.lists(author_text, min_size=1, max_size=2).map(tuple),
    position=st.sampled_from(["tag", "header", "footer"]),
    around=st.tuples(author_text, author_text).filter(lambda p: not {"{", "}"} & set("".join(p))),
    response_tokens=st.integers(min_value=0, max_value=40),
)
def test_context_tokens_are_those_of_the_context_a_trial_sends(
    task: str,
    authors: tuple[str, ...],
    position: str,
    around: tuple[str, str],
    response_tokens: int,
) -> None:
    """The estimate works a context's length out from its frame and each author's label; it
    is the length of the context itself, whatever the labels and task hold (fence tags too)."""
    wording = f"{around[0]}{{author}}{around[1]}"
    response = "x" * (response_tokens * CHARS_PER_TOKEN)
    sent = judge_context(
        task, [(author, response) for author in authors], position=position, wording=wording
    )
    assert _context_tokens(task, authors, position, wording, response_tokens) == tokens(sent)


def test_estimated_prompts_carry_the_label_wording(write_experiment: WriteExperiment) -> None:
    """With the label above the text, a longer wording makes every judge prompt longer by its
    length: each judge call of a single trial carries one label."""
    config = yaml.safe_load(EXPERIMENT.format(rounds=1, consensus="mean", final_vote="open"))
    config["protocols"] = ["single"]
    config["identities"]["label_position"] = "header"
    padding = "x" * 400
    plans = []
    for wording in ("Written by {author}.", "Written by {author}." + padding):
        config["identities"]["label_wording"] = wording
        plans.append(estimate(load_experiment(write_experiment(yaml.safe_dump(config)))))
    short, long = plans
    judge_calls = sum(n for role, n in short.calls.items() if role.startswith("judge"))
    added = (
        long.tokens_by_model["mock/judge"].prompt_tokens
        - short.tokens_by_model["mock/judge"].prompt_tokens
    )
    assert added == judge_calls * len(padding) // CHARS_PER_TOKEN
