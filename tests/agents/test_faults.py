"""Fault injection: a run through a seeded mix of provider failures finishes, and every trial
ends ok or failed with its reason, counted by reason in summary.json.

Every request's first two arrivals may fail (429 with Retry-After, 500, 503/529, timeouts,
connection resets, truncated, empty or malformed bodies, valid JSON of the wrong shape); on
top, the calls of six scenarios fail every time in one way each, so the test knows exactly
which trials must fail and why. Both wire formats, through the real SDKs.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import read_json
from helpers.fakes import FakeAnthropicServer, FakeOpenAIServer, FaultKind
from helpers.fault_mix import EVERY_FAULT, RATE, FaultMix, request_text, signature
from helpers.judges import anthropic_judge_like, openai_judge_like
from typer.testing import CliRunner

from fairpanel.cli import app
from fairpanel.judging import design_of, load_experiment
from fairpanel.judging.engine import RESPONDER_FAILED, failure_reason

pytestmark = pytest.mark.timeout(120)

KEY = "sk-fault-mix-key-000"
EXPERIMENT = """\
name: faults
models:
  judge:
    id: {provider}/judge
    base_url: {base_url}
    api_key_env: FAULT_TEST_KEY
    structured_output: true
    timeout_s: 0.3
    limits:
      requests_per_minute: 60000  # after a 429 starts are spaced by a stretch of 1 ms
      max_retries: 3
      backoff_base_s: 0.01
      backoff_max_s: 0.05
      max_rate_limit_wait_s: 0.15
responder: {{model: judge}}
panel:
  judges: [domain_expert, clarity_editor]
  model: judge
  discussion_rounds: 0
  max_reasks: 1
scenarios: {{bases: [fitness-coaching, nursing-care-plan], derived_per_base: 8}}
identities: {{categories: [gender]}}
pair: {{counterbalance: false}}
arms: {{placebo: false, same_label: false}}
concurrency: 6
"""
TRIALS_PER_SCENARIO = 2 + 1  # female and male alone, one female/male pair

# Scenario index -> how its calls fail every time, and the reason the summary must give.
# Scenario 0 loses its responder call; the others lose every judge call.
PERSISTENT: dict[int, tuple[FaultKind | str, str]] = {
    0: ("timeout", "timeout"),
    1: ("server_error", "server_error"),
    2: ("rate_limit", "rate_limited"),
    3: ("reset", "connection"),
    4: ("malformed", "bad_response"),
    5: ("I would give this a solid eight, well done.", "no_valid_answer"),
}


def _is_judge_call(body: dict[str, Any]) -> bool:
    return "response_format" in body or bool(body.get("tools"))


def _persistent_rule(tasks: list[str]) -> Callable[[dict[str, Any]], FaultKind | str | None]:
    def rule(body: dict[str, Any]) -> FaultKind | str | None:
        text = request_text(body)
        for index, (fault, _) in PERSISTENT.items():
            if tasks[index] in text and (_is_judge_call(body) == (index != 0)):
                return fault
        return None

    return rule


def _run_through_faults(
    server_class: type[FakeOpenAIServer] | type[FakeAnthropicServer],
    provider: str,
    answer: Callable[[dict[str, Any]], str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAULT_TEST_KEY", KEY)
    # The fake server answers a timeout fault after this long; the client gives up at 0.3 s.
    monkeypatch.setattr(server_class, "TIMEOUT_FAULT_SECONDS", 5.0)
    mix = FaultMix(answer)
    with server_class(mix, api_key=KEY) as server:
        path = tmp_path / "experiment.yaml"
        path.write_text(EXPERIMENT.format(provider=provider, base_url=server.base_url), "utf-8")
        scenarios = design_of(load_experiment(path)).scenarios
        mix.persistent = _persistent_rule([s.prompt for s in scenarios])
        out = tmp_path / "run"
        result = CliRunner().invoke(app, ["run", str(path), "--out", str(out)])
        assert result.exit_code == 0, result.output
        requests = [signature(body) for body in server.requests]
        assert not server.errors, server.errors

    summary = read_json(out / "summary.json")
    total = len(scenarios) * TRIALS_PER_SCENARIO
    failed = len(PERSISTENT) * TRIALS_PER_SCENARIO
    assert summary["trials_total"] == summary["trials_run"] == total
    assert summary["trials_failed"] == failed
    assert summary["trials_ok"] == total - failed
    expected = {reason: TRIALS_PER_SCENARIO for _, reason in PERSISTENT.values()}
    assert summary["failures"] == expected

    by_scenario = {s.id: index for index, s in enumerate(scenarios)}
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        rows = db.execute("SELECT spec, status, error FROM trials").fetchall()
        stored_calls = db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
    assert len(rows) == total
    for spec_json, status, error in rows:
        index = by_scenario[json.loads(spec_json)["scenario_id"]]
        if index in PERSISTENT:
            assert status == "failed"
            assert failure_reason(error) == PERSISTENT[index][1], error
            assert error.startswith(RESPONDER_FAILED) == (index == 0), error
        else:
            assert (status, error) == ("ok", None)
    # Every answered call is stored once; a call that failed and was retried is still one call.
    assert stored_calls == summary["calls_made"] <= len(set(requests))
    injected = {kind for kind, count in mix.injected.items() if count and ":" not in kind}
    if RATE >= 0.2:  # with the default seed and rate every kind of fault was exercised
        assert injected == set(EVERY_FAULT), mix.injected


def test_openai_format_run_through_a_fault_mix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _run_through_faults(
        FakeOpenAIServer, "openai-compatible", openai_judge_like, tmp_path, monkeypatch
    )


def test_anthropic_format_run_through_a_fault_mix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _run_through_faults(
        FakeAnthropicServer, "anthropic", anthropic_judge_like, tmp_path, monkeypatch
    )


def test_failure_reasons_read_from_provider_errors() -> None:
    cases = {
        "model call failed: openai/x: HTTP 429: Rate limit reached": "rate_limited",
        "model call failed: anthropic/x: HTTP 529: overloaded_error: Overloaded": "server_error",
        "model call failed: openai/x: HTTP 401: Incorrect API key provided": "client_error",
        "responder call failed: openai/x: APITimeoutError": "timeout",
        "model call failed: openai/x: APIConnectionError": "connection",
        "model call failed: openai/x: unusable response (TypeError)": "bad_response",
        "no judge gave a valid final answer": "no_valid_answer",
        "the moderator gave no valid answer": "no_valid_answer",
        "something new": "other",
        None: "other",
    }
    for error, reason in cases.items():
        assert failure_reason(error) == reason, error
