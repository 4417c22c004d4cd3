"""A whole run on a judge served by two replicas (two loopback OpenAI-format servers).

Healthy, every trial's calls and its label and order twins land on one replica
while the pairs spread over both, and a re-run with the replicas listed the other way round
is answered from the store. With one replica killed part-way, the run finishes on the other:
no trial lost, every call stored once.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli
from helpers.fakes import FakeOpenAIServer
from helpers.judges import openai_judge_like
from helpers.runs import Run, run

from fairpanel.agents import canonical_json
from fairpanel.judging import TrialSpec, design_of, load_experiment

pytestmark = pytest.mark.timeout(180)

EXPERIMENT = """\
name: replicas
models:
  judge:
    id: openai-compatible/judge
    structured_output: true
    timeout_s: 2
    limits: {{max_retries: 3, backoff_base_s: 0.01, backoff_max_s: 0.05}}
    replicas:
      - base_url: {first}
      - base_url: {second}
responder: {{model: judge}}
panel:
  judges: [domain_expert, clarity_editor]
  model: judge
  discussion_rounds: 1
scenarios: {{bases: [fitness-coaching, nursing-care-plan], derived_per_base: 3}}
identities: {{categories: [gender]}}
arms: {{placebo: false, same_label: false}}
concurrency: 6
"""


def _write(tmp_path: Path, first: str, second: str, name: str = "experiment.yaml") -> Path:
    path = tmp_path / name
    path.write_text(EXPERIMENT.format(first=first, second=second), encoding="utf-8")
    return path


def _messages(messages: Any) -> str:
    return canonical_json([{"role": m["role"], "content": m["content"]} for m in messages])


def _servers_by_call(finished: Run, servers: dict[str, FakeOpenAIServer]) -> dict[str, set[str]]:
    """Stored call key -> the servers that were sent its messages."""
    sent: dict[str, set[str]] = defaultdict(set)
    for name, server in servers.items():
        for body in server.requests:
            sent[_messages(body["messages"])].add(name)
    return {
        key: sent[_messages(json.loads(request)["messages"])]
        for key, request in finished.rows("SELECT key, request FROM calls")
    }


def test_pairs_stay_on_one_replica_and_the_store_serves_any_order(cli: Cli, tmp_path: Path) -> None:
    with (
        FakeOpenAIServer(openai_judge_like, latency=0.01) as a,
        FakeOpenAIServer(openai_judge_like, latency=0.01) as b,
    ):
        finished = run(cli, _write(tmp_path, a.base_url, b.base_url), tmp_path / "run")
        servers = _servers_by_call(finished, {"a": a, "b": b})
        expected = ",".join(sorted([a.base_url, b.base_url]))
        # The same run, its replicas listed the other way round: all answers are stored.
        again = run(cli, _write(tmp_path, b.base_url, a.base_url, "swapped.yaml"), finished.out)
        assert again.summary["calls_made"] == 0
        assert again.summary["trials_run"] == 0
    summary = finished.summary
    assert summary["trials_ok"] == summary["trials_total"] > 0
    assert finished.rows("SELECT DISTINCT endpoint FROM calls") == [(expected,)]

    by_unit: dict[str, set[str]] = defaultdict(set)
    trials = dict(finished.rows("SELECT key, spec FROM trials"))
    for trial_key, call_keys in finished.rows("SELECT trial_key, call_keys FROM turns"):
        unit = TrialSpec.model_validate_json(trials[trial_key]).route_key()
        for key in json.loads(call_keys):
            by_unit[unit] |= servers[key]
    assert len(by_unit) == 12  # per scenario: its single trials, and its one pair of labels
    assert all(len(names) == 1 for names in by_unit.values()), by_unit
    homes = {next(iter(names)) for names in by_unit.values()}
    assert homes == {"a", "b"}, "the units should spread over both replicas"


def test_a_replica_killed_half_way_leaves_no_trial_lost(cli: Cli, tmp_path: Path) -> None:
    killed = threading.Event()
    a = FakeOpenAIServer(openai_judge_like, latency=0.01)
    b = FakeOpenAIServer(latency=0.01)
    seen_by_a_at_kill: list[int] = []

    def dies_after_60(body: dict[str, Any]) -> str:
        if len(b.requests) >= 60 and not killed.is_set():
            killed.set()
            seen_by_a_at_kill.append(len(a.requests))
            threading.Thread(target=b.stop).start()
        return openai_judge_like(body)

    b.reply = dies_after_60
    with a, b:
        b_url = b.base_url
        finished = run(cli, _write(tmp_path, a.base_url, b_url), tmp_path / "run")
        answered_by_a = len(a.requests)
    assert killed.is_set(), "the run ended before the replica was killed"
    summary = finished.summary
    assert summary["trials_failed"] == 0, summary["failures"]
    assert summary["trials_ok"] == summary["trials_total"] == summary["trials_run"]
    # The survivor took over: it answered well more after the kill than before.
    assert answered_by_a > seen_by_a_at_kill[0] + 60
    # Every call stored once, and every judge turn's calls are among them.
    stored = [key for (key,) in finished.rows("SELECT key FROM calls")]
    assert len(stored) == len(set(stored)) == summary["calls_made"]
    turn_keys = {
        key for (keys,) in finished.rows("SELECT call_keys FROM turns") for key in json.loads(keys)
    }
    assert turn_keys <= set(stored)
    # The summary says which replica was lost, and why.
    lost = [w for w in summary["warnings"] if w.startswith(f"replica {b_url} ")]
    assert len(lost) == 1 and "taken out" in lost[0] and "Connection" in lost[0], lost


def test_a_route_key_joins_the_label_twins_of_one_unit_and_nothing_else(tmp_path: Path) -> None:
    path = _write(tmp_path, "http://127.0.0.1:8001/v1", "http://127.0.0.1:8002/v1")
    trials = list(design_of(load_experiment(path)).trials())
    groups: dict[str, list[TrialSpec]] = defaultdict(list)
    for spec in trials:
        groups[spec.route_key()].append(spec)

    def unit(spec: TrialSpec) -> tuple[Any, ...]:
        pair = tuple(sorted(spec.identities)) if spec.protocol == "pair" else ()
        return (spec.protocol, spec.scenario_id, spec.signal, spec.replicate, pair)

    for members in groups.values():
        assert len({unit(m) for m in members}) == 1
    pairs = [spec for spec in trials if spec.protocol == "pair"]
    by_arrangement = {(p.scenario_id, p.response_indices, p.identities): p for p in pairs}
    for spec in pairs:
        scenario, order, labels = spec.scenario_id, spec.response_indices, spec.identities
        label_twin = by_arrangement[(scenario, order, labels[::-1])]
        order_twin = by_arrangement[(scenario, order[::-1], labels)]
        for twin in (label_twin, order_twin):
            assert twin.key() != spec.key() and twin.route_key() == spec.route_key()
    # Different scenarios, protocols and label pairs are different units (they spread the load).
    assert len(groups) == len({unit(t) for t in trials})
