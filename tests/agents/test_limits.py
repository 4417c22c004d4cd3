"""Per-endpoint rate limits and retries, against the fake OpenAI server over real HTTP."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.fakes import FakeOpenAIServer, Fault
from helpers.judges import openai_judge_like as judge_like
from helpers.timing import PROMPT_S
from pydantic import ValidationError
from typer.testing import CliRunner

from fairpanel.agents import (
    EndpointLimits,
    LimitedClient,
    Message,
    ModelCallError,
    ModelRegistry,
    ModelRequest,
    ModelSpec,
    retry_after_from_headers,
)
from fairpanel.cli import app

pytestmark = pytest.mark.timeout(30)

SECRET = "sk-limits-test-key"
FAST = {"backoff_base_s": 0.01, "backoff_max_s": 0.05}


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRPANEL_TEST_KEY", SECRET)


def spec(server: FakeOpenAIServer, name: str = "judge", **limits: Any) -> ModelSpec:
    return ModelSpec(
        id=f"openai-compatible/{name}",
        base_url=server.base_url,
        api_key_env="FAIRPANEL_TEST_KEY",
        timeout_s=limits.pop("timeout_s", 10.0),
        limits=EndpointLimits(**{**FAST, **limits}),
    )


def request(text: str = "hi") -> ModelRequest:
    messages = (Message(role="user", content=text),)
    return ModelRequest(model="openai-compatible/judge", messages=messages)


class Script:
    """A thread-safe reply function: the first faults in order, then "ok"; logs arrivals."""

    def __init__(self, *faults: Fault, hold_s: float = 0.0) -> None:
        self._faults = list(faults)
        self._hold_s = hold_s
        self._lock = threading.Lock()
        self.arrivals: list[tuple[float, str]] = []
        self.in_flight = 0
        self.max_in_flight = 0

    def __call__(self, body: dict[str, Any]) -> str | Fault:
        with self._lock:
            outcome: str | Fault = self._faults.pop(0) if self._faults else "ok"
            self.arrivals.append((time.monotonic(), body["model"]))
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        time.sleep(self._hold_s)
        with self._lock:
            self.in_flight -= 1
        return outcome


async def limited(registry: ModelRegistry, model_spec: ModelSpec) -> LimitedClient:
    client = await registry.client(model_spec)
    assert isinstance(client, LimitedClient)
    return client


async def wait_until(condition: Callable[[], bool]) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("condition never became true")


async def test_retry_after_pauses_every_role_on_the_endpoint() -> None:
    script = Script(Fault("rate_limit", retry_after=0.3))
    with FakeOpenAIServer(script, api_key=SECRET) as server:
        async with ModelRegistry() as registry:
            judge = await limited(registry, spec(server, "judge"))
            responder = await limited(registry, spec(server, "responder"))
            assert judge.state is responder.state
            started = time.monotonic()
            first = asyncio.create_task(judge.complete(request()))
            await wait_until(lambda: judge.state.stats().pauses == 1)
            second = await responder.complete(request("other role"))  # no 429 of its own
            assert [(await first).text, second.text] == ["ok", "ok"]
            elapsed = time.monotonic() - started
            stats = judge.state.stats()
    limited_at = script.arrivals[0][0]
    later = script.arrivals[1:]
    assert sorted(model for _, model in later) == ["judge", "responder"]
    assert all(arrived >= limited_at + 0.29 for arrived, _ in later)
    assert elapsed >= 0.3
    assert (stats.rate_limited, stats.retries, stats.pauses, stats.failures) == (1, 1, 1, 0)
    assert stats.waits >= 2 and stats.slowdown > 1.0


async def test_first_n_rate_limited_then_all_complete() -> None:
    n = 3
    script = Script(*[Fault("rate_limit", retry_after=0.3)] * n)
    with FakeOpenAIServer(script, api_key=SECRET) as server:
        async with ModelRegistry() as registry:
            a = await limited(registry, spec(server, "a"))
            b = await limited(registry, spec(server, "b"))
            started = time.monotonic()
            calls = [client.complete(request(str(i))) for i in range(3) for client in (a, b)]
            replies = await asyncio.gather(*calls)
            elapsed = time.monotonic() - started
    assert [reply.text for reply in replies] == ["ok"] * 6
    assert elapsed >= 0.3
    stats = a.state.stats()
    assert (stats.rate_limited, stats.retries, stats.successes) == (n, n, 6)
    assert len(script.arrivals) == 6 + n


async def test_server_errors_are_retried_until_success() -> None:
    script = Script(Fault("server_error"), Fault("server_error"))
    with FakeOpenAIServer(script, api_key=SECRET) as server:
        async with ModelRegistry() as registry:
            client = await limited(registry, spec(server, max_identical_failures=5))
            assert (await client.complete(request())).text == "ok"
            stats = client.state.stats()
    assert (stats.attempts, stats.retries, stats.failures, stats.rate_limited) == (3, 2, 0, 0)


@pytest.mark.parametrize(
    ("limits", "attempts"),
    [({"max_retries": 3, "max_identical_failures": 10}, 4), ({"max_retries": 5}, 3)],
)
async def test_a_server_that_always_fails_is_given_up(
    limits: dict[str, int], attempts: int
) -> None:
    script = Script(*[Fault("server_error")] * 20)
    with FakeOpenAIServer(script, api_key=SECRET) as server:
        async with ModelRegistry() as registry:
            client = await limited(registry, spec(server, **limits))
            with pytest.raises(ModelCallError, match="HTTP 500") as caught:
                await client.complete(request())
            stats = client.state.stats()
    assert caught.value.retryable and caught.value.status == 500
    assert len(script.arrivals) == attempts
    assert (stats.attempts, stats.retries, stats.failures) == (attempts, attempts - 1, 1)


async def test_rate_limit_waits_do_not_use_up_retries_but_are_bounded() -> None:
    script = Script(*[Fault("rate_limit", retry_after=0.1)] * 30)
    with FakeOpenAIServer(script, api_key=SECRET) as server:
        async with ModelRegistry() as registry:
            client = await limited(
                registry, spec(server, max_retries=1, max_rate_limit_wait_s=0.45)
            )
            with pytest.raises(ModelCallError, match="HTTP 429"):
                await client.complete(request())
    # 0.1 s waits are allowed while their sum stays within 0.45 s: 4 waits, the 5th 429 ends it,
    # far more attempts than max_retries=1 would allow for other errors.
    assert len(script.arrivals) == 5


async def test_a_401_is_not_retried() -> None:
    script = Script()
    with FakeOpenAIServer(script, api_key="sk-another-key") as server:
        async with ModelRegistry() as registry:
            client = await limited(registry, spec(server))
            with pytest.raises(ModelCallError, match="HTTP 401") as caught:
                await client.complete(request())
            stats = client.state.stats()
    assert not caught.value.retryable
    assert (stats.attempts, stats.retries, stats.failures) == (1, 0, 1)


async def test_requests_per_minute_is_respected_beyond_the_small_burst() -> None:
    """rpm=600 means a bucket of 10 (one second's worth) refilled at 584/min: 30 calls
    need at least (30 - 10) / 10 = 2 s, and no 1 s window sees more than 10 + 10 requests.
    Without the limiter the 30 calls take well under a second."""
    script = Script()
    with FakeOpenAIServer(script, api_key=SECRET) as server:
        async with ModelRegistry() as registry:
            client = await limited(registry, spec(server, requests_per_minute=600))
            started = time.monotonic()
            await asyncio.gather(*(client.complete(request(str(i))) for i in range(30)))
            elapsed = time.monotonic() - started
    assert 1.95 <= elapsed < PROMPT_S
    times = sorted(arrived for arrived, _ in script.arrivals)
    busiest = max(sum(1 for t in times if start <= t < start + 1.0) for start in times)
    assert busiest <= 20


async def test_max_in_flight_bounds_concurrent_requests() -> None:
    script = Script(hold_s=0.2)
    with FakeOpenAIServer(script, api_key=SECRET) as server:
        async with ModelRegistry() as registry:
            client = await limited(registry, spec(server, max_in_flight=2))
            started = time.monotonic()
            await asyncio.gather(*(client.complete(request(str(i))) for i in range(6)))
            elapsed = time.monotonic() - started
            stats = client.state.stats()
    assert script.max_in_flight == 2 == stats.max_in_flight_seen
    assert elapsed >= 0.6


async def test_timeouts_and_connection_resets_are_retried() -> None:
    script = Script(Fault("timeout"), Fault("reset"))
    with FakeOpenAIServer(script, api_key=SECRET) as server:
        async with ModelRegistry() as registry:
            client = await limited(registry, spec(server, timeout_s=0.4))
            assert (await client.complete(request())).text == "ok"
            stats = client.state.stats()
    assert (stats.attempts, stats.retries, stats.failures) == (3, 2, 0)


async def test_specs_on_one_endpoint_must_agree_on_limits() -> None:
    with FakeOpenAIServer(Script(), api_key=SECRET) as server:
        async with ModelRegistry() as registry:
            defaults = spec(server, "a").model_copy(update={"limits": EndpointLimits()})
            plain = await limited(registry, defaults)
            paced = await limited(registry, spec(server, "b", requests_per_minute=60))
            assert plain.state is paced.state
            assert plain.state.limits.requests_per_minute == 60  # explicit wins before calls
            await plain.complete(request())
            with pytest.raises(ValueError, match="different limits"):
                await registry.client(spec(server, "c", requests_per_minute=30))


def test_legacy_max_retries_is_the_limiter_retry_count() -> None:
    assert ModelSpec(id="openai/gpt-4o-mini", max_retries=0).limits.max_retries == 0
    both = {"max_retries": 2, "limits": {"max_retries": 2, "requests_per_minute": 5}}
    assert ModelSpec.model_validate({"id": "openai/x", **both}).limits.requests_per_minute == 5
    with pytest.raises(ValidationError, match="set max_retries once"):
        ModelSpec.model_validate({"id": "openai/x", "max_retries": 1, "limits": {"max_retries": 4}})
    with pytest.raises(ValidationError):
        ModelSpec.model_validate({"id": "openai/x", "limits": {"retries": 1}})


def test_retry_after_headers() -> None:
    assert retry_after_from_headers({"retry-after-ms": "250", "retry-after": "1"}) == 0.25
    assert retry_after_from_headers({"retry-after": "2"}) == 2.0
    assert retry_after_from_headers({"retry-after": "soon"}) is None
    assert retry_after_from_headers({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0
    assert retry_after_from_headers({}) is None


def test_a_run_through_a_burst_of_429s_finishes_with_every_trial_ok_and_its_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LIMITS_E2E_KEY", "sk-limits")
    seen = {"n": 0}
    lock = threading.Lock()

    def busy_then_fine(body: dict[str, Any]) -> str | Fault:
        with lock:
            seen["n"] += 1
            if seen["n"] <= 12:
                return Fault("rate_limit", retry_after=0.2)
        return judge_like(body)

    with FakeOpenAIServer(busy_then_fine) as server:
        experiment = tmp_path / "e.yaml"
        experiment.write_text(
            "name: busy\n"
            "models:\n"
            "  judge:\n"
            "    id: openai-compatible/judge\n"
            f"    base_url: {server.base_url}\n"
            "    api_key_env: LIMITS_E2E_KEY\n"
            "    structured_output: true\n"
            "    limits: {requests_per_minute: 6000, max_retries: 2}\n"
            "prices:\n"
            "  openai-compatible/judge: {input: 1.0, output: 2.0}\n"
            "responder: {model: judge}\n"
            "panel: {judges: [domain_expert, clarity_editor], model: judge}\n"
            "scenarios: {bases: [fitness-coaching], derived_per_base: 1}\n"
            "identities: {categories: [gender]}\n"
            "arms: {placebo: false, same_label: false}\n",
            encoding="utf-8",
        )
        out = tmp_path / "run"
        result = CliRunner().invoke(app, ["run", str(experiment), "--out", str(out)])
        assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["trials_ok"] == summary["trials_total"] == 2 + 4
    assert summary["trials_failed"] == 0
    assert summary["cost"]["total_usd"] > 0
    assert seen["n"] == summary["calls_made"] + 12
