"""The fake OpenAI / Anthropic servers, exercised through the REAL SDKs (and raw httpx).

The point is the wire format: if the SDKs parse our answers into their own types and map our
errors onto their own exception classes, code under test will see exactly what it would see
against the real APIs.  Each assertion about a fault records what the SDK really does.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anthropic
import httpx
import openai
import pytest
from anthropic.types import Message
from helpers.fakes import FakeAnthropicServer, FakeOpenAIServer, Fault, ReplyFn, default_reply_text
from helpers.fakes._core import SlidingWindowLimiter
from helpers.timing import PROMPT_S

OPENAI_KEY = "sk-test-0123456789"
ANTHROPIC_KEY = "sk-ant-test-0123456789"
USER_MSG: list[Any] = [{"role": "user", "content": "Rate this answer from one to ten"}]


def _fixed(text: str) -> ReplyFn:
    return lambda _body: text


def _fault(fault: Fault) -> ReplyFn:
    return lambda _body: fault


@pytest.fixture
def oai_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(_fixed("The answer deserves a seven out of ten")) as server:
        yield server


@pytest.fixture
def ant_server() -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer(_fixed("The answer deserves a seven out of ten")) as server:
        yield server


def oai_client(server: FakeOpenAIServer, *, timeout: float = 5.0, key: str = OPENAI_KEY) -> Any:
    return openai.OpenAI(base_url=server.base_url, api_key=key, max_retries=0, timeout=timeout)


def ant_client(
    server: FakeAnthropicServer, *, timeout: float = 5.0, key: str = ANTHROPIC_KEY
) -> Any:
    return anthropic.Anthropic(
        base_url=server.base_url, api_key=key, max_retries=0, timeout=timeout
    )


def error_body(exc: anthropic.APIStatusError) -> dict[str, Any]:
    assert isinstance(exc.body, dict)
    return exc.body


def oai_chat(client: Any, **kwargs: Any) -> Any:
    return client.chat.completions.create(
        model=kwargs.pop("model", "gpt-4o-mini"),
        messages=kwargs.pop("messages", USER_MSG),
        **kwargs,
    )


def ant_chat(client: Any, **kwargs: Any) -> Any:
    return client.messages.create(
        model=kwargs.pop("model", "claude-haiku-4-5"),
        max_tokens=kwargs.pop("max_tokens", 256),
        messages=kwargs.pop("messages", USER_MSG),
        **kwargs,
    )


# ============================================================================ OpenAI


def test_openai_completion_parses_into_sdk_types(oai_server: FakeOpenAIServer) -> None:
    completion = oai_chat(oai_client(oai_server))

    assert isinstance(completion, openai.types.chat.ChatCompletion)
    assert completion.object == "chat.completion"
    assert completion.id.startswith("chatcmpl-")
    assert completion.model == "gpt-4o-mini"  # echoed from the request
    choice = completion.choices[0]
    assert choice.message.role == "assistant"
    assert choice.message.content == "The answer deserves a seven out of ten"
    assert choice.finish_reason == "stop"
    usage = completion.usage
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (7, 8, 15)
    assert usage.prompt_tokens_details is not None
    assert usage.prompt_tokens_details.cached_tokens == 0

    assert oai_server.requests == [
        {"model": "gpt-4o-mini", "messages": USER_MSG},
    ]
    assert oai_server.headers[0]["authorization"] == f"Bearer {OPENAI_KEY}"
    oai_server.reset_log()
    assert oai_server.requests == []
    assert oai_server.headers == []


def test_openai_default_reply_is_deterministic() -> None:
    other = [{"role": "user", "content": "something else"}]
    with FakeOpenAIServer() as server:
        client = oai_client(server)
        first = oai_chat(client).choices[0].message.content
        again = oai_chat(client).choices[0].message.content
        different = oai_chat(client, messages=other).choices[0].message.content
    assert first == again == default_reply_text({"messages": USER_MSG})
    assert different != first


@pytest.mark.parametrize("param", ["max_tokens", "max_completion_tokens"])
def test_openai_max_tokens_truncates_with_finish_reason_length(
    oai_server: FakeOpenAIServer, param: str
) -> None:
    completion = oai_chat(oai_client(oai_server), **{param: 3})
    assert completion.choices[0].finish_reason == "length"
    assert completion.choices[0].message.content == "The answer deserves"
    assert completion.usage.completion_tokens == 3


def test_openai_stop_sequence_cuts_reply(oai_server: FakeOpenAIServer) -> None:
    completion = oai_chat(oai_client(oai_server), stop=[" seven"])
    assert completion.choices[0].message.content == "The answer deserves a"
    assert completion.choices[0].finish_reason == "stop"


def test_openai_models_list(oai_server: FakeOpenAIServer) -> None:
    models = oai_client(oai_server).models.list().data
    assert [m.id for m in models] == [FakeOpenAIServer.MODEL_ID]


def test_openai_stream_is_rejected_with_400(oai_server: FakeOpenAIServer) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        oai_chat(oai_client(oai_server), stream=True)
    assert info.value.param == "stream"
    assert info.value.type == "invalid_request_error"


def test_openai_wrong_key_is_401_with_openai_error_body() -> None:
    with FakeOpenAIServer(api_key=OPENAI_KEY) as server:
        with pytest.raises(openai.AuthenticationError) as info:
            oai_chat(oai_client(server, key="sk-wrong-key-0000"))
        assert info.value.code == "invalid_api_key"
        assert info.value.type == "invalid_request_error"
        assert len(server.requests) == 1  # logged even though rejected

        missing = httpx.post(f"{server.base_url}/chat/completions", json={"model": "m"})
        assert missing.status_code == 401
        error = missing.json()["error"]
        assert set(error) == {"message", "type", "param", "code"}
        assert (error["type"], error["param"], error["code"]) == (
            "invalid_request_error",
            None,
            "invalid_api_key",
        )
        assert oai_chat(oai_client(server)).choices  # the right key works


def test_openai_unknown_path_is_404(oai_server: FakeOpenAIServer) -> None:
    response = httpx.post(f"{oai_server.base_url}/embeddings", json={})
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "invalid_request_error"
    with pytest.raises(openai.NotFoundError):
        oai_client(oai_server).get("/nope", cast_to=object)


def test_openai_validation_errors(oai_server: FakeOpenAIServer) -> None:
    client = oai_client(oai_server)
    with pytest.raises(openai.BadRequestError, match="model"):
        client.post("/chat/completions", body={"messages": USER_MSG}, cast_to=object)
    with pytest.raises(openai.BadRequestError) as info:
        oai_chat(client, messages=[])
    assert info.value.param == "messages"
    with pytest.raises(openai.BadRequestError):
        oai_chat(client, temperature=3)


def test_openai_rate_limit_fault() -> None:
    rate_limited = _fault(Fault("rate_limit", retry_after=2.5))
    with FakeOpenAIServer(rate_limited) as server, pytest.raises(openai.RateLimitError) as info:
        oai_chat(oai_client(server))
    exc = info.value
    assert exc.status_code == 429
    assert exc.response.headers["retry-after"] == "2.5"
    assert exc.response.headers["retry-after-ms"] == "2500"
    assert (exc.type, exc.code) == ("requests", "rate_limit_exceeded")
    assert len(server.requests) == 1


def test_sdk_retries_honour_retry_after() -> None:
    # The SDKs' own retry loops read our retry headers: two 429s, then a success.
    def flaky(_body: dict[str, Any]) -> str | Fault:
        return Fault("rate_limit", retry_after=0.2) if len(oai.requests) < 3 else "finally"

    with FakeOpenAIServer(flaky) as oai:
        client = openai.OpenAI(base_url=oai.base_url, api_key=OPENAI_KEY, max_retries=2)
        started = time.monotonic()
        assert oai_chat(client).choices[0].message.content == "finally"
        assert 0.4 <= time.monotonic() - started < PROMPT_S
        assert [h["x-stainless-retry-count"] for h in oai.headers] == ["0", "1", "2"]

    def flaky_ant(_body: dict[str, Any]) -> str | Fault:
        return Fault("rate_limit", retry_after=0.2) if len(ant.requests) < 2 else "finally"

    with FakeAnthropicServer(flaky_ant) as ant:
        ant_retrying = anthropic.Anthropic(base_url=ant.base_url, api_key="k", max_retries=1)
        started = time.monotonic()
        assert ant_chat(ant_retrying).content[0].text == "finally"
        assert 0.2 <= time.monotonic() - started < PROMPT_S  # decimal retry-after, no -ms


@pytest.mark.parametrize(
    ("fault", "status"),
    [
        (Fault("server_error"), 500),
        (Fault("server_error", status=502), 502),
        (Fault("overloaded"), 503),
    ],
)
def test_openai_5xx_faults(fault: Fault, status: int) -> None:
    with (
        FakeOpenAIServer(_fault(fault)) as server,
        pytest.raises(openai.InternalServerError) as info,
    ):
        oai_chat(oai_client(server))
    assert info.value.status_code == status
    assert info.value.type == "server_error"


def test_openai_timeout_fault_raises_api_timeout_error() -> None:
    with FakeOpenAIServer(_fault(Fault("timeout"))) as server:
        started = time.monotonic()
        with pytest.raises(openai.APITimeoutError):
            oai_chat(oai_client(server, timeout=0.3))
        assert time.monotonic() - started < PROMPT_S
        started = time.monotonic()
    assert time.monotonic() - started < PROMPT_S  # stop() with the handler still asleep


@pytest.mark.parametrize("kind", ["reset", "truncated"])
def test_openai_connection_faults_raise_api_connection_error(kind: str) -> None:
    calls: Iterator[str | Fault] = iter([Fault("reset" if kind == "reset" else "truncated"), "ok"])
    with FakeOpenAIServer(lambda _body: next(calls)) as server:
        client = oai_client(server)
        with pytest.raises(openai.APIConnectionError) as info:
            oai_chat(client)
        assert not isinstance(info.value, openai.APITimeoutError)
        # the same client (and its connection pool) recovers on the next request
        assert oai_chat(client).choices[0].message.content == "ok"


@pytest.mark.parametrize("kind", ["malformed", "empty"])
def test_openai_unparseable_200_escapes_as_json_decode_error(kind: str) -> None:
    # SDK surprise: a 200 with a JSON content-type but a non-JSON body is NOT wrapped in an
    # openai.APIError; the raw json.JSONDecodeError (a ValueError) reaches the caller.
    fault = Fault("malformed" if kind == "malformed" else "empty")
    with FakeOpenAIServer(_fault(fault)) as srv, pytest.raises(json.JSONDecodeError) as info:
        oai_chat(oai_client(srv))
    assert not isinstance(info.value, openai.OpenAIError)


def test_openai_wrong_shape_gives_unusable_completion() -> None:
    # SDK surprise: no validation error; the missing field is simply None.
    with FakeOpenAIServer(_fault(Fault("wrong_shape"))) as server:
        completion = oai_chat(oai_client(server))
    assert isinstance(completion, openai.types.chat.ChatCompletion)
    assert completion.choices is None
    with pytest.raises(TypeError):
        completion.choices[0]


def test_openai_sliding_window_rate_limit() -> None:
    with FakeOpenAIServer(rate_limit_per_minute=3) as server:
        client = oai_client(server)
        for _ in range(3):
            assert oai_chat(client).choices
        with pytest.raises(openai.RateLimitError) as info:
            oai_chat(client)
        headers = info.value.response.headers
        assert 55 <= int(headers["retry-after"]) <= 60
        assert headers["x-ratelimit-remaining-requests"] == "0"
        assert headers["x-ratelimit-limit-requests"] == "3"
        assert len(server.requests) == 4


def test_sliding_window_limiter_slides() -> None:
    now = [1000.0]
    limiter = SlidingWindowLimiter(2, window=60.0, clock=lambda: now[0])
    assert limiter.acquire().allowed
    now[0] += 30
    assert limiter.acquire().allowed
    now[0] += 10
    denied = limiter.acquire()
    assert not denied.allowed
    assert denied.remaining == 0
    assert denied.reset_after == pytest.approx(20.0)  # the first request leaves at t=60
    now[0] += 20
    assert limiter.acquire().allowed  # a slot freed up: the window slid
    assert not limiter.acquire().allowed  # rejected requests do not consume quota...
    now[0] += 30
    assert limiter.acquire().allowed  # ...so the second request leaving frees one


def test_latency_is_served_concurrently() -> None:
    with FakeOpenAIServer(latency=0.4) as server:
        client = oai_client(server)
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=16) as pool:
            results = list(pool.map(lambda _i: oai_chat(client), range(16)))
        elapsed = time.monotonic() - started
    assert len(results) == 16
    assert all(r.choices for r in results)
    assert 0.4 <= elapsed < 16 * 0.4 * 0.75  # well below the 6.4 s a serial server takes
    assert len(server.requests) == 16


def test_stop_returns_promptly_while_a_timeout_fault_is_pending() -> None:
    server = FakeOpenAIServer(_fault(Fault("timeout"))).start()
    outcome: list[BaseException] = []

    def call() -> None:
        try:
            oai_chat(oai_client(server, timeout=20.0))
        except BaseException as exc:
            outcome.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    deadline = time.monotonic() + 5
    while not server.requests and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.requests, "the request never reached the server"
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < PROMPT_S
    caller.join(5)
    assert not caller.is_alive()
    assert len(outcome) == 1
    assert isinstance(outcome[0], openai.APIConnectionError)
    with pytest.raises(RuntimeError):
        _ = server.base_url


def test_reply_function_exception_becomes_500_and_is_recorded() -> None:
    def broken(_body: dict[str, Any]) -> str:
        raise KeyError("boom")

    with FakeOpenAIServer(broken) as server, pytest.raises(openai.InternalServerError):
        oai_chat(oai_client(server))
    assert len(server.errors) == 1
    assert isinstance(server.errors[0], KeyError)


def test_fault_validates_its_arguments() -> None:
    with pytest.raises(ValueError, match="unknown fault kind"):
        Fault("nope")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="retry_after"):
        Fault("rate_limit", retry_after=-1)
    with pytest.raises(ValueError, match="status"):
        Fault("server_error", status=42)


# ============================================================================ Anthropic


def test_anthropic_message_parses_into_sdk_types(ant_server: FakeAnthropicServer) -> None:
    system = [
        {"type": "text", "text": "You are a fair judge", "cache_control": {"type": "ephemeral"}}
    ]
    message = ant_chat(ant_client(ant_server), system=system)

    assert isinstance(message, Message)
    assert message.id.startswith("msg_")
    assert message.type == "message"
    assert message.role == "assistant"
    assert message.model == "claude-haiku-4-5"
    assert message.content[0].type == "text"
    assert message.content[0].text == "The answer deserves a seven out of ten"
    assert message.stop_reason == "end_turn"
    assert message.stop_sequence is None
    usage = message.usage
    assert (usage.input_tokens, usage.output_tokens) == (12, 8)  # system words count too
    assert usage.cache_creation_input_tokens == 0
    assert usage.cache_read_input_tokens == 0

    assert ant_server.requests[0]["system"] == system
    headers = ant_server.headers[0]
    assert headers["anthropic-version"]
    # SDK surprise: anthropic 2.x sends api_key as "Authorization: Bearer", not x-api-key
    assert headers["authorization"] == f"Bearer {ANTHROPIC_KEY}"


def test_anthropic_max_tokens_and_stop_sequences(ant_server: FakeAnthropicServer) -> None:
    client = ant_client(ant_server)
    truncated = ant_chat(client, max_tokens=2)
    assert truncated.stop_reason == "max_tokens"
    assert truncated.content[0].text == "The answer"
    assert truncated.usage.output_tokens == 2

    stopped = ant_chat(client, stop_sequences=["seven"])
    assert stopped.stop_reason == "stop_sequence"
    assert stopped.stop_sequence == "seven"
    assert stopped.content[0].text == "The answer deserves a "


def test_anthropic_missing_max_tokens_is_400(ant_server: FakeAnthropicServer) -> None:
    client = ant_client(ant_server)
    with pytest.raises(TypeError):  # the SDK itself refuses before sending anything
        client.messages.create(model="claude-haiku-4-5", messages=USER_MSG)
    body = {"model": "claude-haiku-4-5", "messages": USER_MSG}
    with pytest.raises(anthropic.BadRequestError) as info:
        client.post("/v1/messages", body=body, cast_to=Message)
    assert info.value.body == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": "max_tokens: Field required"},
        "request_id": error_body(info.value)["request_id"],
    }
    assert ant_server.requests == [body]


def test_anthropic_missing_version_header_is_400(ant_server: FakeAnthropicServer) -> None:
    client = ant_client(ant_server).with_options(
        default_headers={"anthropic-version": anthropic.Omit()}
    )
    with pytest.raises(anthropic.BadRequestError, match="anthropic-version"):
        ant_chat(client)


def test_anthropic_auth() -> None:
    with FakeAnthropicServer(api_key=ANTHROPIC_KEY) as server:
        with pytest.raises(anthropic.AuthenticationError) as info:
            ant_chat(ant_client(server, key="sk-ant-wrong"))
        assert error_body(info.value)["error"]["type"] == "authentication_error"
        assert ant_chat(ant_client(server)).content[0].text  # the right key works

        url = f"{server.base_url}/v1/messages"
        body = {"model": "m", "max_tokens": 5, "messages": USER_MSG}
        version = {"anthropic-version": "2023-06-01"}
        ok = httpx.post(url, json=body, headers={**version, "x-api-key": ANTHROPIC_KEY})
        assert ok.status_code == 200
        assert ok.json()["type"] == "message"
        wrong = httpx.post(url, json=body, headers={**version, "x-api-key": "nope"})
        assert wrong.status_code == 401
        assert wrong.json()["error"]["type"] == "authentication_error"
        assert httpx.post(url, json=body, headers=version).status_code == 401  # no key at all


@pytest.mark.parametrize(
    ("messages", "match"),
    [
        ([{"role": "system", "content": "x"}, *USER_MSG], "top-level `system`"),
        ([{"role": "assistant", "content": "x"}, *USER_MSG], "first message"),
        ([*USER_MSG, *USER_MSG], "must alternate"),
        ([{"role": "user", "content": ""}], "non-empty"),
        ([], "at least one message"),
    ],
)
def test_anthropic_message_validation(
    ant_server: FakeAnthropicServer, messages: list[Any], match: str
) -> None:
    with pytest.raises(anthropic.BadRequestError, match=match) as info:
        ant_chat(ant_client(ant_server), messages=messages)
    assert error_body(info.value)["error"]["type"] == "invalid_request_error"


def test_anthropic_system_validation(ant_server: FakeAnthropicServer) -> None:
    client = ant_client(ant_server)
    bad_cache = [{"type": "text", "text": "sys", "cache_control": {"type": "forever"}}]
    with pytest.raises(anthropic.BadRequestError, match="cache_control"):
        ant_chat(client, system=bad_cache)
    # SDK surprise: anthropic 2.x Messages.create() has no temperature parameter at all
    with pytest.raises(TypeError, match="temperature"):
        ant_chat(client, temperature=0.0)
    with pytest.raises(anthropic.BadRequestError, match="temperature"):
        ant_chat(client, extra_body={"temperature": 1.5})
    with pytest.raises(anthropic.BadRequestError, match="cache_control"):
        ant_chat(client, cache_control={"type": "persistent"})
    assert ant_chat(client, extra_body={"temperature": 0.0}).stop_reason == "end_turn"
    assert ant_chat(client, system="plain string system").stop_reason == "end_turn"


@pytest.mark.parametrize(
    ("fault", "exc_type", "status", "error_type"),
    [
        (Fault("rate_limit", retry_after=3), anthropic.RateLimitError, 429, "rate_limit_error"),
        (Fault("server_error"), anthropic.InternalServerError, 500, "api_error"),
        (Fault("overloaded"), anthropic.OverloadedError, 529, "overloaded_error"),
        (Fault("server_error", status=503), anthropic.ServiceUnavailableError, 503, "api_error"),
    ],
)
def test_anthropic_status_faults(
    fault: Fault, exc_type: type[anthropic.APIStatusError], status: int, error_type: str
) -> None:
    with FakeAnthropicServer(_fault(fault)) as server, pytest.raises(exc_type) as info:
        ant_chat(ant_client(server))
    assert info.value.status_code == status
    assert error_body(info.value)["error"]["type"] == error_type
    if fault.kind == "rate_limit":
        assert info.value.response.headers["retry-after"] == "3"
    else:  # 529 and 503 are InternalServerError subclasses in the anthropic SDK
        assert isinstance(info.value, anthropic.InternalServerError)


def test_anthropic_transport_faults() -> None:
    plan: Iterator[str | Fault] = iter(
        [
            Fault("timeout"),
            Fault("reset"),
            Fault("truncated"),
            Fault("malformed"),
            Fault("empty"),
            Fault("wrong_shape"),
            "recovered",
        ]
    )
    with FakeAnthropicServer(lambda _body: next(plan)) as server:
        with pytest.raises(anthropic.APITimeoutError):
            ant_chat(ant_client(server, timeout=0.3))
        client = ant_client(server)
        for _ in ("reset", "truncated"):
            with pytest.raises(anthropic.APIConnectionError) as info:
                ant_chat(client)
            assert not isinstance(info.value, anthropic.APITimeoutError)
        for _ in ("malformed", "empty"):
            with pytest.raises(json.JSONDecodeError):  # not wrapped, as with openai
                ant_chat(client)
        assert ant_chat(client).content is None  # wrong_shape: no validation error either
        assert ant_chat(client).content[0].text == "recovered"
        assert len(server.requests) == 7
        started = time.monotonic()
    assert time.monotonic() - started < PROMPT_S


def test_anthropic_sliding_window_rate_limit() -> None:
    with FakeAnthropicServer(rate_limit_per_minute=2) as server:
        client = ant_client(server)
        assert ant_chat(client).content
        assert ant_chat(client).content
        with pytest.raises(anthropic.RateLimitError) as info:
            ant_chat(client)
        headers = info.value.response.headers
        assert 55 <= int(headers["retry-after"]) <= 60
        assert headers["anthropic-ratelimit-requests-remaining"] == "0"


def test_anthropic_models_and_unknown_path(ant_server: FakeAnthropicServer) -> None:
    client = ant_client(ant_server)
    assert [m.id for m in client.models.list().data] == [FakeAnthropicServer.MODEL_ID]
    with pytest.raises(anthropic.NotFoundError):
        client.post("/v1/nope", body={}, cast_to=object)
