"""Per-endpoint rate limits and retries, shared by every role that calls the same endpoint.

Provider quotas are per key and per server, not per judge: when the responder and four judges
hit one endpoint, a 429 seen by one of them means all of them must slow down. So the registry
keeps one ``EndpointState`` per endpoint (provider + URL + key variable) and wraps every client
on it in a ``LimitedClient`` that takes its slots, pacing and pauses from that shared state.

Once the endpoint's replies report their quota (OpenAI's and Anthropic's rate-limit headers,
see ``_quota``), pacing follows what the server says; the configured per-minute limits and the
slowdown after 429s are the fallback for servers that report nothing.

The SDK clients underneath are built with ``max_retries=0``: retrying in two layers would
multiply the attempts and hide 429s from the shared pacing.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import random
import time
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass

from aiolimiter import AsyncLimiter
from pydantic import BaseModel, ConfigDict, Field

from fairpanel.agents._quota import QuotaGate, QuotaReading, QuotaTicket, spent_until
from fairpanel.agents._types import (
    ModelCallError,
    ModelClient,
    ModelReply,
    ModelRequest,
    Sampling,
    SamplingReport,
)

__all__ = [
    "EndpointLimits",
    "EndpointState",
    "LimitStats",
    "LimitedClient",
    "OnFailure",
    "estimate_tokens",
    "retry_after_from_headers",
]

OnFailure = Callable[[ModelRequest, ModelCallError, float], None]
"""Told of each failed attempt: its request, its error and the seconds it took."""

_SLOWDOWN_STEP = 1.5
"""A 429 with a wait stretches the pacing interval by this factor."""
_RECOVERY_STEP = 1.02
"""Each success shrinks it by this factor (about 20 successes undo one 429)."""
_MAX_SLOWDOWN = 8.0
_UNKNOWN_RATE_INTERVAL_S = 0.05
"""Pacing interval used after a 429 on an endpoint with no ``requests_per_minute``: the
server told us we are too fast but not how fast it allows, so start from 20 requests/s."""
_MAX_RETRY_AFTER_S = 600.0
"""A longer Retry-After is clamped: no honest quota asks a run to stop for longer."""


class EndpointLimits(BaseModel):
    """How hard fairpanel may drive one endpoint, and how it retries there.

    ``None`` for a per-minute limit means "no client-side limit"; the endpoint's own 429s
    (with their Retry-After) still pace the run.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    requests_per_minute: int | None = Field(default=None, ge=1)
    tokens_per_minute: int | None = Field(default=None, ge=1)
    max_in_flight: int = Field(default=16, ge=1, le=1024)
    max_retries: int = Field(default=5, ge=0, le=20)
    backoff_base_s: float = Field(default=0.5, ge=0.0)
    backoff_max_s: float = Field(default=30.0, ge=0.0)
    max_identical_failures: int = Field(default=3, ge=1)
    max_rate_limit_wait_s: float = Field(
        default=600.0,
        ge=0.0,
        description="How long one request may spend waiting out 429s that say when to come "
        "back; those waits do not use up max_retries",
    )


@dataclass(frozen=True)
class LimitStats:
    """What one endpoint went through, for logs and the throughput benchmark."""

    attempts: int
    successes: int
    failures: int
    """Calls that raised in the end (non-retryable, or retries used up)."""
    retries: int
    rate_limited: int
    """Attempts answered with HTTP 429."""
    pauses: int
    """Times a Retry-After paused the whole endpoint."""
    waits: int
    """Times a caller slept on a pause or a backoff before an attempt."""
    wait_s: float
    max_in_flight_seen: int
    slowdown: float
    """Current pacing stretch (1.0 = none)."""
    quota_paced: bool = False
    """Whether the endpoint's replies reported their request quota (so it paced from them)."""
    quota_waits: int = 0
    """Times a caller waited for the reported quota to come back."""


