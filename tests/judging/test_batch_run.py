"""``execution: batch`` end to end: a run whose responder and judges are answered by the
loopback OpenAI Batch API, round by round, priced at the batch rate; a run killed mid-poll
and run again polls the batches it left and sends nothing twice; a run can switch modes and
finds its earlier answers in the shared cache."""

from __future__ import annotations

import json
import signal
import sqlite3
import time
from pathlib import Path

import pytest
from conftest import WriteExperiment, read_json
from helpers.experiments import FAKE_JUDGE, panel_experiment
from helpers.fakes import BatchPlan, FakeAnthropicBatchServer, FakeOpenAIBatchServer
from helpers.judges import SECRET, anthropic_judge_like
from helpers.judges import openai_judge_like as judge_like
from helpers.runs import start_cli_run, stored_rows

import fairpanel


def _experiment(execution: str, base_url: str) -> str:
    return panel_experiment(
        "batched",
        {
            **FAKE_JUDGE,
            "base_url": base_url,
            "batch": {"flush_s": 0.2, "poll_s": 0.02, "max_poll_s": 0.05},
        },
        panel={"judges": ["domain_expert", "clarity_editor"]},
        scenarios={"derived_per_base": 2},
        arms={"placebo": False, "same_label": False},
        prices={"openai-compatible/judge": {"input": 2.0, "output": 8.0}},
        execution=execution,
    )


def _chat_requests(server: FakeOpenAIBatchServer) -> int:
    """Online chat completions the server answered (batch uploads are not JSON bodies)."""
    return sum("messages" in body for body in server.requests)


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRPANEL_TEST_KEY", SECRET)


def test_a_batched_run_goes_round_by_round_at_the_batch_price(
    write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    with FakeOpenAIBatchServer(judge_like, api_key=SECRET) as server:
        path = write_experiment(_experiment("batch", server.base_url))
        outcome = fairpanel.run(path, tmp_path / "run", report=False)
        batches = [server.book.batches[b] for b in server.book.created]
        assert _chat_requests(server) == 0
    summary = read_json(tmp_path / "run" / "summary.json")
    assert summary["trials_ok"] == summary["trials_total"] > 4
    calls = summary["calls_made"]
    assert sum(len(b.requests) for b in batches) == calls  # every call in a batch, once
    # One batch per step of every trial together: the two response steps, then each judge's
    # turn in the first, discussion and final rounds (a speaker sees the earlier ones).
    trials = summary["trials_total"]
    assert [len(b.requests) for b in batches] == [2, 2] + [trials] * 6
    cost = summary["cost"]
    assert cost["total_usd"] > 0 and cost["batch_usd"] == pytest.approx(cost["total_usd"])
    assert cost["batch_saved_usd"] == pytest.approx(cost["batch_usd"])  # 50% off
    assert summary["batches"] == {"completed": len(batches)}
    rows = stored_rows(tmp_path / "run" / "fairpanel.sqlite", "SELECT batch_id FROM calls")
    assert len(rows) == calls and all(batch_id for (batch_id,) in rows)
    lines = (tmp_path / "run" / "batches").glob("*.jsonl")
    keys = {json.loads(line)["custom_id"] for f in lines for line in f.read_text().splitlines()}
    stored = stored_rows(tmp_path / "run" / "fairpanel.sqlite", "SELECT key FROM calls")
    assert keys == {key for (key,) in stored}
    assert outcome is not None


def test_a_batched_run_on_message_batches(
    write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    with FakeAnthropicBatchServer(anthropic_judge_like, api_key=SECRET) as server:
        text = _experiment("batch", server.base_url)
        text = text.replace("openai-compatible/judge", "anthropic/judge")
        fairpanel.run(write_experiment(text), tmp_path / "run", report=False)
        sizes = [len(server.book.batches[b].requests) for b in server.book.created]
        online = len(server.requests) - len(server.book.created)  # creations are POSTs too
    summary = read_json(tmp_path / "run" / "summary.json")
    trials = summary["trials_total"]
    assert summary["trials_ok"] == trials and online == 0
    assert sizes == [2, 2] + [trials] * 6 and sum(sizes) == summary["calls_made"]
    assert summary["cost"]["batch_usd"] == pytest.approx(summary["cost"]["total_usd"]) != 0


def _forget_trials(db_path: Path) -> None:
    """Keep the calls, drop the trials: the next run re-runs every trial from the cache."""
    with sqlite3.connect(db_path) as db:
        db.execute("DELETE FROM turns")
        db.execute("DELETE FROM trials")
    db.close()


@pytest.mark.parametrize("first", ["online", "batch"])
def test_switching_modes_reuses_the_calls_already_made(
    write_experiment: WriteExperiment, tmp_path: Path, first: str
) -> None:
    second = "batch" if first == "online" else "online"
    out = tmp_path / "run"
    with FakeOpenAIBatchServer(judge_like, api_key=SECRET) as server:
        before = write_experiment(_experiment(first, server.base_url))
        fairpanel.run(before, out, report=False)
        sent = (_chat_requests(server), len(server.book.created))
        assert sent[0 if first == "online" else 1] > 0
        _forget_trials(out / "fairpanel.sqlite")
        after = write_experiment(_experiment(second, server.base_url), "b.yaml")
        fairpanel.run(after, out, report=False)
        assert (_chat_requests(server), len(server.book.created)) == sent  # nothing new sent
    summary = read_json(out / "summary.json")
    assert summary["trials_ok"] == summary["trials_total"]
    assert summary["calls_made"] == 0 and summary["calls_cached"] > 0


def test_killed_mid_poll_the_rerun_polls_and_never_resubmits(
    write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    with FakeOpenAIBatchServer(judge_like, api_key=SECRET) as server:
        # The third batch (every trial's first judge) stays in progress while the run is up.
        server.book.plans += [BatchPlan(polls=0), BatchPlan(polls=0), BatchPlan(polls=10**6)]
        path = write_experiment(_experiment("batch", server.base_url))
        out = tmp_path / "run"
        db_path = out / "fairpanel.sqlite"
        process = start_cli_run(path, out, {"FAIRPANEL_TEST_KEY": SECRET})
        deadline = time.monotonic() + 60
        while not stored_rows(db_path, "SELECT 1 FROM batches WHERE state = 'in_progress'"):
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "no batch in progress"
            time.sleep(0.02)
        process.send_signal(signal.SIGKILL)
        process.wait()
        assert len(server.book.created) == 3
        stuck = server.book.batches[server.book.created[2]]
        stuck.plan = BatchPlan(polls=0)  # it finishes while no run is polling

        rerun = start_cli_run(path, out, {"FAIRPANEL_TEST_KEY": SECRET})
        _, stderr = rerun.communicate(timeout=120)
        assert rerun.returncode == 0, stderr.decode()
        items = server.book.submitted_items
        assert len(items) == len(set(items))  # nothing was sent twice
    summary = read_json(out / "summary.json")
    assert summary["trials_ok"] == summary["trials_total"]
    (calls,) = stored_rows(db_path, "SELECT COUNT(*) FROM calls")
    assert calls == (len(items),)
