"""Studies under ``execution: batch``: each of the five built-in studies, batched through the
loopback OpenAI Batch API, stores the same items and reaches the same results as an online run
of the same config on the same fake model; B-score's multi-turn chats go round by round (one
batch per turn of every chat together); a run killed while a batch is open, run again, polls
that batch and never sends a request key twice."""

from __future__ import annotations

import signal
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import read_json
from helpers.fakes import BatchPlan, FakeAnthropicBatchServer, FakeOpenAIBatchServer
from helpers.judges import SECRET, anthropic_judge_like
from helpers.judges import openai_judge_like as answer_like_the_mock
from helpers.paths import EXAMPLES
from helpers.runs import start_cli_run, stored_rows

import fairpanel
from fairpanel.inputs import InputFileError
from fairpanel.judging.store import Store
from fairpanel.studies import build_study, estimate_study, load_study

_BATCH = {"flush_s": 0.2, "poll_s": 0.02, "max_poll_s": 0.05}

# Each example cut to a few items (its mock biases dropped: the fake answers as a plain mock).
_SMALL: dict[str, dict[str, Any]] = {
    "award-audit": {"levels": [5], "pairs_per_level": 1, "concurrency": 2},
    "bscore": {
        "questions": {"topics": ["10-choice_number"], "categories": ["random", "subjective"]},
        "judge_pairs": None,
        "replicates": 1,
        "single_turn_queries": 2,
        "multi_turn_turns": 3,
        "bootstrap_resamples": 200,
        "concurrency": 1,
    },
    "label-bias": {
        "pairs": {
            "responder": {"model": "writer"},
            "scenarios": {"sample": 1, "derived_per_base": 1},
            "pairs": [["female", "male"]],
        },
        "replicates": 1,
        "content_free": ["N/A"],
        "concurrency": 1,
    },
    "biasfreebench": {
        "categories": ["Religion"],
        "items_per_category": 2,
        "treatments": [{"name": "baseline"}, {"name": "self-help", "mitigation": "self-help"}],
        "judge": {"model": "judge", "judgments": 1, "max_reasks": 1},
        "concurrency": 1,
    },
    "judge-bias": {
        "categories": ["Age"],
        "items_per_category": 2,
        "manipulations": ["authority"],
        "concurrency": 1,
    },
}


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRPANEL_TEST_KEY", SECRET)


def _study_file(
    folder: Path, study: str, execution: str, base_url: str, provider: str = "openai-compatible"
) -> Path:
    data = yaml.safe_load((EXAMPLES / f"{study}.yaml").read_text(encoding="utf-8"))
    data["models"] = {
        name: {
            "id": f"{provider}/{name}",
            "base_url": base_url,
            "api_key_env": "FAIRPANEL_TEST_KEY",
            "structured_output": True,
            "batch": _BATCH,
        }
        for name in data["models"]
    }
    data.update(_SMALL[study], execution=execution)
    path = folder / f"{study}-{execution}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _items(out: Path) -> dict[str, tuple[str, Any]]:
    rows = stored_rows(out / "fairpanel.sqlite", "SELECT key, status, result FROM study_items")
    return {key: (status, result) for key, status, result in rows}


def _results(path: Path, out: Path) -> dict[str, Any]:
    config = load_study(path)
    store = Store(out / "fairpanel.sqlite")
    try:
        return build_study(config).analyze(list(store.iter_study_items(config.study)))
    finally:
        store.close()


def _chat_requests(server: FakeOpenAIBatchServer) -> int:
    return sum("messages" in body for body in server.requests)


@pytest.mark.parametrize("study", sorted(_SMALL))
def test_a_batched_study_stores_what_an_online_run_stores(tmp_path: Path, study: str) -> None:
    with FakeOpenAIBatchServer(answer_like_the_mock, api_key=SECRET) as server:
        online = _study_file(tmp_path, study, "online", server.base_url)
        fairpanel.run(online, tmp_path / "online", report=False)
        assert server.book.created == [] and _chat_requests(server) > 0
        asked_online = _chat_requests(server)
        batched = _study_file(tmp_path, study, "batch", server.base_url)
        fairpanel.run(batched, tmp_path / "batch", report=False)
        assert _chat_requests(server) == asked_online  # the batched run asked nothing online
        sent = [len(server.book.batches[b].requests) for b in server.book.created]
    summary = read_json(tmp_path / "batch" / "summary.json")
    assert summary["items_ok"] == summary["items_total"] > 0
    assert sum(sent) == summary["calls_made"] > 0
    assert summary["batches"] == {"completed": len(sent)}
    assert summary["cost"]["batch_usd"] == pytest.approx(summary["cost"]["total_usd"])
    assert _items(tmp_path / "batch") == _items(tmp_path / "online")
    assert _results(batched, tmp_path / "batch") == _results(online, tmp_path / "online")
    plan = estimate_study(load_study(batched)).batch  # each model has its own batches
    assert plan is not None and len(sent) <= plan["batches_in_sequence"] * len(plan["models"])


