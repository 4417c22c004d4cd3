"""``fairpanel run --detach``: a batched run submitted and left, then taken up again pass by
pass until it ends with the same trials and turns as a run that waited; ``fairpanel status``
reports what is open in between."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, WriteExperiment, read_json
from helpers.experiments import FAKE_JUDGE, panel_experiment
from helpers.fakes import BatchPlan, FakeOpenAIBatchServer
from helpers.judges import SECRET
from helpers.judges import openai_judge_like as judge_like

import fairpanel

_HELD = 2
"""Status reads each batch shows ``in_progress`` before it completes."""


def _experiment(base_url: str, **changes: Any) -> str:
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
        **changes,
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


def test_detached_passes_end_where_an_attached_run_ends(
    write_experiment: WriteExperiment, tmp_path: Path, cli: Cli
) -> None:
    with FakeOpenAIBatchServer(judge_like, api_key=SECRET) as server:
        path = write_experiment(_experiment(server.base_url))
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
