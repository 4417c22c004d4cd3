"""Plan before paying: the estimate's counts match a real run; costs follow the price table."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import Cli, WriteExperiment, read_json

from fairpanel.agents import Usage
from fairpanel.judging import Price, cost_of, estimate, load_experiment

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
    [(1, "mean", "open"), (2, "moderator", "blind"), (0, "median", "open")],
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
    singles = 4 * (2 + 4) + 4  # + placebo
    pairs = 4 * ((1 + 6) * 4 + (2 + 4) * 2 + 2)  # main 2x2, same-label and placebo both orders
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
    assert plan.trials_total == 10
    assert sum(plan.calls.values()) == 2 + 10 * 2 * 3