def test_a_batched_study_on_message_batches_stores_what_an_online_run_stores(
    tmp_path: Path,
) -> None:
    with FakeAnthropicBatchServer(anthropic_judge_like, api_key=SECRET) as server:
        url = server.base_url
        online = _study_file(tmp_path, "judge-bias", "online", url, provider="anthropic")
        fairpanel.run(online, tmp_path / "online", report=False)
        asked_online = len(server.requests)
        batched = _study_file(tmp_path, "judge-bias", "batch", url, provider="anthropic")
        fairpanel.run(batched, tmp_path / "batch", report=False)
        sizes = [len(server.book.batches[b].requests) for b in server.book.created]
    summary = read_json(tmp_path / "batch" / "summary.json")
    assert summary["items_ok"] == summary["items_total"] == sizes[0] and len(sizes) == 1
    assert asked_online == summary["items_total"]
    assert _items(tmp_path / "batch") == _items(tmp_path / "online")


def test_bscore_sends_one_batch_per_turn_of_every_chat(tmp_path: Path) -> None:
    with FakeOpenAIBatchServer(answer_like_the_mock, api_key=SECRET) as server:
        path = _study_file(tmp_path, "bscore", "batch", server.base_url)
        fairpanel.run(path, tmp_path / "run", report=False)
        sizes = [len(server.book.batches[b].requests) for b in server.book.created]
        fairpanel.run(path, tmp_path / "run", report=False)  # finished items are skipped
        assert len(server.book.created) == len(sizes) and _chat_requests(server) == 0
    again = read_json(tmp_path / "run" / "summary.json")
    assert again["items_run"] == again["calls_made"] == 0 and again["items_ok"] == 2
    chats = again["items_total"]
    queries = _SMALL["bscore"]["single_turn_queries"]
    # Turn 1 of every chat goes with every fresh-chat query, turn 2 with their confidence
    # questions, turn 3 alone: three rounds, three batches, whatever the number of chats.
    assert chats == 2
    assert sizes == [chats * (queries + 1), chats * (queries + 1), chats]


def test_estimate_prices_a_study_in_batch_mode_and_counts_its_rounds(tmp_path: Path) -> None:
    path = _study_file(tmp_path, "bscore", "batch", "http://127.0.0.1:9")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["prices"] = {"openai-compatible/tested": {"input": 2.0, "output": 8.0}}
    data["models"]["tested"]["batch"]["expected_turnaround_s"] = 600
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    plan = estimate_study(load_study(path)).as_dict()
    batch = plan["batch"]
    assert batch["models"] == ["openai-compatible/tested"]
    assert batch["cost"]["total_usd"] == pytest.approx(plan["cost"]["total_usd"] / 2) != 0
    assert batch["batches_in_sequence"] == _SMALL["bscore"]["multi_turn_turns"]
    assert batch["wall_seconds"] == 3 * 600


def test_estimate_has_no_batch_plan_when_no_model_can_be_batched(tmp_path: Path) -> None:
    data = yaml.safe_load((EXAMPLES / "judge-bias.yaml").read_text(encoding="utf-8"))
    data.update(_SMALL["judge-bias"], execution="batch")
    path = tmp_path / "mock.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert "batch" not in estimate_study(load_study(path)).as_dict()


def test_a_killed_batched_study_resumes_its_open_batch_and_sends_nothing_twice(
    tmp_path: Path,
) -> None:
    with FakeOpenAIBatchServer(answer_like_the_mock, api_key=SECRET) as server:
        server.book.plans += [BatchPlan(polls=0), BatchPlan(polls=10**6)]  # turn 2 stays open
        path = _study_file(tmp_path, "bscore", "batch", server.base_url)
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
        assert len(server.book.created) == 2
        server.book.batches[server.book.created[1]].plan = BatchPlan(polls=0)

        rerun = start_cli_run(path, out, {"FAIRPANEL_TEST_KEY": SECRET})
        _, stderr = rerun.communicate(timeout=120)
        assert rerun.returncode == 0, stderr.decode()
        items = server.book.submitted_items
        assert len(items) == len(set(items))  # nothing was sent twice
        assert len(server.book.created) == 3  # the open batch was polled, only turn 3 is new
    summary = read_json(out / "summary.json")
    assert summary["items_ok"] == summary["items_total"] == 2
    assert stored_rows(db_path, "SELECT COUNT(*) FROM calls") == [(len(items),)]


def test_a_study_model_without_a_batch_api_is_refused_where_it_is_set(tmp_path: Path) -> None:
    path = tmp_path / "judge-bias.yaml"
    path.write_text(
        "study: judge-bias\n"
        "models:\n"
        "  judge:\n"
        "    id: mock/judge\n"
        "    execution: batch\n"
        "judge: {model: judge}\n",
        encoding="utf-8",
    )
    with pytest.raises(InputFileError) as caught:
        load_study(path)
    message = str(caught.value)
    assert "models.judge" in message and "no batch API" in message
    assert f"{path}:3" in message or f"{path.name}:3" in message


def test_study_execution_batch_leaves_models_without_a_batch_api_online(tmp_path: Path) -> None:
    data = yaml.safe_load((EXAMPLES / "judge-bias.yaml").read_text(encoding="utf-8"))
    data.update(_SMALL["judge-bias"], execution="batch")
    path = tmp_path / "mock.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    fairpanel.run(path, tmp_path / "run", report=False)
    summary = read_json(tmp_path / "run" / "summary.json")
    assert summary["items_ok"] == summary["items_total"] > 0
    assert "batches" not in summary and not (tmp_path / "run" / "batches").exists()
