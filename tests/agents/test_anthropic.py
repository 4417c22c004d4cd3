"""The anthropic/... provider against a local server speaking the Messages wire format."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, WriteExperiment
from helpers.experiments import SAMPLING, panel_experiment
from helpers.fakes import FakeAnthropicServer, Fault, ReplyFn
from helpers.fakes._anthropic import _error
from helpers.fakes._core import count_tokens
from helpers.fakes._http import Reply, Request
from helpers.judges import anthropic_judge_like as judge_like
from helpers.runs import nowhere_in_run_folder, rerun_sends_no_requests, run

from fairpanel.agents import (
    AnthropicClient,
    EndpointLimits,
    LimitedClient,
    Message,
    MissingApiKeyError,
    ModelCallError,
    ModelRegistry,
    ModelRequest,
    ModelSpec,
    Sampling,
    SdkTarget,
    endpoint_of,
)
from fairpanel.judging import PairJudgment, output_schema, parse_judgment

SECRET = "sk-ant-test-DO-NOT-LEAK-1234567890"
MODEL = "anthropic/claude-haiku-4-5"
CONTEXT = "Shared material every judge of the trial reads before judging the two candidates."
PERSONA = "You are a careful domain expert."
PAIR_ANSWER = {
    "reason": "A is clearer.",
    "A": {"creativity": 7, "accuracy": 8, "efficiency": 7, "reliability": 8},
    "B": {"creativity": 6, "accuracy": 6, "efficiency": 7, "reliability": 6},
    "winner": "A",
}


class CachingFakeAnthropicServer(FakeAnthropicServer):
    """Reports prompt caching as the API does: the prefix up to the last ``cache_control``
    system block is written by the first request and read by later ones with the same tools
    and prefix; ``input_tokens`` then counts only the tokens after it."""

    def __init__(self, reply: ReplyFn | None = None, **kwargs: Any) -> None:
        super().__init__(reply, **kwargs)
        self._seen: set[str] = set()
        self._seen_lock = threading.Lock()

    def _success_reply(self, req: Request, text: str) -> Reply:
        reply = super()._success_reply(req, text)
        body = req.body or {}
        system = body.get("system")
        marked = [i for i, b in enumerate(system or []) if "cache_control" in b]
        if not isinstance(system, list) or not marked:
            return reply
        prefix = system[: marked[-1] + 1]
        tokens = sum(count_tokens(block["text"]) for block in prefix)
        key = json.dumps([body.get("tools"), prefix], sort_keys=True)
        with self._seen_lock:
            hit = key in self._seen
            self._seen.add(key)
        payload = json.loads(reply.body)
        usage = payload["usage"]
        usage["input_tokens"] -= tokens
        usage["cache_read_input_tokens" if hit else "cache_creation_input_tokens"] = tokens
        return Reply.json(reply.status, payload, reply.headers)


@pytest.fixture
def key_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)


@pytest.fixture
def server() -> Iterator[CachingFakeAnthropicServer]:
    with CachingFakeAnthropicServer(lambda _body: "Seven out of ten", api_key=SECRET) as running:
        yield running


def spec_for(server: FakeAnthropicServer, **extra: Any) -> ModelSpec:
    no_retries = EndpointLimits(max_retries=0, max_rate_limit_wait_s=0.0)
    return ModelSpec(id=MODEL, base_url=server.base_url, limits=no_retries, **extra)


def judge_request(**extra: Any) -> ModelRequest:
    messages = (
        Message(role="system", content=CONTEXT),
        Message(role="system", content=PERSONA),
        Message(role="user", content="Judge the candidates."),
        Message(role="user", content="[creativity_reviewer]\nI prefer A."),
        Message(role="assistant", content='{"winner": "A"}'),
        Message(role="user", content="Give your final answer."),
    )
    return ModelRequest(model=MODEL, messages=messages, **extra)


async def complete(spec: ModelSpec, request: ModelRequest) -> Any:
    async with ModelRegistry() as registry:
        client = await registry.client(spec)
        assert isinstance(client, LimitedClient)
        assert isinstance(client.inner, AnthropicClient)
        return await client.complete(request)


@pytest.mark.usefixtures("key_in_env")
async def test_completion_reports_usage_and_cached_tokens(
    server: CachingFakeAnthropicServer,
) -> None:
    spec = spec_for(server)
    async with ModelRegistry() as registry:
        client = await registry.client(spec)
        assert client.model_id == MODEL
        assert client.endpoint == server.base_url == endpoint_of(spec)
        first = await client.complete(judge_request())
        second = await client.complete(judge_request(replicate=1))
    assert first.text == second.text == "Seven out of ten"
    assert first.finish_reason == "end_turn"
    context_tokens = count_tokens(CONTEXT)
    # prompt_tokens counts every input token (Anthropic's input_tokens leaves the cache out)
    assert first.usage.prompt_tokens == second.usage.prompt_tokens > context_tokens
    assert (first.usage.cached_tokens, second.usage.cached_tokens) == (0, context_tokens)
    assert first.usage.completion_tokens == 4
    assert server.headers[0]["authorization"] == f"Bearer {SECRET}"


@pytest.mark.usefixtures("key_in_env")
async def test_request_layout_system_blocks_cache_control_and_merged_turns(
    server: CachingFakeAnthropicServer,
) -> None:
    await complete(spec_for(server), judge_request())
    body = server.requests[0]
    assert body["model"] == "claude-haiku-4-5"
    assert body["system"] == [
        {"type": "text", "text": CONTEXT, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": PERSONA},
    ]
    assert body["messages"] == [
        {"role": "user", "content": "Judge the candidates.\n\n[creativity_reviewer]\nI prefer A."},
        {"role": "assistant", "content": '{"winner": "A"}'},
        {"role": "user", "content": "Give your final answer."},
    ]
    assert body["max_tokens"] == 1024  # required by the API; unset means the default
    assert not {"temperature", "top_p", "seed", "tools", "tool_choice"} & set(body)


@pytest.mark.parametrize(
    ("sampling", "sent", "unsupported"),
    [
        (
            Sampling(temperature=0.2, top_p=0.9, seed=3, max_tokens=50),
            {"temperature": 0.2},
            ["top_p", "seed"],
        ),
        (Sampling(top_p=0.9), {"top_p": 0.9}, []),
        (Sampling(temperature=1.5, seed=1), {}, ["temperature", "seed"]),
        (Sampling(temperature=0.0), {"temperature": 0.0}, []),
    ],
)
@pytest.mark.usefixtures("key_in_env")
async def test_sampling_sent_through_extra_body_and_the_rest_reported(
    server: CachingFakeAnthropicServer,
    sampling: Sampling,
    sent: dict[str, float],
    unsupported: list[str],
) -> None:
    spec = spec_for(server)
    await complete(spec, judge_request(sampling=sampling))
    body = server.requests[0]
    assert {k: body[k] for k in ("temperature", "top_p", "seed") if k in body} == sent
    assert body["max_tokens"] == (sampling.max_tokens or 1024)
    assert ModelRegistry().unsupported_settings(spec, sampling) == unsupported


def test_unsupported_reports_seed_and_merges_spec_sampling() -> None:
    target = SdkTarget(
        model_id=MODEL,
        model_name="claude-haiku-4-5",
        endpoint="https://api.anthropic.com",
        base_url=None,
        api_key=SECRET,
        timeout_s=5,
        max_retries=0,
    )
    client = AnthropicClient(target, structured_output=True)
    assert client.unsupported(Sampling(seed=1, max_tokens=10)) == ["seed"]
    assert client.unsupported(Sampling(temperature=0.7, max_tokens=10)) == []
    registry = ModelRegistry()
    spec = ModelSpec(id=MODEL, sampling=Sampling(seed=4))
    assert registry.unsupported_settings(spec) == ["seed"]
    assert registry.unsupported_settings(spec, Sampling(temperature=0.5)) == ["seed"]
    openai = ModelSpec(id="openai/gpt-4o-mini")
    assert registry.unsupported_settings(openai, Sampling(temperature=1.5, top_p=0.5, seed=1)) == []


@pytest.mark.usefixtures("key_in_env")
async def test_structured_output_is_a_forced_tool_call_returned_as_json(
    server: CachingFakeAnthropicServer,
) -> None:
    server.reply = lambda _body: json.dumps(PAIR_ANSWER)
    schema = output_schema("pair")
    reply = await complete(spec_for(server), judge_request(response_schema=schema))
    body = server.requests[0]
    assert body["tools"] == [
        {
            "name": "pair_judgment",
            "description": body["tools"][0]["description"],
            "input_schema": schema["schema"],
        }
    ]
    assert body["tool_choice"] == {"type": "tool", "name": "pair_judgment"}
    assert reply.finish_reason == "tool_use"
    judgment = parse_judgment(reply.text, "pair")
    assert isinstance(judgment, PairJudgment)
    assert judgment.winner == "A" and judgment.A.accuracy == 8
    assert json.loads(reply.text) == PAIR_ANSWER


@pytest.mark.usefixtures("key_in_env")
async def test_text_instead_of_the_tool_call_is_returned_for_the_tolerant_parser(
    server: CachingFakeAnthropicServer,
) -> None:
    server.reply = lambda _body: "I would pick A, it is better."  # not JSON: a text block
    reply = await complete(spec_for(server), judge_request(response_schema=output_schema("pair")))
    assert reply.text == "I would pick A, it is better."
    plain = spec_for(server, structured_output=False)
    await complete(plain, judge_request(response_schema=output_schema("pair")))
    assert "tools" not in server.requests[-1]


@pytest.mark.parametrize(
    ("fault", "retryable"),
    [
        (Fault("rate_limit", retry_after=0.01), True),
        (Fault("server_error"), True),
        (Fault("server_error", status=503), True),
        (Fault("overloaded"), True),
        (Fault("malformed"), True),
        (Fault("empty"), True),
        (Fault("wrong_shape"), True),
        (Fault("reset"), True),
        (Fault("timeout"), True),
    ],
)
@pytest.mark.usefixtures("key_in_env")
async def test_faults_become_retryable_model_call_errors(fault: Fault, retryable: bool) -> None:
    server = FakeAnthropicServer(lambda _body: fault, api_key=SECRET)
    with server, pytest.raises(ModelCallError) as caught:
        await complete(spec_for(server, timeout_s=0.3), judge_request())
    assert caught.value.retryable is retryable
    assert str(caught.value).startswith(f"{MODEL}: ")
    assert SECRET not in str(caught.value) and SECRET not in repr(caught.value)


@pytest.mark.usefixtures("key_in_env")
async def test_client_errors_are_not_retryable_and_never_show_the_key() -> None:
    with FakeAnthropicServer(api_key="sk-ant-the-right-key") as server:
        with pytest.raises(ModelCallError) as caught:
            await complete(spec_for(server), judge_request())
        assert caught.value.retryable is False
        assert "HTTP 401" in str(caught.value)
        assert SECRET not in str(caught.value)
    with FakeAnthropicServer(api_key=SECRET) as server:
        only_system = ModelRequest(model=MODEL, messages=(Message(role="system", content="x"),))
        with pytest.raises(ModelCallError, match="HTTP 400") as caught:
            await complete(spec_for(server), only_system)
        assert caught.value.retryable is False


class EchoingKeyServer(FakeAnthropicServer):
    """A badly behaved server that puts the caller's credential in its error message."""

    def _process(self, req: Request) -> Reply | Fault:
        leaked = req.headers.get("authorization", "")
        return _error(403, "permission_error", f"credential {leaked} may not use this model")


