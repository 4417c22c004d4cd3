"""A run that compares panels, against loopback OpenAI-format servers that judge like the mock
with different planted biases: one responder pass for every panel, no call repeated on a
re-run, a panel added later calls only its own server, a killed run resumes."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, WriteExperiment, read_json
from helpers.fakes import FakeOpenAIServer
from helpers.judges import SECRET
from helpers.runs import kill_once_stored, start_cli_run, stored_count

from fairpanel.agents import Message, MockBias, ModelRequest, mock_reply

KEY_VARIABLE = "PANELS_RUN_KEY"
ALL_METRICS = ("creativity", "accuracy", "efficiency", "reliability")
FAIR = MockBias()
BIASED = MockBias(score_shift={"female": dict.fromkeys(ALL_METRICS, 1.0)})


def judge_as(bias: MockBias) -> Callable[[dict[str, Any]], str]:
    """A reply function answering like the mock with ``bias``, from the SDK's request body."""

    def reply(body: dict[str, Any]) -> str:
        response_format = body.get("response_format") or {}
        schema = (
            response_format.get("json_schema")
            if response_format.get("type") == "json_schema"
            else None
        )
        messages = tuple(Message(role=m["role"], content=m["content"]) for m in body["messages"])
        return mock_reply(
            ModelRequest(model=body["model"], messages=messages, response_schema=schema), bias
        )

    return reply


def _model(server: FakeOpenAIServer) -> str:
    return (
        f"    id: openai-compatible/judge\n    base_url: {server.base_url}\n"
        f"    api_key_env: {KEY_VARIABLE}\n    structured_output: true\n"
    )


def experiment(servers: dict[str, FakeOpenAIServer], bases: str = "all") -> str:
    """Every panel one judge on its own server; the responder is the first server's."""
    models = "".join(f"  {name}:\n{_model(server)}" for name, server in servers.items())
    panels = "".join(
        f"  {name}:\n    model: {name}\n    judges: [domain_expert]\n    discussion_rounds: 0\n"
        for name in servers
    )
    first = next(iter(servers))
    return (
        f"name: panels-run\nseed: 3\nprotocols: [single]\nmodels:\n{models}"
        f"responder:\n  model: {first}\npanels:\n{panels}"
        f"scenarios:\n  bases: {bases}\n  derived_per_base: 2\n"
        "identities:\n  categories: [gender]\narms: {placebo: false, same_label: false}\n"
        "concurrency: 8\n"
    )


@contextmanager
def servers(**biases: MockBias) -> Iterator[dict[str, FakeOpenAIServer]]:
    with ExitStack() as stack:
        yield {
            name: stack.enter_context(FakeOpenAIServer(judge_as(bias), api_key=SECRET))
            for name, bias in biases.items()
        }


def _judge_requests(server: FakeOpenAIServer) -> int:
    """Requests that asked for a judgment (the responder's ask for no schema)."""
    return sum(1 for body in server.requests if body.get("response_format"))


def _roles(db_path: Path) -> dict[str, int]:
    with sqlite3.connect(db_path) as db:
        return dict(db.execute("SELECT role, COUNT(*) FROM calls GROUP BY role").fetchall())


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VARIABLE, SECRET)


TWO_BASES = "[fitness-coaching, nursing-care-plan]"
TRIALS_PER_PANEL = 2 * 2 * 2  # bases x derived x identities