def retry_after_from_headers(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` (OpenAI, Anthropic) or ``retry-after``
    (seconds or an HTTP date), or ``None`` when absent or unreadable."""
    if headers is None:
        return None
    seconds: float | None = None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            seconds = float(millis) / 1000
        except ValueError:
            seconds = None
    plain = headers.get("retry-after")
    if seconds is None and plain is not None:
        try:
            seconds = float(plain)
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(plain)
            except (TypeError, ValueError):
                return None
            seconds = when.timestamp() - time.time()
    if seconds is None or not math.isfinite(seconds):
        return None
    return min(max(seconds, 0.0), _MAX_RETRY_AFTER_S)


def estimate_tokens(request: ModelRequest) -> int:
    """A cheap upper-ish estimate of what a request costs against a token quota: about four
    characters per prompt token plus the completion budget (as providers count it)."""
    characters = sum(len(message.content) for message in request.messages)
    return math.ceil(characters / 4) + (request.sampling.max_tokens or 0)


def _window_safe_limiter(per_minute: int, burst: int) -> AsyncLimiter:
    """A leaky bucket holding ``burst`` that refills at ``(per_minute - burst - 1%) / 60``/s.

    aiolimiter's ``AsyncLimiter(n, 60)`` lets a full minute's quota through at once and then
    refills at n/min, so a 60 s window can see almost 2n requests and a sliding-window server
    answers 429. Any interval of t seconds carries at most ``burst + rate * t``; with this
    rate that stays under ``per_minute`` over 60 s, and the burst stays small. The extra 1%
    is headroom for jitter between leaving the bucket and reaching the server's window:
    without it, 2000 calls at 600/min met 6 429s at the window's edge.
    """
    burst = max(1, min(burst, per_minute))
    headroom = per_minute // 100
    rate_per_s = max(per_minute - burst - headroom, per_minute / 2) / 60
    return AsyncLimiter(burst, burst / rate_per_s)


class EndpointState:
    """The limits and counters one endpoint's clients share (create inside the event loop)."""

    def __init__(self, name: str, limits: EndpointLimits) -> None:
        self.name = name
        self._configure(limits)
        self._paused_until = 0.0
        self._next_start = 0.0
        self._slowdown = 1.0
        self._in_flight = 0
        self._counts = dict.fromkeys(
            ("attempts", "successes", "failures", "retries", "rate_limited", "pauses", "waits"),
            0,
        )
        self._wait_s = 0.0
        self._max_in_flight_seen = 0
        self._quota = QuotaGate()

    def _configure(self, limits: EndpointLimits) -> None:
        self.limits = limits
        self._slots = asyncio.Semaphore(limits.max_in_flight)
        rpm, tpm = limits.requests_per_minute, limits.tokens_per_minute
        self._requests = None if rpm is None else _window_safe_limiter(rpm, rpm // 60)
        self._tokens = None if tpm is None else _window_safe_limiter(tpm, tpm // 20)
        self._base_interval = _UNKNOWN_RATE_INTERVAL_S if rpm is None else 60 / rpm

    def adopt(self, limits: EndpointLimits) -> None:
        """Share this state with another spec on the endpoint; their limits must agree.

        A spec left at the defaults takes the endpoint's limits; defaults set by an earlier
        spec give way to explicit ones as long as no call has been made yet.
        """
        if limits == self.limits or limits == EndpointLimits():
            return
        if self.limits == EndpointLimits() and self._counts["attempts"] == 0:
            self._configure(limits)
            return
        raise ValueError(
            f"models on endpoint {self.name} set different limits ({self.limits!r} and "
            f"{limits!r}); give every model that uses this endpoint the same 'limits'"
        )

    def stats(self) -> LimitStats:
        return LimitStats(
            **self._counts,
            wait_s=round(self._wait_s, 3),
            max_in_flight_seen=self._max_in_flight_seen,
            slowdown=round(self._slowdown, 3),
            quota_paced=self._quota.paces_requests,
            quota_waits=self._quota.waits,
        )

    async def _sleep(self, seconds: float) -> None:
        if seconds <= 0:
            return
        self._counts["waits"] += 1
        self._wait_s += seconds
        await asyncio.sleep(seconds)

    async def _wait_for_pause(self) -> None:
        while (remaining := self._paused_until - time.monotonic()) > 0:
            await self._sleep(remaining)

    async def _pace(self) -> None:
        """After a 429 the starts are spaced by a stretched interval until it recovers (unless
        the server reports its quota: then that paces)."""
        if self._slowdown <= 1.0 or self._quota.paces_requests:
            return
        now = time.monotonic()
        start = max(now, self._next_start)
        self._next_start = start + self._base_interval * self._slowdown
        await self._sleep(start - now)

    @asynccontextmanager
    async def attempt(self, request: ModelRequest) -> AsyncIterator[QuotaTicket]:
        """Hold a connection slot and the quota for one attempt at ``request``; pass the
        ticket and the quota its reply reported to ``observe``.

        The slot is taken first so the quota is spent right before the request is sent:
        tokens acquired while queueing for a slot would let sends bunch up afterwards. The
        reported quota is checked last and spent with no await in between, so two callers
        cannot start on the same room.
        """
        quota = self._quota
        async with self._slots:
            tokens = estimate_tokens(request)
            while True:
                await self._wait_for_pause()
                # The configured limits pace until the server reports its quota; a wait on
                # them ends early once it does (the loop then paces from the report).
                requests, tokens_limiter = self._requests, self._tokens
                if (
                    requests is not None
                    and not quota.paces_requests
                    and not await quota.configured(requests, 1, "requests")
                ):
                    continue
                if (
                    tokens_limiter is not None
                    and not quota.paces_tokens
                    and not await quota.configured(
                        tokens_limiter, min(tokens, tokens_limiter.max_rate), "tokens"
                    )
                ):
                    continue
                await self._pace()
                await quota.admit(tokens)
                if self._paused_until <= time.monotonic():
                    break  # else a 429 arrived meanwhile: wait it out too
            ticket = quota.issue(tokens)
            self._counts["attempts"] += 1
            self._in_flight += 1
            self._max_in_flight_seen = max(self._max_in_flight_seen, self._in_flight)
            try:
                yield ticket
            finally:
                self._in_flight -= 1
                quota.release(ticket)

    def observe(
        self, ticket: QuotaTicket, reading: QuotaReading | None, *, counted: bool = True
    ) -> None:
        """Note the quota an attempt's reply (or error) reported; ``counted`` is false when
        the server refused the attempt for the rate limit (429) and so spent no quota on it."""
        self._quota.observe(ticket, reading, counted=counted)

    def succeeded(self) -> None:
        self._counts["successes"] += 1
        self._slowdown = max(1.0, self._slowdown / _RECOVERY_STEP)

    def failed(self, error: ModelCallError, *, will_retry: bool) -> None:
        """Count a failed attempt; a Retry-After pauses every caller and slows the pacing."""
        if error.status == 429:
            self._counts["rate_limited"] += 1
        if not will_retry:
            self._counts["failures"] += 1
            return
        self._counts["retries"] += 1
        if error.retry_after is not None:
            self._counts["pauses"] += 1
            now = time.monotonic()
            until = now + error.retry_after
            reset_at = spent_until(error.quota) if error.status == 429 else None
            if reset_at is not None and reset_at > now:
                # The same reply's quota reset is exact where Retry-After is rounded up (a
                # reset already past does not explain the 429: then Retry-After holds).
                until = min(until, reset_at)
            self._paused_until = max(self._paused_until, until)
            self._slowdown = min(_MAX_SLOWDOWN, self._slowdown * _SLOWDOWN_STEP)

    async def backoff(self, retry: int) -> None:
        """Full-jitter exponential backoff before retry number ``retry`` (1-based)."""
        cap = min(self.limits.backoff_max_s, self.limits.backoff_base_s * 2 ** (retry - 1))
        await self._sleep(random.uniform(0.0, cap))


class LimitedClient:
    """A ``ModelClient`` that paces, bounds and retries ``inner``'s calls per its endpoint.

    Retryable errors are retried up to ``max_retries`` times, but a request that fails with
    the same text ``max_identical_failures`` times in a row is given up early (the failure
    is about the request, not the moment). 429s that say when to come back are waited out
    instead, up to ``max_rate_limit_wait_s`` per request, and use up neither count. The last
    error is raised and the caller stores the trial as failed. ``on_failure`` hears of every
    failed attempt (``_attempts``), retried or not.
    """

    def __init__(
        self, inner: ModelClient, state: EndpointState, on_failure: OnFailure | None = None
    ) -> None:
        self._inner, self._state = inner, state
        self._on_failure = on_failure or (lambda request, error, seconds: None)

    @property
    def inner(self) -> ModelClient:
        return self._inner

    @property
    def state(self) -> EndpointState:
        return self._state

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def endpoint(self) -> str:
        return self._inner.endpoint

    def unsupported(self, sampling: Sampling) -> list[str]:
        if isinstance(self._inner, SamplingReport):
            return self._inner.unsupported(sampling)
        return []

    async def complete(self, request: ModelRequest) -> ModelReply:
        limits = self._state.limits
        retries = 0
        identical = 0
        rate_limit_wait = 0.0
        last_text: str | None = None
        while True:
            async with self._state.attempt(request) as ticket:
                sent = time.perf_counter()
                try:
                    reply = await self._inner.complete(request)
                except ModelCallError as exc:
                    error = exc
                    self._state.observe(ticket, exc.quota, counted=exc.status != 429)
                    self._on_failure(request, exc, time.perf_counter() - sent)
                else:
                    self._state.observe(ticket, reply.quota)
                    self._state.succeeded()
                    return reply
            text = str(error)
            if error.retry_after is not None:
                # The server said when to come back: waiting is pacing, not failing.
                rate_limit_wait += error.retry_after
                will_retry = error.retryable and rate_limit_wait <= limits.max_rate_limit_wait_s
            else:
                identical = identical + 1 if text == last_text else 1
                will_retry = (
                    error.retryable
                    and retries < limits.max_retries
                    and identical < limits.max_identical_failures
                )
            last_text = text
            self._state.failed(error, will_retry=will_retry)
            if not will_retry:
                raise error
            if error.retry_after is None:
                retries += 1
                await self._state.backoff(retries)

    async def aclose(self) -> None:
        await self._inner.aclose()