@pytest.mark.usefixtures("key_in_env")
async def test_a_key_echoed_by_the_server_is_redacted() -> None:
    with EchoingKeyServer() as server, pytest.raises(ModelCallError) as caught:
        await complete(spec_for(server), judge_request())
    assert caught.value.retryable is False
    assert SECRET not in str(caught.value)
    assert "[redacted]" in str(caught.value)


def test_credentials_name_the_variable_never_the_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    registry = ModelRegistry()
    with pytest.raises(MissingApiKeyError, match="ANTHROPIC_API_KEY"):
        registry.check_credentials(ModelSpec(id=MODEL))
    custom = ModelSpec(id=MODEL, api_key_env="MY_CLAUDE_KEY")
    with pytest.raises(MissingApiKeyError, match="MY_CLAUDE_KEY"):
        registry.check_credentials(custom)
    monkeypatch.setenv("MY_CLAUDE_KEY", SECRET)
    registry.check_credentials(custom)


async def test_endpoint_is_the_base_url_or_the_official_api(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    # The SDK would read ANTHROPIC_BASE_URL; the client never lets it redirect requests.
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9/elsewhere")
    assert endpoint_of(ModelSpec(id=MODEL)) == "https://api.anthropic.com"
    assert endpoint_of(ModelSpec(id=MODEL, base_url="http://proxy:8080/")) == "http://proxy:8080"
    async with ModelRegistry() as registry:
        client = await registry.client(ModelSpec(id=MODEL))
        assert client.endpoint == "https://api.anthropic.com"
        assert isinstance(client, LimitedClient)
        assert isinstance(client.inner, AnthropicClient)
        assert str(client.inner._client.base_url).startswith("https://api.anthropic.com")


def experiment(base_url: str) -> str:
    judge = {"id": "anthropic/claude-haiku-4-5", "base_url": base_url, "max_retries": 0}
    return panel_experiment("claude", judge, panel={"max_reasks": 2, "sampling": SAMPLING})


@pytest.mark.usefixtures("key_in_env")
def test_panel_runs_against_anthropic_format_server(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    with CachingFakeAnthropicServer(judge_like, api_key=SECRET) as server:
        finished = run(cli, write_experiment(experiment(server.base_url)), tmp_path / "run")
        summary = finished.summary
        assert summary["calls_made"] == len(server.requests)  # every call over HTTP
        assert summary["trials_ok"] == summary["trials_total"] > 0
        assert any("'seed'" in w and w.startswith("judge ") for w in summary["warnings"])
        assert any("'top_p'" in w for w in summary["warnings"])
        assert "does not take 'seed'" in finished.output
        first_round = summary["tokens_by_role"]["judge:first"]
        assert first_round["prompt_tokens"] > 0
        assert first_round["cached_tokens"] > 0  # the later judges read the shared context
        judged = [b for b in server.requests if "tools" in b]
        responder = summary["tokens_by_role"]["responder"]
        assert judged and len(server.requests) - len(judged) == 2  # responses 1 and 2
        assert responder["prompt_tokens"] > 0
        for body in judged:
            assert body["tool_choice"]["type"] == "tool"
            assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
            assert body["temperature"] == 0.3 and body["max_tokens"] == 150
            assert "top_p" not in body and "seed" not in body  # reported, not sent
        assert all(h["authorization"] == f"Bearer {SECRET}" for h in server.headers)
        rerun_sends_no_requests(cli, finished, server.requests)
    nowhere_in_run_folder(finished.out, SECRET)