@pytest.mark.usefixtures("key")
def test_one_responder_pass_and_a_rerun_adds_no_call(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    with servers(fair=FAIR, biased=BIASED) as running:
        path = write_experiment(experiment(running, TWO_BASES))
        out = tmp_path / "run"
        assert cli("run", str(path), "--out", str(out), "--no-report").exit_code == 0
        summary = read_json(out / "summary.json")
        assert summary["trials_total"] == 2 * TRIALS_PER_PANEL == summary["trials_ok"]
        assert {name: block["trials_ok"] for name, block in summary["panels"].items()} == {
            "fair": TRIALS_PER_PANEL,
            "biased": TRIALS_PER_PANEL,
        }
        # The responder wrote each scenario's two answers once, for both panels.
        roles = _roles(out / "fairpanel.sqlite")
        assert roles["responder"] == 2 * 2 * 2
        assert roles["fair judge:first"] == roles["biased judge:first"] == TRIALS_PER_PANEL
        assert _judge_requests(running["fair"]) == _judge_requests(running["biased"]) == 2 * 8
        before = {name: len(server.requests) for name, server in running.items()}
        assert cli("run", str(path), "--out", str(out), "--no-report").exit_code == 0
        assert {name: len(server.requests) for name, server in running.items()} == before
        assert read_json(out / "summary.json")["calls_made"] == 0


@pytest.mark.usefixtures("key")
def test_a_panel_added_later_calls_only_its_own_judges(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    with servers(fair=FAIR, biased=BIASED, twin=FAIR) as running:
        two = {name: running[name] for name in ("fair", "biased")}
        out = tmp_path / "run"
        first = write_experiment(experiment(two, TWO_BASES), "two.yaml")
        assert cli("run", str(first), "--out", str(out), "--no-report").exit_code == 0
        before = {name: len(server.requests) for name, server in running.items()}
        path = write_experiment(experiment(running, TWO_BASES), "three.yaml")
        assert cli("run", str(path), "--out", str(out), "--no-report").exit_code == 0
        after = {name: len(server.requests) for name, server in running.items()}
        assert after["fair"] == before["fair"] and after["biased"] == before["biased"]
        assert after["twin"] - before["twin"] == 2 * TRIALS_PER_PANEL  # first and final
        summary = read_json(out / "summary.json")
        assert summary["trials_ok"] == 3 * TRIALS_PER_PANEL
        assert summary["trials_run"] == TRIALS_PER_PANEL


def test_a_killed_multi_panel_run_resumes_without_repeats(
    write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    with servers(fair=FAIR, biased=BIASED) as running:
        for server in running.values():
            server.latency = 0.02
        path = write_experiment(experiment(running, TWO_BASES))
        out = tmp_path / "run"
        db_path = out / "fairpanel.sqlite"
        process = start_cli_run(path, out, {KEY_VARIABLE: SECRET})
        kill_once_stored(process, db_path, 3)
        assert stored_count(db_path, "trials") < 2 * TRIALS_PER_PANEL, "killed too late"
        requests_at_kill = sum(len(server.requests) for server in running.values())
        calls_at_kill = stored_count(db_path, "calls")
        rerun = start_cli_run(path, out, {KEY_VARIABLE: SECRET})
        _, stderr = rerun.communicate(timeout=120)
        assert rerun.returncode == 0, stderr.decode()
        summary = read_json(out / "summary.json")
        assert summary["trials_ok"] == 2 * TRIALS_PER_PANEL
        requests = sum(len(server.requests) for server in running.values())
        # Every request after the restart became a new stored call: nothing finished was redone.
        assert requests - requests_at_kill == stored_count(db_path, "calls") - calls_at_kill


@pytest.mark.usefixtures("key")
def test_the_leaderboard_ranks_planted_biases_and_pairs_identical_servers(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    """Three servers: one adds a point to every score of a candidate labelled female, two are
    the same fair judge. On 15 base scenarios the biased one ranks last on its own, its paired
    difference from the fair one is called with an interval covering the planted point, and the
    two identical servers are not separable."""
    with servers(fair=FAIR, biased=BIASED, twin=FAIR) as running:
        path = write_experiment(experiment(running))
        out = tmp_path / "run"
        result = cli("run", str(path), "--out", str(out))
        assert result.exit_code == 0, result.output
    block = read_json(out / "results.json")["panel_comparison"]
    leaderboard = block["leaderboard"]
    assert [row["panel"] for row in leaderboard][-1] == "biased"
    ranks = {rank["panel"]: rank for rank in block["ranks"]}
    assert ranks["biased"]["rank_label"] == "3rd"
    assert ranks["fair"]["rank_label"] == ranks["twin"]["rank_label"] == "1st-2nd"
    rows = {row["id"]: row for row in block["comparison"]["differences"]}
    planted = rows["panel_diff:single:gender:female-male:fair-vs-biased"]
    assert planted["called"] is True
    assert planted["ci_low"] <= 1.0 <= planted["ci_high"]
    assert planted["difference"] > 0.5
    assert "biased" in " ".join(block["summary"])
    same = [row for row in rows.values() if {row["panel_a"], row["panel_b"]} == {"fair", "twin"}]
    assert same and not any(row["called"] for row in same)
    assert all(row["difference"] == 0.0 for row in same if row["kind"] == "single")
    # The terminal's summary gives each panel its line, fairest first.
    assert "biased (3rd): " in result.output
    assert "Panels on the same trials" not in result.output  # the table only with --tables
