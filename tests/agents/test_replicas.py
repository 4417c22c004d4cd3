"""A model on several replicas: load is shared, a route key stays on one replica, a dead
replica is taken out and its calls move, and only when every replica is out does a call fail.

Against two real loopback servers speaking the OpenAI format, through the openai SDK.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter, defaultdict
from typing import Any

import pytest
from helpers.fakes import FakeOpenAIServer, Fault

from fairpanel.agents import (
    Message,
    ModelCallError,
    ModelRegistry,
    ModelRequest,
    ModelSpec,
    ReplicaClient,
    ReplicaHealth,
    endpoint_key,
    endpoint_of,
)
from fairpanel.judging.engine import failure_reason

pytestmark = pytest.mark.timeout(60)

_FAST_RETRIES = {"max_retries": 3, "backoff_base_s": 0.01, "backoff_max_s": 0.02}


def _spec(*urls: str, **extra: Any) -> ModelSpec:
    return ModelSpec.model_validate(
        {
            "id": "openai-compatible/judge",
            "timeout_s": 2.0,
            "limits": _FAST_RETRIES,
            "replicas": [{"base_url": url} for url in urls],
            **extra,
        }
    )


def _request(text: str, route_key: str | None = None, endpoint: str = "") -> ModelRequest:
    return ModelRequest(
        model="openai-compatible/judge",
        endpoint=endpoint,
        messages=(Message(role="user", content=text),),
        route_key=route_key,
    )


def _texts(server: FakeOpenAIServer) -> list[str]:
    return [body["messages"][-1]["content"] for body in server.requests]


async def _replica_client(registry: ModelRegistry, spec: ModelSpec) -> ReplicaClient:
    client = await registry.client(spec)
    assert isinstance(client, ReplicaClient)
    return client


async def test_two_replicas_share_the_load() -> None:
    with (
        FakeOpenAIServer(lambda body: "ok", latency=0.05) as a,
        FakeOpenAIServer(lambda body: "ok", latency=0.05) as b,
    ):
        async with ModelRegistry() as registry:
            client = await _replica_client(registry, _spec(a.base_url, b.base_url))
            replies = await asyncio.gather(*(client.complete(_request(f"q{i}")) for i in range(40)))
    assert all(reply.text == "ok" for reply in replies)
    assert len(a.requests) + len(b.requests) == 40
    # Least-loaded routing splits concurrent calls about evenly (20/20 when nothing drifts).
    assert 12 <= len(a.requests) <= 28, (len(a.requests), len(b.requests))


async def test_a_route_key_keeps_its_calls_on_one_replica() -> None:
    with (
        FakeOpenAIServer(lambda body: "ok", latency=0.02) as a,
        FakeOpenAIServer(lambda body: "ok", latency=0.02) as b,
    ):
        async with ModelRegistry() as registry:
            client = await _replica_client(registry, _spec(a.base_url, b.base_url))

            async def trial(key: int) -> None:
                for turn in range(4):  # sequential turns, as a debate's rounds are
                    asks = [_request(f"t{key}-{turn}-{j}", f"k{key}") for j in (0, 1)]
                    await asyncio.gather(*(client.complete(ask) for ask in asks))

            await asyncio.gather(*(trial(key) for key in range(12)))
    served: dict[str, set[str]] = defaultdict(set)
    for name, server in (("a", a), ("b", b)):
        for text in _texts(server):
            served[re.match(r"t(\d+)-", text).group(1)].add(name)  # type: ignore[union-attr]
    assert len(served) == 12
    assert all(len(names) == 1 for names in served.values()), served
    # ... while the keys themselves are spread over both replicas.
    homes = Counter(next(iter(names)) for names in served.values())
    assert set(homes) == {"a", "b"}, homes


async def test_the_endpoint_names_the_set_whichever_replica_answers() -> None:
    first, second = "http://127.0.0.1:8002/v1", "http://127.0.0.1:8001/v1/"
    spec, reordered = _spec(first, second), _spec(second, first)
    assert (
        endpoint_of(spec)
        == endpoint_of(reordered)
        == ("http://127.0.0.1:8001/v1,http://127.0.0.1:8002/v1")
    )
    # Several keys on one server: the server's own name, as with one key (keys stay out).
    keys = ModelSpec.model_validate(
        {
            "id": "openai/gpt-4o-mini",
            "replicas": [{"api_key_env": "KEY_A"}, {"api_key_env": "KEY_B"}],
        }
    )
    assert endpoint_of(keys) == endpoint_of(ModelSpec(id="openai/gpt-4o-mini"))
    assert endpoint_key(keys) != endpoint_key(ModelSpec(id="openai/gpt-4o-mini"))
    # The route key never changes a request's key.
    assert _request("x", "k1").key() == _request("x", "k2").key() == _request("x").key()


async def test_a_dead_replica_is_taken_out_and_its_keys_move(monkeypatch: Any) -> None:
    dead = FakeOpenAIServer(lambda body: "ok").start()
    dead_url = dead.base_url
    dead.stop()  # its port now refuses connections
    with FakeOpenAIServer(lambda body: "ok", latency=0.01) as alive:
        async with ModelRegistry() as registry:
            client = await _replica_client(registry, _spec(dead_url, alive.base_url))
            started = time.monotonic()
            replies = await asyncio.gather(
                *(client.complete(_request(f"q{i}", f"k{i % 5}")) for i in range(30))
            )
            elapsed = time.monotonic() - started
            replica_set = client.replica_set
            dead_health, alive_health = replica_set.health
            homes = {replica_set.home_of(f"k{i}") for i in range(5)}
    assert [reply.text for reply in replies] == ["ok"] * 30
    assert len(alive.requests) == 30
    assert dead_health.out() and dead_health.times_out == 1
    assert "APIConnectionError" in (dead_health.last_fault or "")
    assert not alive_health.out()
    assert homes == {1}  # keys first sent to the dead replica now live on the other
    assert elapsed < 5, elapsed


async def test_every_replica_out_fails_the_call_honestly() -> None:
    urls = []
    for _ in range(2):
        server = FakeOpenAIServer(lambda body: "ok").start()
        urls.append(server.base_url)
        server.stop()
    async with ModelRegistry() as registry:
        client = await _replica_client(registry, _spec(*urls))
        with pytest.raises(ModelCallError) as caught:
            await client.complete(_request("q", "k"))
        # Once both are out, the next call fails at once without touching the network.
        started = time.monotonic()
        with pytest.raises(ModelCallError) as again:
            await client.complete(_request("q2", "k"))
        assert time.monotonic() - started < 0.5
    message = str(caught.value)
    assert "no replica of" in message and "APIConnectionError" in message, message
    assert failure_reason(f"model call failed: {message}") == "connection"
    assert "out: " in str(again.value) and "none" not in str(again.value).split("out: ")[1]


async def test_a_bad_request_is_not_sent_to_the_other_replica() -> None:
    with (
        FakeOpenAIServer(lambda body: Fault("server_error", status=400)) as a,
        FakeOpenAIServer(lambda body: Fault("server_error", status=400)) as b,
    ):
        async with ModelRegistry() as registry:
            client = await _replica_client(registry, _spec(a.base_url, b.base_url))
            with pytest.raises(ModelCallError) as caught:
                await client.complete(_request("q", "k"))
            assert not any(h.out() for h in client.replica_set.health)
    assert caught.value.status == 400
    assert len(a.requests) + len(b.requests) == 1


def test_cooldown_doubles_and_probation_admits_one_call_at_a_time() -> None:
    now = [0.0]
    health = ReplicaHealth("r", fault_limit=3, cooldown_s=5.0, clock=lambda: now[0])
    fault = ModelCallError("refused", retryable=True)
    for _ in range(2):
        health.fault(fault)
    assert health.admits()  # two faults in a row are not enough
    health.fault(fault)
    assert health.out() and not health.admits()
    now[0] = 5.0
    assert health.on_probation and health.admits()
    health.outstanding = 1
    assert not health.admits()  # one probe at a time
    health.outstanding = 0
    health.fault(fault)  # the probe failed: out again, for twice as long
    assert health.out()
    now[0] = 14.9
    assert health.out()
    now[0] = 15.0
    assert health.admits()
    health.answered()  # the next probe succeeded: back in full rotation
    assert not health.on_probation
    health.outstanding = 4
    assert health.admits()
    assert health.times_out == 2


async def test_after_the_cool_down_calls_wait_for_the_probe_instead_of_failing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("fairpanel.agents._replicas._COOLDOWN_S", 0.2)
    dead = FakeOpenAIServer(lambda body: "ok").start()
    dead_url = dead.base_url
    dead.stop()

    def sick_at_first(body: dict[str, Any]) -> str | Fault:
        return Fault("server_error", status=503) if len(flaky.requests) <= 3 else "ok"

    with FakeOpenAIServer(sick_at_first, latency=0.05) as flaky:
        async with ModelRegistry() as registry:
            client = await _replica_client(registry, _spec(dead_url, flaky.base_url))
            with pytest.raises(ModelCallError):
                await client.complete(_request("first"))  # both replicas go out
            await asyncio.sleep(0.25)  # both cool-downs are over: both on probation
            replies = await asyncio.gather(*(client.complete(_request(f"q{i}")) for i in range(5)))
            _, recovered = client.replica_set.health
            assert not recovered.on_probation
    assert [reply.text for reply in replies] == ["ok"] * 5
