"""API keys never reach the store, logs, manifest, results, summary, report or messages.

A distinctive key is planted in the environment; runs go against fake servers that fail in a
seeded mix and whose error bodies quote the request's credentials back (as some gateways and
proxies do); then every file in the run folder, the captured stdout/stderr of ``run`` and
``report`` and every log record of every library at DEBUG are searched for it.
"""

from __future__ import annotations

import logging
import sqlite3
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers.fakes import FakeAnthropicServer, FakeOpenAIServer, Fault
from helpers.fakes._anthropic import _error as anthropic_error
from helpers.fakes._http import Reply, Request
from helpers.fakes._openai import _error as openai_error
from helpers.fault_mix import FaultMix, request_text
from helpers.judges import anthropic_judge_like, openai_judge_like
from typer.testing import CliRunner

from fairpanel import InputFileError
from fairpanel.agents import REDACTED, ModelCallError, ModelSpec, redact, register_secret
from fairpanel.cli import app
from fairpanel.judging import design_of, load_experiment

pytestmark = pytest.mark.timeout(120)

PLANTED = "sk-PLANTED-7f3c9e1d2b4a8c6e-SECRET"
EXPERIMENT = """\
name: secrets
models:
  judge:
    id: {provider}/judge
    base_url: {base_url}
    api_key_env: PLANTED_KEY
    structured_output: true
    timeout_s: 0.3
    limits: {{requests_per_minute: 60000, max_retries: 2, backoff_base_s: 0.01}}
responder: {{model: judge}}
panel: {{judges: [domain_expert, clarity_editor], model: judge, discussion_rounds: 0}}
scenarios: {{bases: [fitness-coaching], derived_per_base: 3}}
identities: {{categories: [gender]}}
pair: {{counterbalance: false}}
arms: {{placebo: false, same_label: false}}
"""


def _echo(req: Request) -> str:
    return (
        f"upstream refused the request (Authorization: {req.headers.get('authorization')}, "
        f"x-api-key={req.headers.get('x-api-key')}, key {PLANTED})"
    )


class EchoingOpenAIServer(FakeOpenAIServer):
    """A misbehaving gateway: its server errors quote the request's credentials."""

    def _fault_reply(self, fault: Fault, req: Request) -> Reply:
        if fault.kind == "server_error":
            return openai_error(fault.status or 500, _echo(req), "server_error")
        return super()._fault_reply(fault, req)


class EchoingAnthropicServer(FakeAnthropicServer):
    def _fault_reply(self, fault: Fault, req: Request) -> Reply:
        if fault.kind == "server_error":
            return anthropic_error(fault.status or 500, "api_error", _echo(req))
        return super()._fault_reply(fault, req)


def _assert_nowhere(run_dir: Path, *texts: str) -> None:
    files = [path for path in run_dir.rglob("*") if path.is_file()]
    assert any(path.name == "fairpanel.sqlite" for path in files)
    for path in files:
        assert PLANTED.encode() not in path.read_bytes(), path
    for text in texts:
        assert PLANTED not in text


