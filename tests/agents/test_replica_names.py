"""Which replica answered each reply, and which failed each attempt, named without a key.

Against loopback OpenAI-format servers through the openai SDK; the servers' own logs (the
key each request carried, the status each got) say what really happened.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from helpers.fakes import FakeOpenAIServer, Fault

from fairpanel.agents import (
    REDACTED,
    CachingCaller,
    FailedAttempt,
    Message,
    ModelRegistry,
    ModelReply,
    ModelRequest,
    ModelSpec,
    credential_free_url,
    register_secret,
)
from fairpanel.judging.store import Store

pytestmark = pytest.mark.timeout(60)

KEY_A, KEY_B = "sk-team-a-5c1e9f0d7b", "sk-team-b-93ad4e2f60"
_FAST_RETRIES = {"max_retries": 3, "backoff_base_s": 0.01, "backoff_max_s": 0.02}


def _request(text: str, model: str = "openai-compatible/judge") -> ModelRequest:
    return ModelRequest(model=model, messages=(Message(role="user", content=text),))


class _Failures:
    def __init__(self) -> None:
        self.kept: list[FailedAttempt] = []

    def put_failure(self, failure: FailedAttempt) -> None:
        self.kept.append(failure)


async def test_two_keys_on_one_server_are_two_replicas_named_by_their_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KEY_A", KEY_A)
    monkeypatch.setenv("KEY_B", KEY_B)
    with FakeOpenAIServer(lambda body: "ok", latency=0.02) as server:
        url = server.base_url
        spec = ModelSpec.model_validate(
            {
                "id": "openai-compatible/judge",
                "base_url": url,
                "replicas": [{"api_key_env": "KEY_A"}, {"api_key_env": "KEY_B"}],
            }
        )
        async with ModelRegistry() as registry:
            client = await registry.client(spec)
            texts = [f"q{i}" for i in range(20)]
            replies = await asyncio.gather(*(client.complete(_request(t)) for t in texts))
        sent_with = {
            body["messages"][-1]["content"]: headers["authorization"]
            for body, headers in zip(server.requests, server.headers, strict=True)
        }
    names = {"KEY_A": f"{url} (KEY_A)", "KEY_B": f"{url} (KEY_B)"}
    for text, reply in zip(texts, replies, strict=True):
        variable = "KEY_A" if KEY_A in sent_with[text] else "KEY_B"
        assert reply.replica == names[variable]
    assert {reply.replica for reply in replies} == set(names.values())  # both took calls


async def test_a_single_server_names_itself_and_the_request_key_ignores_the_replica() -> None:
    with FakeOpenAIServer(lambda body: "ok") as server:
        url = server.base_url
        spec = ModelSpec(id="openai-compatible/judge", base_url=url + "/")
        async with ModelRegistry() as registry:
            client = await registry.client(spec)
            reply = await client.complete(_request("q", spec.id))
    assert reply.replica == url
    request = _request("q", spec.id)
    store = Store(Path(":memory:"))
    try:
        store.put_call(request.key(), request, reply, "judge")
        elsewhere = reply.model_copy(update={"replica": "http://elsewhere/v1", "text": "no"})
        store.put_call(request.key(), request, elsewhere, "judge")  # the same call: ignored
        stored = store.get_call(request.key())
    finally:
        store.close()
    assert stored is not None and (stored.text, stored.replica) == ("ok", url)


async def test_every_failed_attempt_is_kept_on_its_replica_and_none_while_it_is_out() -> None:
    with (
        FakeOpenAIServer(lambda body: "ok", latency=0.01) as steady,
        FakeOpenAIServer(lambda body: Fault("server_error"), latency=0.01) as broken,
    ):
        steady_url, broken_url = steady.base_url, broken.base_url
        spec = ModelSpec.model_validate(
            {
                "id": "openai-compatible/judge",
                "timeout_s": 2.0,
                "limits": _FAST_RETRIES,
                "replicas": [{"base_url": steady_url}, {"base_url": broken_url}],
            }
        )
        failures = _Failures()
        async with ModelRegistry() as registry:
            registry.keep_failures(failures)
            client = await registry.client(spec)
            replies = await asyncio.gather(*(client.complete(_request(f"q{i}")) for i in range(12)))
            assert client.replica_set.health[1].out()  # type: ignore[attr-defined]
        refused = [status for status, _ in broken.replies]
    assert {reply.replica for reply in replies} == {steady_url}
    # One failure per 500 the broken server sent: calls refused while it was out are not its.
    assert refused and set(refused) == {500}
    assert len(failures.kept) == len(refused)
    assert {(f.replica, f.kind, f.status, f.model) for f in failures.kept} == {
        (broken_url, "HTTP 500", 500, spec.id)
    }
    assert all(f.latency_s >= 0.01 and "HTTP 500" in f.error for f in failures.kept)


class _KeyInItsEndpoint:
    """A plugin's client whose endpoint carries its key (fairpanel does not check plugins')."""

    model_id = "plugin/judge"
    endpoint = f"https://user:{KEY_A}@gateway.example/v1?api_key={KEY_A}&region=eu"

    async def complete(self, request: ModelRequest) -> ModelReply:
        return ModelReply(text="ok")

    async def aclose(self) -> None:
        return None


async def test_a_client_that_names_no_replica_is_named_by_its_endpoint_without_the_key() -> None:
    register_secret(KEY_A)
    store = Store(Path(":memory:"))
    try:
        request = _request("q", "plugin/judge")
        reply = await CachingCaller(store).call(_KeyInItsEndpoint(), request, "judge")
        rows = store.read("SELECT replica FROM calls").fetchall()
    finally:
        store.close()
    expected = f"https://gateway.example/v1?api_key={REDACTED}&region=eu"
    assert reply.replica == expected and rows == [(expected,)]


@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("http://127.0.0.1:8001/v1", "http://127.0.0.1:8001/v1"),
        ("https://me:pw@host/v1", "https://host/v1"),
        ("https://host/v1?key=abc&model=x", f"https://host/v1?key={REDACTED}&model=x"),
        ("https://host/v1?sig=abc", f"https://host/v1?sig={REDACTED}"),
        ("local/smollm2", "local/smollm2"),
    ],
)
def test_credential_free_url(url: str, name: str) -> None:
    assert credential_free_url(url) == name
