"""OpenAI-format providers against a local server that speaks the real wire format."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, WriteExperiment, read_json
from helpers.experiments import SAMPLING, panel_experiment
from helpers.fakes import FakeOpenAIServer, Fault
from helpers.judges import SECRET
from helpers.judges import openai_judge_like as judge_like
from helpers.runs import nowhere_in_run_folder, rerun_sends_no_requests, run

from fairpanel.agents import (
    EndpointLimits,
    Message,
    ModelCallError,
    ModelRegistry,
    ModelRequest,
    ModelSpec,
    Sampling,
)


def experiment(base_url: str, **changes: Any) -> str:
    """The small panel on an OpenAI-format server (``changes`` as in ``panel_experiment``)."""
    judge = {
        "id": "openai-compatible/some-judge",
        "base_url": base_url,
        "api_key_env": "FAIRPANEL_TEST_KEY",
        "structured_output": True,
        "max_retries": 0,
    }
    return panel_experiment(
        "compat",
        judge,
        panel={"max_reasks": 2, "sampling": SAMPLING},
        arms={"placebo": False, "same_label": False},
        **changes,
    )


@pytest.fixture
def key_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRPANEL_TEST_KEY", SECRET)


@pytest.mark.usefixtures("key_in_env")
def test_panel_runs_against_openai_format_server(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    with FakeOpenAIServer(judge_like, api_key=SECRET) as server:
        finished = run(cli, write_experiment(experiment(server.base_url)), tmp_path / "run")
        summary = finished.summary
        # 2 responses + 3 trials x 2 judges x 3 rounds, every one over HTTP.
        assert summary["calls_made"] == len(server.requests) == 2 + 3 * 2 * 3
        assert summary["trials_ok"] == summary["trials_total"] == 3
        assert summary["tokens_by_role"]["judge:first"]["prompt_tokens"] > 0
        judged = [b for b in server.requests if "response_format" in b]
        assert len(judged) == 18
        for body in judged:
            assert body["response_format"]["type"] == "json_schema"
            assert body["temperature"] == 0.3 and body["top_p"] == 0.9 and body["seed"] == 5
            assert body["max_tokens"] == 150
        assert all(h["authorization"] == f"Bearer {SECRET}" for h in server.headers)
        rerun_sends_no_requests(cli, finished, server.requests)
    nowhere_in_run_folder(finished.out, SECRET)


@pytest.mark.usefixtures("key_in_env")
def test_malformed_answers_are_reasked_then_stored_as_failures(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    def sloppy(body: dict[str, Any]) -> str:
        if "response_format" not in body:
            return judge_like(body)  # the responder
        systems = [m["content"] for m in body["messages"] if m["role"] == "system"]
        if any(text.startswith("You are an experienced reviewer") for text in systems):
            return "I'd give it a solid 8/10 overall"  # this judge never gives JSON
        if "could not be used" in body["messages"][-1]["content"]:
            return judge_like(body)  # the others get it right when re-asked
        return '```json\n{"reason": "ok", "creativity": 11}\n```'  # out of range and incomplete

    with FakeOpenAIServer(sloppy, api_key=SECRET) as server:
        path = write_experiment(experiment(server.base_url))
        out = tmp_path / "run"
        assert cli("run", str(path), "--out", str(out)).exit_code == 0
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        rows = db.execute(
            "SELECT judge, attempts, parsed, parse_error, raw_text FROM turns"
        ).fetchall()
    assert rows
    for judge, attempts, parsed, parse_error, raw_text in rows:
        if judge == "creativity_reviewer":
            assert attempts == 3 and parsed is None  # first try + 2 re-asks
            assert parse_error and raw_text == "I'd give it a solid 8/10 overall"
        else:
            assert attempts == 2 and parsed is not None and parse_error is None
    results = read_json(out / "results.json")
    failures = {(f["protocol"], f["judge"]): f["rate"] for f in results["failures"]}
    assert failures[("single", "creativity_reviewer")] == 1.0
    assert failures[("single", "domain_expert")] == 0.0


async def test_http_errors_become_model_call_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRPANEL_TEST_KEY", SECRET)
    faults = iter(
        [Fault("server_error"), Fault("rate_limit", retry_after=0.01), Fault("malformed")]
    )
    with FakeOpenAIServer(lambda body: next(faults), api_key=SECRET) as server:
        spec = ModelSpec(
            id="openai-compatible/x",
            base_url=server.base_url,
            api_key_env="FAIRPANEL_TEST_KEY",
            limits=EndpointLimits(max_retries=0, max_rate_limit_wait_s=0.0),
        )
        async with ModelRegistry() as registry:
            client = await registry.client(spec)
            request = ModelRequest(
                model=spec.id, messages=(Message(role="user", content="hi"),), sampling=Sampling()
            )
            for expected_retryable in (True, True, True):
                with pytest.raises(ModelCallError) as caught:
                    await client.complete(request)
                assert caught.value.retryable is expected_retryable
                assert SECRET not in str(caught.value)


async def test_an_online_call_sends_the_plain_chat_body_and_reads_the_reply(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The client posts the body it builds (the one a batch line carries) without the SDK's
    typed parameters in between, and reads text, usage, cached tokens, finish reason, served
    model and fingerprint from the reply's JSON itself."""
    monkeypatch.setenv("FAIRPANEL_TEST_KEY", SECRET)
    schema = {"name": "verdict", "schema": {"type": "object", "properties": {"reason": {}}}}
    request = ModelRequest(
        model="openai-compatible/x",
        messages=(
            Message(role="system", content="shared context " * 40),
            Message(role="user", content="Score it."),
        ),
        sampling=Sampling(temperature=0.2, top_p=0.5, seed=3, max_tokens=4),
        response_schema=schema,
    )
    with FakeOpenAIServer(lambda body: "one two three four five six", api_key=SECRET) as server:
        server.prompt_cache_min_tokens = 8
        server.prompt_cache_step = 8
        spec = ModelSpec(
            id="openai-compatible/x",
            base_url=server.base_url,
            api_key_env="FAIRPANEL_TEST_KEY",
            structured_output=True,
        )
        async with ModelRegistry() as registry:
            client = await registry.client(spec)
            first = await client.complete(request)
            second = await client.complete(request)
        sent = list(server.requests)
    assert sent[0] == {
        "model": "x",
        "messages": [
            {"role": "system", "content": "shared context " * 40},
            {"role": "user", "content": "Score it."},
        ],
        "temperature": 0.2,
        "top_p": 0.5,
        "seed": 3,
        "max_tokens": 4,
        "response_format": {"type": "json_schema", "json_schema": schema},
    }
    assert sent[1] == sent[0]
    assert first.text == "one two three four" and first.finish_reason == "length"
    assert first.usage.completion_tokens == 4 and first.usage.prompt_tokens > 40
    assert first.usage.cached_tokens == 0 < second.usage.cached_tokens
    assert (first.served_model, first.fingerprint) == ("x", "fp_fairpanel_fake")
    assert request.response_schema == schema  # the request's own schema is left as it was