@pytest.mark.parametrize(
    ("server_class", "provider", "answer"),
    [
        (EchoingOpenAIServer, "openai-compatible", openai_judge_like),
        (EchoingAnthropicServer, "anthropic", anthropic_judge_like),
    ],
)
def test_a_planted_key_is_in_no_output_even_when_servers_echo_it(
    server_class: type[FakeOpenAIServer] | type[FakeAnthropicServer],
    provider: str,
    answer: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("PLANTED_KEY", PLANTED)
    monkeypatch.setattr(server_class, "TIMEOUT_FAULT_SECONDS", 2.0)
    caplog.set_level(logging.DEBUG)  # every library's log records, the SDKs' and httpx's too
    mix = FaultMix(answer, rate=0.4)
    with server_class(mix, api_key=PLANTED) as server:
        url = server.base_url
        path = tmp_path / "experiment.yaml"
        path.write_text(EXPERIMENT.format(provider=provider, base_url=server.base_url), "utf-8")
        tasks = [s.prompt for s in design_of(load_experiment(path)).scenarios]

        def persistent(body: dict[str, Any]) -> Fault | None:
            text = request_text(body)
            if "response_format" not in body and not body.get("tools"):
                return None
            if tasks[0] in text:
                return Fault("server_error", status=400)  # not retried: the echo is final
            if tasks[1] in text:
                return Fault("server_error")  # retried until the retries run out
            return None

        mix.persistent = persistent
        out = tmp_path / "run"
        runner = CliRunner()
        run = runner.invoke(app, ["run", str(path), "--out", str(out)])
        assert run.exit_code == 0, run.output
        report = runner.invoke(app, ["report", str(out)])
        assert report.exit_code == 0, report.output
        sent = [h.get("authorization", "") + h.get("x-api-key", "") for h in server.headers]
    assert all(PLANTED in credential for credential in sent)  # the key was really used
    assert mix.injected["server_error"] + mix.injected["persistent:server_error"] > 0
    _assert_nowhere(out, run.output, report.output, caplog.text)
    # The echoes did reach fairpanel, and were redacted on the way in.
    summary = (out / "summary.json").read_text(encoding="utf-8")
    assert '"client_error": 3' in summary and '"server_error": 3' in summary
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        errors = [e for (e,) in db.execute("SELECT error FROM trials WHERE error IS NOT NULL")]
        attempts = db.execute("SELECT replica, status, error FROM call_failures").fetchall()
    assert len(errors) == 6 and all(REDACTED in error for error in errors), errors
    # Every failed attempt is kept, on the one server, its echo redacted like the trials'.
    assert {replica for replica, _, _ in attempts} == {url}
    echoed = [error for _, status, error in attempts if status in (400, 500)]
    assert echoed and all(REDACTED in error for error in echoed), echoed


def test_redaction_of_registered_keys_and_token_like_credentials() -> None:
    register_secret(PLANTED)
    register_secret("short")  # too short to be a key: left alone
    assert redact(f"echo {PLANTED}!") == f"echo {REDACTED}!"
    assert redact("a short word") == "a short word"
    assert redact("Authorization: Bearer abcdefgh12345678") == f"Authorization: Bearer {REDACTED}"
    assert redact('{"x-api-key": "sk-ant-unknown-0123456789"}') == f'{{"x-api-key": "{REDACTED}"}}'
    assert redact("url?api_key=zzzzzzzzzz&x=1") == f"url?api_key={REDACTED}&x=1"
    assert redact("Rate limit reached for requests") == "Rate limit reached for requests"
    error = ModelCallError(f"HTTP 500: bad key {PLANTED}")
    assert PLANTED not in str(error) and PLANTED not in repr(error)


def test_uncaught_tracebacks_and_log_records_are_redacted(
    capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    register_secret(PLANTED)
    try:
        try:
            raise ValueError(f"the SDK's own error quoting {PLANTED}")
        except ValueError as cause:
            raise RuntimeError("wrapped") from cause
    except RuntimeError as exc:
        sys.excepthook(type(exc), exc, exc.__traceback__)
        raised = exc
        thread = threading.Thread(target=lambda: (_ for _ in ()).throw(raised))
        thread.start()
        thread.join()
        with caplog.at_level(logging.ERROR):
            logging.getLogger("some.library").exception("failed with key %s", PLANTED)
    err = capsys.readouterr().err
    assert "the SDK's own error quoting" in err and REDACTED in err
    assert PLANTED not in err
    assert "failed with key" in caplog.text and "the SDK's own error" in caplog.text
    assert PLANTED not in caplog.text


def test_a_key_in_base_url_is_refused_at_load_time(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="must not carry credentials"):
        ModelSpec(id="openai-compatible/x", base_url=f"https://user:{PLANTED}@host/v1")
    path = tmp_path / "experiment.yaml"
    path.write_text(
        EXPERIMENT.format(provider="openai-compatible", base_url=f"https://h/v1?api_key={PLANTED}"),
        encoding="utf-8",
    )
    with pytest.raises(InputFileError) as refused:
        load_experiment(path)
    message = str(refused.value)
    assert f"{path}:5: models.judge.base_url" in message and PLANTED not in message
    assert ModelSpec(id="openai-compatible/x", base_url="https://h/v1?api-version=2024-06-01")
