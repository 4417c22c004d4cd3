"""The embedded default model: SmolLM2-135M served by xllamacpp over real HTTP on loopback."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx
import pytest
from conftest import Cli, WriteExperiment, read_json

from fairpanel.agents import LocalModelServer, smollm2_weights

pytestmark = pytest.mark.smollm

TINY = """\
name: tiny-local
seed: 2
protocols: [single, pair]
responder:
  model: local/smollm2
  sampling: {temperature: 0.7, max_tokens: 60, seed: 1}
panel:
  judges: [domain_expert, clarity_editor]
  model: local/smollm2
  sampling: {temperature: 0.7, max_tokens: 150, seed: 1}
  discussion_rounds: 1
  max_reasks: 1
scenarios:
  bases: [household-budget-counselling]
  derived_per_base: 1
identities:
  categories: [gender]
pair: {counterbalance: false}
arms: {placebo: false, same_label: false}
concurrency: 3
"""


def test_weights_ship_in_the_wheel() -> None:
    weights = smollm2_weights()
    assert weights.suffix == ".gguf" and weights.stat().st_size > 50_000_000


def test_server_listens_on_loopback_and_stops() -> None:
    server = LocalModelServer(n_parallel=1, n_ctx_per_slot=1024)
    url = server.start()
    try:
        assert url.startswith("http://127.0.0.1:")
        models = httpx.get(f"{url}/models", timeout=10).json()
        assert models["data"]
        reply = httpx.post(
            f"{url}/chat/completions",
            json={
                "model": "smollm2",
                "messages": [{"role": "user", "content": "Say hi."}],
                "max_tokens": 5,
            },
            timeout=60,
        ).json()
        assert reply["usage"]["completion_tokens"] > 0
    finally:
        server.stop()
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{url}/models", timeout=2)


def test_tiny_panel_run_on_the_local_model(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    path = write_experiment(TINY)
    out = tmp_path / "run"
    result = cli("run", str(path), "--out", str(out))
    assert result.exit_code == 0, result.output
    summary = read_json(out / "summary.json")
    assert summary["trials_total"] == 3  # female, male single; one female/male pair
    assert summary["trials_ok"] + summary["trials_failed"] == 3
    # 2 responses + 3 trials x 2 judges x 3 rounds, plus any re-asks.
    assert summary["calls_made"] >= 20
    responder_tokens = summary["tokens_by_role"]["responder"]
    assert responder_tokens["completion_tokens"] > 0  # counted by the server, not estimated
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        endpoints = {row[0] for row in db.execute("SELECT DISTINCT endpoint FROM calls")}
        assert endpoints == {"local:smollm2"}
        turns = db.execute("SELECT raw_text, parsed, parse_error FROM turns").fetchall()
    assert len(turns) == 3 * 2 * 3
    for raw_text, parsed, parse_error in turns:
        assert raw_text  # every turn keeps what the model said
        assert (parsed is None) != (parse_error is None)
    results = read_json(out / "results.json")
    assert results["n_trials"]["single"] == 2
    again = cli("run", str(path), "--out", str(out))
    assert again.exit_code == 0
    assert read_json(out / "summary.json")["calls_made"] == 0