def test_missing_key_fails_before_any_call(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("FAIRPANEL_TEST_KEY", raising=False)
    with FakeOpenAIServer(judge_like) as server:
        path = write_experiment(experiment(server.base_url))
        result = cli("run", str(path), "--out", str(tmp_path / "run"))
        assert result.exit_code == 2
        assert "FAIRPANEL_TEST_KEY" in result.output
        assert server.requests == []


MIXED = """\
name: mixed
models:
  remote:
    id: openai-compatible/remote-judge
    base_url: {base_url}
    api_key_env: FAIRPANEL_TEST_KEY
    structured_output: true
panel:
  model: mock/judge
  sampling: {{temperature: 0.7, max_tokens: 100}}
  judges:
    - domain_expert
    - {{persona: clarity_editor, model: remote, sampling: {{temperature: 0.1, seed: 9}}}}
responder:
  model: mock/responder
scenarios:
  bases: [fitness-coaching]
  derived_per_base: 1
identities:
  categories: [gender]
pair: {{counterbalance: false}}
arms: {{placebo: false, same_label: false}}
"""


@pytest.mark.usefixtures("key_in_env")
def test_a_panel_may_mix_judge_models_and_sampling(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    with FakeOpenAIServer(judge_like, api_key=SECRET) as server:
        path = write_experiment(MIXED.format(base_url=server.base_url))
        out = tmp_path / "run"
        result = cli("run", str(path), "--out", str(out))
        assert result.exit_code == 0, result.output
        # Only the clarity editor's turns go to the remote server: 3 trials x 3 rounds.
        assert len(server.requests) == 3 * 3
        systems = [
            next(m["content"] for m in body["messages"][1:] if m["role"] == "system")
            for body in server.requests
        ]
        assert all("professional editor" in text for text in systems)
        assert all(b["temperature"] == 0.1 and b["seed"] == 9 for b in server.requests)
        assert all(b["max_tokens"] == 100 for b in server.requests)  # merged from the panel
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        models = dict(db.execute("SELECT DISTINCT judge, judge_model FROM turns").fetchall())
    assert models == {
        "domain_expert": "mock/judge",
        "clarity_editor": "openai-compatible/remote-judge",
    }
    assert read_json(out / "manifest.json")["models"]["judges"] == models


@pytest.mark.usefixtures("key_in_env")
def test_max_failures_stops_a_run_that_fails_everywhere(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    def broken_judges(body: dict[str, Any]) -> str | Fault:
        return Fault("server_error", status=400) if "response_format" in body else judge_like(body)

    with FakeOpenAIServer(broken_judges, api_key=SECRET) as server:
        text = experiment(server.base_url, scenarios={"derived_per_base": 4}, concurrency=1)
        path = write_experiment(text)
        out = tmp_path / "run"
        result = cli("run", str(path), "--out", str(out), "--max-failures", "2")
        assert result.exit_code == 1
        assert "--max-failures" in result.output
        summary = read_json(out / "summary.json")
        assert summary["trials_failed"] == 2 and summary["trials_run"] == 2
        assert summary["trials_total"] == 4 * 3
        assert "HTTP 400" in summary["stopped"]
        # Without the limit the run goes on through every trial and exits 0.
        again = cli("run", str(path), "--out", str(tmp_path / "all"))
        assert again.exit_code == 0
        assert read_json(tmp_path / "all" / "summary.json")["trials_failed"] == 12


@pytest.mark.usefixtures("key_in_env")
def test_cached_prompt_tokens_reported_by_the_server_reach_the_summary(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    """The server's prompt_tokens_details.cached_tokens is kept per call and summed by role."""
    with FakeOpenAIServer(judge_like, api_key=SECRET) as server:
        server.prompt_cache_min_tokens = 32
        server.prompt_cache_step = 16
        path = write_experiment(experiment(server.base_url))
        out = tmp_path / "run"
        assert cli("run", str(path), "--out", str(out)).exit_code == 0
        summary = read_json(out / "summary.json")
    stored = sqlite3.connect(out / "fairpanel.sqlite").execute(
        "SELECT SUM(prompt_tokens), SUM(cached_tokens) FROM calls"
    )
    prompt_tokens, cached_tokens = stored.fetchone()
    # Judges of one trial share the context prefix, so later calls hit the server's cache.
    assert 0 < cached_tokens < prompt_tokens
    roles = summary["tokens_by_role"]
    assert sum(role["cached_tokens"] for role in roles.values()) == cached_tokens
    assert summary["cached_token_share"] == round(cached_tokens / prompt_tokens, 4)
    first = roles["judge:first"]
    assert first["cached_share"] == round(first["cached_tokens"] / first["prompt_tokens"], 4)
