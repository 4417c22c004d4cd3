"""Which replica answered: a whole run on two loopback replicas of one judge, one of them
failing some requests with HTTP 500.

The fake servers log what they answered and what they failed; every number the store and
the summary give per replica is checked against those logs, counted here independently.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
import statistics
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, WriteExperiment, read_json
from helpers.experiments import FAKE_JUDGE, panel_experiment
from helpers.fakes import FakeOpenAIBatchServer, FakeOpenAIServer, Fault
from helpers.judges import SECRET, openai_judge_like
from helpers.runs import Run, run, stored_rows

import fairpanel
from fairpanel.agents import FailedAttempt, Message, ModelReply, ModelRequest, canonical_json
from fairpanel.judging.store import (
    NOT_RECORDED,
    STORE_FILE,
    STORE_SCHEMA_VERSION,
    Store,
    _store_schema,
)

pytestmark = pytest.mark.timeout(180)

EXPERIMENT = """\
name: replica-record
models:
  judge:
    id: openai-compatible/judge
    structured_output: true
    timeout_s: 5
    limits: {{max_retries: 4, backoff_base_s: 0.01, backoff_max_s: 0.02}}
    replicas:
      - base_url: {first}
      - base_url: {second}
responder: {{model: judge}}
panel:
  judges: [domain_expert, clarity_editor]
  model: judge
  discussion_rounds: 0
scenarios: {{bases: [fitness-coaching, nursing-care-plan], derived_per_base: 2}}
identities: {{categories: [gender]}}
arms: {{placebo: false, same_label: false}}
concurrency: 6
"""
MODEL = "openai-compatible/judge"


def _messages(messages: Any) -> str:
    return canonical_json([{"role": m["role"], "content": m["content"]} for m in messages])


def _every_fourth_fails() -> Any:
    count = itertools.count(1)

    def reply(body: dict[str, Any]) -> str | Fault:
        return Fault("server_error") if next(count) % 4 == 0 else openai_judge_like(body)

    return reply


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, dict[str, FakeOpenAIServer]]:
    """The run, and its two servers (stopped, their logs kept): ``steady`` and ``flaky``."""
    root = tmp_path_factory.mktemp("replica-record")
    with (
        FakeOpenAIServer(openai_judge_like, latency=0.01) as steady,
        FakeOpenAIServer(_every_fourth_fails(), latency=0.02) as flaky,
    ):
        config = root / "experiment.yaml"
        config.write_text(EXPERIMENT.format(first=steady.base_url, second=flaky.base_url), "utf-8")
        done = run(Cli(), config, root / "run")
        servers = {steady.base_url: steady, flaky.base_url: flaky}
    return done, servers


def _answered(server: FakeOpenAIServer) -> list[dict[str, Any]]:
    return [body for status, body in server.replies if status == 200]


def test_every_stored_call_names_the_server_that_answered_it(
    finished: tuple[Run, dict[str, FakeOpenAIServer]],
) -> None:
    done, servers = finished
    answered_by: dict[str, set[str]] = defaultdict(set)
    for url, server in servers.items():
        for body in _answered(server):
            answered_by[_messages(body["messages"])].add(url)
    rows = done.rows("SELECT request, replica, endpoint FROM calls")
    assert rows and {replica for _, replica, _ in rows} == set(servers)
    for request, replica, endpoint in rows:
        assert answered_by[_messages(json.loads(request)["messages"])] == {replica}
        assert endpoint == ",".join(sorted(servers))  # the set's name, whoever answered
    stored = Counter(replica for _, replica, _ in rows)
    assert stored == {url: len(_answered(server)) for url, server in servers.items()}


def test_failed_attempts_land_on_the_failing_replica(
    finished: tuple[Run, dict[str, FakeOpenAIServer]],
) -> None:
    done, servers = finished
    refused = {url: sum(s == 500 for s, _ in server.replies) for url, server in servers.items()}
    steady, flaky = servers
    assert refused[steady] == 0 and refused[flaky] > 0
    failures = done.rows("SELECT replica, model, kind, status, latency_s FROM call_failures")
    assert len(failures) == refused[flaky]
    assert {(r, m, k, s) for r, m, k, s, _ in failures} == {(flaky, MODEL, "HTTP 500", 500)}
    assert all(latency >= 0.02 for *_, latency in failures)  # the server's own latency
    # Every refused request was tried again and answered: no trial lost.
    assert done.summary["trials_failed"] == 0


def test_the_summary_counts_calls_failures_and_latency_per_replica(
    finished: tuple[Run, dict[str, FakeOpenAIServer]],
) -> None:
    done, servers = finished
    latencies: dict[str, list[float]] = defaultdict(list)
    for replica, latency in done.rows("SELECT replica, latency_s FROM calls"):
        latencies[replica].append(latency)
    found = done.summary["replicas"]
    assert list(found) == [MODEL]
    assert set(found[MODEL]) == set(servers)
    for url, server in servers.items():
        numbers = found[MODEL][url]
        refused = sum(status == 500 for status, _ in server.replies)
        assert numbers["calls"] == len(_answered(server)) > 0
        assert numbers["failures"] == refused
        assert numbers["failures_by_kind"] == ({"HTTP 500": refused} if refused else {})
        seconds = latencies[url]
        assert numbers["latency_s"] == {
            "mean": round(statistics.fmean(seconds), 4),
            "p50": round(statistics.median(seconds), 4),
            "p95": round(statistics.quantiles(seconds, n=20, method="inclusive")[18], 4),
        }
        assert min(seconds) >= server.latency
    # Both replicas answer one model, so the terminal shows the table.
    lines = done.output.splitlines()
    assert any("Replicas (every run on this folder)" in line for line in lines)
    for url, server in servers.items():
        row = f"{len(_answered(server))} │ {sum(s == 500 for s, _ in server.replies)} │"
        assert any(url in line and row in " ".join(line.split()) for line in lines), url
    # ... and the report's provenance a row per replica.
    report = (done.out / "report.html").read_text(encoding="utf-8")
    for url, server in servers.items():
        refused = sum(status == 500 for status, _ in server.replies)
        assert f"{url}: {len(_answered(server))} calls, {refused} failed attempts" in report


def test_a_rerun_keeps_the_numbers_of_the_run_before(
    finished: tuple[Run, dict[str, FakeOpenAIServer]], cli: Cli
) -> None:
    """The servers are gone: a rerun is answered from the store, and the summary it writes
    still counts the first invocation's calls and failures."""
    done, _ = finished
    before = done.summary
    again = cli("run", str(done.config), "--out", str(done.out), "--no-report")
    assert again.exit_code == 0, again.output
    after = done.summary
    assert after["calls_made"] == 0
    assert after["replicas"] == before["replicas"]


