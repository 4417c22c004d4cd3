"""``fairpanel run --detach``: a batched run submitted and left, then taken up again pass by
pass until it ends with the same trials and turns as a run that waited; ``fairpanel status``
reports what is open in between."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, WriteExperiment, read_json
from helpers.experiments import FAKE_JUDGE, panel_experiment
from helpers.fakes import BatchPlan, FakeAnthropicBatchServer, FakeOpenAIBatchServer
from helpers.judges import SECRET
from helpers.judges import openai_judge_like as judge_like
from helpers.runs import mock_run

import fairpanel
from fairpanel.agents import (
    BatchCollector,
    BatchDispatcher,
    BatchPendingError,
    BatchSettings,
    CachingCaller,
    Message,
    ModelRegistry,
    ModelRequest,
    ModelSpec,
)
from fairpanel.judging.store import EXIT_PENDING, Store

_HELD = 2
"""Status reads each batch shows ``in_progress`` before it completes."""


def _experiment(base_url: str, responder: str = "batch") -> str:
    """The judge batched; the responses written by the same model, batched or online."""
    writer = {**FAKE_JUDGE, "base_url": base_url, "execution": responder}
    return panel_experiment(
        "detached",
        {
            **FAKE_JUDGE,
            "base_url": base_url,
            "batch": {"flush_s": 0.2, "poll_s": 0.02, "max_poll_s": 0.05},
        },
        panel={"judges": ["domain_expert", "clarity_editor"]},
        scenarios={"derived_per_base": 2},
        arms={"placebo": False, "same_label": False},
        prices={"openai-compatible/judge": {"input": 2.0, "output": 8.0}},
        execution="batch",
        models={"writer": writer},
        responder={"model": "writer"},
    )


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRPANEL_TEST_KEY", SECRET)


def _rows(db_path: Path, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db_path) as db:
        rows = db.execute(query).fetchall()
    db.close()
    return rows


STORE = "fairpanel.sqlite"

_TRIALS = "SELECT key, status, error, consensus FROM trials ORDER BY key"
_TURNS = (
    "SELECT trial_key, round, round_kind, judge, speaker_index, judge_model, raw_text, parsed, "
    "parse_error, attempts, prompt_tokens, completion_tokens, call_keys FROM turns "
    "ORDER BY trial_key, round, judge"
)
"""Every column but the latency, which a cached answer keeps from wherever it was made."""


@pytest.mark.parametrize("responder", ["batch", "online"])
def test_detached_passes_end_where_an_attached_run_ends(
    write_experiment: WriteExperiment, tmp_path: Path, cli: Cli, responder: str
) -> None:
    with FakeOpenAIBatchServer(judge_like, api_key=SECRET) as server:
        path = write_experiment(_experiment(server.base_url, responder))
        fairpanel.run(path, tmp_path / "attached", report=False)
        attached = len(server.book.created)
        server.book.plans += [BatchPlan(polls=_HELD) for _ in range(attached)]
        out = tmp_path / "detached"
        passes = 0
        while True:
            passes += 1
            assert passes <= 100, "the detached run never ended"
            result = cli("run", str(path), "--out", str(out), "--detach", "--no-report")
            assert result.exit_code == 0, result.output
            summary = read_json(out / "summary.json")
            assert summary["trials_failed"] == 0
            assert _rows(out / STORE, "SELECT COUNT(*) FROM trials WHERE status != 'ok'") == [(0,)]
            if "pending_batches" not in summary:
                break
            assert summary["trials_pending"] > 0 and "fairpanel status" in result.output
        created = server.book.created[attached:]
        items = [key for batch in created for key in server.book.batches[batch].requests]
    assert len(items) == len(set(items))  # nothing was sent twice
    assert len(created) == attached  # the same steps, one batch each
    # Each batch stays open for _HELD passes (one status read each), then the next goes out.
    assert passes == attached * _HELD + 1
    assert summary["trials_ok"] == summary["trials_total"]
    for query in (_TRIALS, _TURNS):
        assert _rows(out / STORE, query) == _rows(tmp_path / "attached" / STORE, query)


def _status(cli: Cli, out: Path) -> tuple[int, dict[str, Any]]:
    result = cli("status", str(out), "--json")
    return result.exit_code, json.loads(result.output)


def test_status_follows_a_detached_run_to_its_end(
    write_experiment: WriteExperiment, tmp_path: Path, cli: Cli
) -> None:
    out = tmp_path / "run"
    with FakeOpenAIBatchServer(judge_like, api_key=SECRET) as server:
        # The first batch (the first responses) runs until the test lets it expire.
        server.book.plans.append(BatchPlan(polls=10**6, end="expired", processed=1))
        path = write_experiment(_experiment(server.base_url))
        result = cli("run", str(path), "--out", str(out), "--detach", "--no-report")
        assert result.exit_code == 0, result.output
        assert "fairpanel status" in result.output and "--detach" in result.output
        assert _rows(out / STORE, "SELECT COUNT(*) FROM trials") == [(0,)]  # none failed
        code, status = _status(cli, out)
        assert code == EXIT_PENDING == 4
        total = read_json(out / "summary.json")["trials_total"]
        assert (status["trials_ok"], status["trials_failed"], status["trials_pending"]) == (
            0,
            0,
            total,
        )
        (batch,) = status["batches"]
        assert batch["provider_batch_id"] == server.book.created[0]
        assert (batch["state"], batch["open"], batch["items"], batch["answered"]) == (
            "in_progress",
            True,
            2,
            0,
        )
        assert (status["open_batches"], status["items_waiting"]) == (1, 2)
        # Two response steps, then the panel's six (two first, two discussion, two final).
        assert status["remaining_steps"] == 8
        assert status["remaining_s"] == 8 * 3600.0
        assert status["cost"]["total_usd"] == 0

        stuck = server.book.batches[server.book.created[0]]
        stuck.plan = BatchPlan(polls=0, end="expired", processed=1)
        result = cli("run", str(path), "--out", str(out), "--no-report")  # attached, to the end
        assert result.exit_code == 0, result.output
    code, status = _status(cli, out)
    assert code == 0 and status["finished"]
    assert (status["trials_ok"], status["trials_pending"], status["open_batches"]) == (total, 0, 0)
    first = status["batches"][0]
    assert (first["state"], first["answered"], first["expired_or_cancelled"]) == ("expired", 1, 1)
    assert all(b["answered"] == b["items"] for b in status["batches"][1:])
    assert status["cost"]["total_usd"] > 0
    assert status["cost"]["batch_usd"] == pytest.approx(status["cost"]["total_usd"])
    assert status["remaining_steps"] == 0


def test_status_reads_a_run_without_loading_autogen_or_the_analysis(tmp_path: Path) -> None:
    """A cron job asks often: the run side, AutoGen, pandas and the statistics stay unloaded."""
    out = mock_run(Cli(), tmp_path, panel_experiment("mocked", {"id": "mock/judge"})).out
    heavy = ("autogen", "pandas", "scipy", "fairpanel.analysis", "fairpanel.judging.engine")
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from fairpanel.cli import app\n"
        f"result = CliRunner().invoke(app, ['status', {str(out)!r}, '--json'])\n"
        f"print(result.exit_code, sorted(m for m in sys.modules if m.startswith({heavy!r})))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split(maxsplit=1) == ["0", "[]\n"]


def test_status_refuses_a_folder_without_a_store(tmp_path: Path, cli: Cli) -> None:
    result = cli("status", str(tmp_path))
    assert result.exit_code == 2 and "not a run folder" in result.output


def _echo(body: dict[str, Any]) -> str:
    last = body["messages"][-1]["content"]
    return "echo: " + (last if isinstance(last, str) else last[0]["text"])


async def _detached_pass(
    server: FakeOpenAIBatchServer | FakeAnthropicBatchServer, spec: ModelSpec, store: Store
) -> list[str | BaseException]:
    """One invocation: a detached dispatcher resuming what is open, three callers."""
    settings = BatchSettings(poll_s=0.01, flush_s=0.05)
    async with ModelRegistry() as registry:
        dispatcher = BatchDispatcher(
            registry.batch_api(spec),
            store.batches,
            store,
            scope=spec.id,
            settings=settings,
            detached=True,
        )
        dispatcher.resume()
        client = BatchCollector(dispatcher, model_id=spec.id, endpoint="e")
        caller = CachingCaller(store)

        async def ask(text: str) -> str:
            message = Message(role="user", content=text)
            request = ModelRequest(model=spec.id, endpoint="e", messages=(message,))
            return (await caller.call(client, request, "judge")).text

        try:
            first = await asyncio.gather(*(ask(f"q{i}") for i in range(3)), return_exceptions=True)
            again = await asyncio.gather(ask("q0"), return_exceptions=True)  # no new batch
            return [*first, *again]
        finally:
            await dispatcher.aclose()


@pytest.mark.parametrize("kind", [FakeOpenAIBatchServer, FakeAnthropicBatchServer])
async def test_a_detached_dispatcher_defers_while_the_batch_runs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    kind: type[FakeOpenAIBatchServer] | type[FakeAnthropicBatchServer],
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-batch")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-batch")
    store = Store(tmp_path / STORE)
    with kind(_echo) as server:
        model = "openai/gpt-4o-mini" if kind is FakeOpenAIBatchServer else "anthropic/c"
        spec = ModelSpec(id=model, base_url=server.base_url, execution="batch")
        server.book.plans.append(BatchPlan(polls=1))
        first = await _detached_pass(server, spec, store)
        assert all(isinstance(result, BatchPendingError) for result in first)
        assert len(server.book.created) == 1  # the deferred key was not sent again
        (batch,) = store.batches.open_batches(spec.id)
        assert batch.provider_batch_id == server.book.created[0] and len(batch.items) == 3
        second = await _detached_pass(server, spec, store)  # its second read: completed
        assert second == ["echo: q0", "echo: q1", "echo: q2", "echo: q0"]
        assert len(server.book.created) == 1 and store.batches.open_batches(spec.id) == []
    store.close()
