"""One panel config, three judge backends: OpenAI-format and Anthropic-format servers of ours,
and the embedded SmolLM2 model. Only the model entry changes between them."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, WriteExperiment, read_json
from helpers.experiments import panel_experiment
from helpers.fakes import FakeAnthropicServer, FakeOpenAIServer
from helpers.judges import anthropic_judge_like as anthropic_judge
from helpers.judges import openai_judge_like as openai_judge
from helpers.runs import nowhere_in_run_folder

SECRET = "sk-same-panel-0000"


def panel(model: dict[str, Any]) -> str:
    return panel_experiment(
        "same-panel",
        model,
        seed=2,
        responder={"sampling": {"temperature": 0.7, "max_tokens": 60, "seed": 1}},
        panel={
            "judges": ["domain_expert", "clarity_editor"],
            "sampling": {"temperature": 0.7, "max_tokens": 150},
            "max_reasks": 1,
        },
        scenarios={"bases": ["household-budget-counselling"]},
        arms={"placebo": False, "same_label": False},
        concurrency=3,
    )


@contextmanager
def _backend(kind: str) -> Iterator[tuple[dict[str, Any], Any]]:
    if kind == "openai":
        with FakeOpenAIServer(openai_judge, api_key=SECRET) as server:
            yield (
                {
                    "id": "openai-compatible/judge",
                    "base_url": server.base_url,
                    "api_key_env": "SAME_PANEL_KEY",
                    "structured_output": True,
                },
                server,
            )
    elif kind == "anthropic":
        with FakeAnthropicServer(anthropic_judge, api_key=SECRET) as server:
            yield (
                {
                    "id": "anthropic/claude-haiku-4-5",
                    "base_url": server.base_url,
                    "api_key_env": "SAME_PANEL_KEY",
                },
                server,
            )
    else:
        with nullcontext():
            yield {"id": "local/smollm2"}, None


@pytest.mark.parametrize(
    "kind", ["openai", "anthropic", pytest.param("smollm2", marks=pytest.mark.smollm)]
)
def test_the_same_panel_runs_on_every_backend(
    kind: str,
    cli: Cli,
    write_experiment: WriteExperiment,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SAME_PANEL_KEY", SECRET)
    with _backend(kind) as (model, server):
        path = write_experiment(panel(model))
        out = tmp_path / "run"
        result = cli("run", str(path), "--out", str(out))
        assert result.exit_code == 0, result.output
        summary = read_json(out / "summary.json")
        if server is not None:
            assert summary["calls_made"] == len(server.requests)
            assert summary["trials_ok"] == 3
    # female, male single; one female/male pair; 2 judges x 3 rounds each.
    assert summary["trials_total"] == 3
    assert summary["trials_ok"] + summary["trials_failed"] == 3
    assert summary["tokens_by_role"]["responder"]["completion_tokens"] > 0
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        turns = db.execute("SELECT raw_text, parsed, parse_error, attempts FROM turns").fetchall()
        failed = db.execute("SELECT COUNT(*) FROM trials WHERE status = 'failed'").fetchone()[0]
    assert len(turns) == 3 * 2 * 3
    for raw_text, parsed, parse_error, attempts in turns:
        assert raw_text
        assert (parsed is None) != (parse_error is None)
        # One call, plus one re-ask (max_reasks: 1) only when the first answer was unusable.
        assert attempts in (1, 2)
    # Two responder calls, then exactly the calls the turns record: none lost, none extra.
    assert summary["calls_made"] == 2 + sum(turn[3] for turn in turns)
    assert summary["trials_failed"] == failed
    assert read_json(out / "results.json")["n_trials"]["single"] == 2
    assert cli("run", str(path), "--out", str(out)).exit_code == 0
    assert read_json(out / "summary.json")["calls_made"] == 0
    nowhere_in_run_folder(out, SECRET)