def _request(text: str) -> ModelRequest:
    return ModelRequest(model=MODEL, messages=(Message(role="user", content=text),))


def test_a_version_6_store_upgrades_and_counts_its_old_calls_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store as fairpanel wrote it at schema 6 (the migrations run only that far) takes
    the replica column and the failures table; its calls' replica is unknown, not guessed."""
    path = tmp_path / STORE_FILE
    old = _request("before the upgrade")
    with monkeypatch.context() as patched:
        patched.setattr(_store_schema, "STORE_SCHEMA_VERSION", 6)
        db = sqlite3.connect(path, isolation_level=None)
        _store_schema.prepare(db, path)
        db.execute(
            "INSERT INTO calls (key, model, endpoint, role, request, reply, finish_reason, "
            "prompt_tokens, completion_tokens, cached_tokens, latency_s, created_at) "
            "VALUES (?, ?, 'http://a/v1', 'responder', ?, 'Seven', 'stop', 3, 1, 0, 0.5, 'then')",
            (old.key(), MODEL, old.model_dump_json()),
        )
        db.close()
    with sqlite3.connect(path) as db:
        assert "replica" not in {row[1] for row in db.execute("PRAGMA table_info(calls)")}
    db.close()
    store = Store(path)
    try:
        stored = store.get_call(old.key())
        assert stored is not None and stored.text == "Seven" and stored.replica is None
        new = _request("after the upgrade")
        store.put_call(new.key(), new, ModelReply(text="Eight", replica="http://a/v1"), "judge")
        fresh = store.get_call(new.key())
        store.replicas.put_failure(
            FailedAttempt(
                call_key=new.key(), model=MODEL, replica="http://a/v1", kind="HTTP 503",
                status=503, latency_s=0.25, error="HTTP 503: busy",
            )
        )  # fmt: skip
        summary = store.replicas.summary()
    finally:
        store.close()
    assert fresh is not None and fresh.replica == "http://a/v1"
    with sqlite3.connect(path) as db:
        version = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    db.close()
    assert version == (str(STORE_SCHEMA_VERSION),) == ("7",)
    assert summary == {
        MODEL: {
            NOT_RECORDED: {
                "calls": 1,
                "failures": 0,
                "failures_by_kind": {},
                "latency_s": {"mean": 0.5, "p50": 0.5, "p95": 0.5},
            },
            "http://a/v1": {
                "calls": 1,
                "failures": 1,
                "failures_by_kind": {"HTTP 503": 1},
                "latency_s": {"mean": 0.0, "p50": 0.0, "p95": 0.0},
            },
        }
    }


def test_batch_answered_calls_name_the_batch_endpoint(
    write_experiment: WriteExperiment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAIRPANEL_TEST_KEY", SECRET)
    with FakeOpenAIBatchServer(openai_judge_like, api_key=SECRET) as server:
        url = server.base_url
        judge = {**FAKE_JUDGE, "base_url": url, "batch": {"flush_s": 0.1, "poll_s": 0.02}}
        path = write_experiment(
            panel_experiment(
                "batched-replica",
                judge,
                panel={"judges": ["domain_expert"], "discussion_rounds": 0},
                scenarios={"bases": ["fitness-coaching"], "derived_per_base": 1},
                arms={"placebo": False, "same_label": False},
                execution="batch",
            )
        )
        fairpanel.run(path, tmp_path / "run", report=False)
    rows = stored_rows(tmp_path / "run" / STORE_FILE, "SELECT batch_id, replica FROM calls")
    assert rows and all(batch_id for batch_id, _ in rows)
    assert {replica for _, replica in rows} == {url}
    found = read_json(tmp_path / "run" / "summary.json")["replicas"]
    assert found == {
        MODEL: {url: {"calls": len(rows), "failures": 0, "failures_by_kind": {}, "latency_s": None}}
    }
