"""Pacing from the rate-limit headers providers send: parsing them, and waiting when they say
the quota is spent instead of being answered 429 (against the fake servers over real HTTP)."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest
from helpers.fakes import FakeAnthropicServer, FakeOpenAIServer

from fairpanel.agents import (
    EndpointLimits,
    LimitedClient,
    Message,
    ModelRegistry,
    ModelRequest,
    ModelSpec,
    quota_from_headers,
)
from fairpanel.agents._quota import duration_seconds, timestamp_seconds

pytestmark = pytest.mark.timeout(30)

SECRET = "sk-quota-test-key"


def _in(seconds: float) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("1s", 1.0),
        ("6m0s", 360.0),
        ("120ms", 0.12),
        ("59.873s", 59.873),
        ("1h2m3.5s", 3723.5),
        ("0s", 0.0),
        ("20", 20.0),
        ("1m", 60.0),
        ("1.5s", 1.5),
        ("2m30.25s", 150.25),
        ("0.5ms", 0.0005),
        ("17ms", 0.017),
    ],
)
def test_openai_reset_durations(text: str, seconds: float) -> None:
    assert duration_seconds(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "1x", "s", "1s2", "m1s", "1s 2s", "-", "nan"])
def test_malformed_durations_are_none(text: str) -> None:
    assert duration_seconds(text) is None


def test_anthropic_reset_timestamps() -> None:
    assert timestamp_seconds(_in(30)) == pytest.approx(30, abs=0.5)
    assert timestamp_seconds("2024-01-01T00:00:00Z") < 0  # past: the quota is back
    # Whole seconds name the second the reset falls in: it is over at that second's end.
    whole = (datetime.now(UTC) + timedelta(seconds=30)).replace(microsecond=0)
    expected = whole.timestamp() + 1 - time.time()
    assert timestamp_seconds(whole.strftime("%Y-%m-%dT%H:%M:%SZ")) == pytest.approx(
        expected, abs=0.05
    )
    assert timestamp_seconds(whole.isoformat(timespec="milliseconds")) == pytest.approx(
        expected - 1, abs=0.05
    )
    assert timestamp_seconds("2024-01-01T00:00:00") is None  # RFC 3339 needs an offset
    assert timestamp_seconds("tomorrow") is None


def test_openai_headers_give_both_quotas() -> None:
    before = time.monotonic()
    reading = quota_from_headers(
        httpx.Headers(
            {
                "X-RateLimit-Limit-Requests": "600",
                "X-RateLimit-Remaining-Requests": "599",
                "X-RateLimit-Reset-Requests": "100ms",
                "x-ratelimit-limit-tokens": "150000",
                "x-ratelimit-remaining-tokens": "149984",
                "x-ratelimit-reset-tokens": "6m0s",
            }
        )
    )
    assert reading is not None and reading.requests is not None and reading.tokens is not None
    assert (reading.requests.limit, reading.requests.remaining) == (600, 599)
    assert reading.requests.reset_at - before == pytest.approx(0.1, abs=0.05)
    assert (reading.tokens.limit, reading.tokens.remaining) == (150000, 149984)
    assert reading.tokens.reset_at - before == pytest.approx(360, abs=0.05)


def test_anthropic_headers_give_both_quotas() -> None:
    before = time.monotonic()
    reading = quota_from_headers(
        {
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": _in(2),
            "anthropic-ratelimit-tokens-remaining": "39000",
            "anthropic-ratelimit-tokens-reset": _in(10),
        }
    )
    assert reading is not None and reading.requests is not None and reading.tokens is not None
    assert (reading.requests.limit, reading.requests.remaining) == (50, 0)
    assert reading.requests.reset_at - before == pytest.approx(2, abs=0.5)
    assert (reading.tokens.limit, reading.tokens.remaining) == (None, 39000)


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"x-ratelimit-remaining-requests": "abc", "x-ratelimit-reset-requests": "1s"},
        {"x-ratelimit-remaining-requests": "-3", "x-ratelimit-reset-requests": "1s"},
        {"x-ratelimit-remaining-requests": "5", "x-ratelimit-reset-requests": "whenever"},
        {"x-ratelimit-remaining-requests": "5"},  # no reset: cannot pace
        {"anthropic-ratelimit-requests-remaining": "5", "anthropic-ratelimit-requests-reset": "1s"},
        {
            "anthropic-ratelimit-tokens-remaining": "1.5k",
            "anthropic-ratelimit-tokens-reset": _in(1),
        },
    ],
)
def test_malformed_or_partial_quota_headers_are_ignored(headers: dict[str, str]) -> None:
    assert quota_from_headers(headers) is None


def test_a_malformed_quota_does_not_hide_a_readable_one() -> None:
    reading = quota_from_headers(
        {
            "x-ratelimit-remaining-requests": "7",
            "x-ratelimit-reset-requests": "2s",
            "x-ratelimit-limit-requests": "lots",
            "x-ratelimit-remaining-tokens": "NaN",
            "x-ratelimit-reset-tokens": "2s",
        }
    )
    assert reading is not None and reading.tokens is None and reading.requests is not None
    assert (reading.requests.remaining, reading.requests.limit) == (7, None)


def test_a_huge_reset_is_clamped() -> None:
    reading = quota_from_headers(
        {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "24h0m0s"}
    )
    assert reading is not None and reading.requests is not None
    assert reading.requests.reset_at - time.monotonic() <= 600


def _spec(server: FakeOpenAIServer | FakeAnthropicServer, **limits: Any) -> ModelSpec:
    if isinstance(server, FakeAnthropicServer):
        model_id, base_url = "anthropic/claude-haiku-4-5", server.base_url
    else:
        model_id, base_url = "openai-compatible/judge", server.base_url
    return ModelSpec(
        id=model_id,
        base_url=base_url,
        api_key_env="FAIRPANEL_QUOTA_KEY",
        limits=EndpointLimits(**limits),
    )


async def _three_calls(server: FakeOpenAIServer | FakeAnthropicServer) -> tuple[float, Any]:
    """Two calls spend a quota of 2 per second; the third is sent right after the second's
    reply said "remaining 0, reset in about 1 s"."""
    spec = _spec(server)
    async with ModelRegistry() as registry:
        client = await registry.client(spec)
        assert isinstance(client, LimitedClient)
        started = time.monotonic()
        for index in range(3):
            message = Message(role="user", content=f"call {index}")
            await client.complete(ModelRequest(model=spec.id, messages=(message,)))
        return time.monotonic() - started, client.state.stats()


@pytest.mark.parametrize("server_class", [FakeOpenAIServer, FakeAnthropicServer])
async def test_told_remaining_zero_the_client_waits_for_the_reset_instead_of_a_429(
    server_class: type[FakeOpenAIServer] | type[FakeAnthropicServer],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAIRPANEL_QUOTA_KEY", SECRET)
    with server_class(api_key=SECRET, rate_limit_per_minute=2, rate_limit_window_s=1.0) as server:
        elapsed, stats = await _three_calls(server)
        sent = len(server.requests)
    assert (stats.rate_limited, sent) == (0, 3)
    assert stats.quota_paced and stats.quota_waits >= 1
    assert elapsed >= 0.9  # it waited out the window rather than sending into it


async def test_without_the_headers_the_same_third_call_is_answered_429(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The contrast: the same server sending no headers, the same client, a 429."""
    monkeypatch.setenv("FAIRPANEL_QUOTA_KEY", SECRET)
    with FakeOpenAIServer(
        api_key=SECRET, rate_limit_per_minute=2, rate_limit_window_s=1.0, limit_headers=False
    ) as server:
        _, stats = await _three_calls(server)
    assert stats.rate_limited >= 1 and not stats.quota_paced


async def test_reported_quota_is_spent_at_once_not_at_the_configured_rate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A configured 60/min would space 12 calls over 11 s; the server says 100 remain, so
    they go as fast as max_in_flight allows (the first waits for the configured limiter
    end as soon as the first reply reports the quota)."""
    monkeypatch.setenv("FAIRPANEL_QUOTA_KEY", SECRET)
    with FakeOpenAIServer(api_key=SECRET, latency=0.05, rate_limit_per_minute=100) as server:
        spec = _spec(server, requests_per_minute=60, max_in_flight=4)
        async with ModelRegistry() as registry:
            client = await registry.client(spec)
            assert isinstance(client, LimitedClient)
            started = time.monotonic()
            await asyncio.gather(
                *(
                    client.complete(
                        ModelRequest(
                            model=spec.id, messages=(Message(role="user", content=f"{i}"),)
                        )
                    )
                    for i in range(12)
                )
            )
            elapsed = time.monotonic() - started
            stats = client.state.stats()
    assert stats.quota_paced and stats.rate_limited == 0
    assert elapsed < 3.0
