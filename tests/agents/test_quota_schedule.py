"""Scheduling from the quota headers on a fake clock: at a reset of a sliding window the gate
sends at the pace of one window earlier (from its own log of requests) instead of one lone
probe, falls back to the probe when the log does not explain the replies, and a 429 waits for
the reported reset rather than the rounded-up Retry-After."""

from __future__ import annotations

import math
import time

import pytest
from helpers.fake_clock import Clock, install_clock

from fairpanel.agents import EndpointLimits, ModelCallError, QuotaReading, QuotaWindow
from fairpanel.agents._limits import EndpointState
from fairpanel.agents._quota import QuotaGate, QuotaTicket
from fairpanel.agents._send_log import MARGIN_S, SendLog

WINDOW = 10.0
LATENCY = 0.2
"""The fake servers count a request after their latency, right before replying."""


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return install_clock(monkeypatch)


class SlidingServer:
    """The fake servers' rule: at most ``limit`` requests counted in any ``WINDOW``."""

    def __init__(self, limit: int, counted: list[float] | None = None) -> None:
        self.limit = limit
        self.counted = list(counted or [])

    def reading(self, now: float) -> tuple[bool, QuotaReading]:
        self.counted = [at for at in self.counted if at > now - WINDOW]
        allowed = len(self.counted) < self.limit
        if allowed:
            self.counted.append(now)
        window = QuotaWindow(
            remaining=self.limit - len(self.counted),
            reset_at=self.counted[0] + WINDOW,
            limit=self.limit,
        )
        return allowed, QuotaReading(requests=window)


def _answer(gate: QuotaGate, server: SlidingServer, clock: Clock, ticket: QuotaTicket) -> bool:
    allowed, reading = server.reading(clock.now)
    gate.observe(ticket, reading, counted=allowed)
    gate.release(ticket)
    return allowed


def _admit(gate: QuotaGate, clock: Clock) -> None:
    """``QuotaGate.admit`` on the fake clock: wake when told and look again."""
    while (ready := gate._ready_at(0, clock.now)) > clock.now:
        assert not math.isinf(ready), "waits for a reply"
        clock.now = ready


def _spend_first_window(gate: QuotaGate, server: SlidingServer, clock: Clock) -> None:
    """``limit`` requests 0.1 s apart, each answered after LATENCY, none in flight at the end."""
    for index in range(server.limit):
        clock.now = 0.1 * index
        ticket = gate.issue(1)
        clock.now += LATENCY
        assert _answer(gate, server, clock, ticket)


def test_at_a_reset_the_gate_sends_at_the_pace_of_one_window_earlier(clock: Clock) -> None:
    gate, server = QuotaGate(), SlidingServer(limit=4)
    _spend_first_window(gate, server, clock)
    clock.now = 1.0
    # Spent: the first slot frees one window after the server counted the first request,
    # LATENCY after its send; sent one window and a margin after that send, the next request
    # is counted the margin after the slot frees (from the reply it would be LATENCY after).
    assert gate._ready_at(0, clock.now) == pytest.approx(WINDOW + MARGIN_S)
    clock.now = WINDOW + MARGIN_S
    first = gate.issue(1)
    # With one request out and no reply yet, the next goes 0.1 s later, as the second request
    # was sent 0.1 s after the first (a lone probe would wait for the reply: inf).
    for index in range(1, 4):
        _admit(gate, clock)
        assert clock.now == pytest.approx(WINDOW + MARGIN_S + 0.1 * index)
        gate.issue(1)
    # A fifth would take the slot of a request not answered yet: when it frees, only its
    # reply can tell.
    assert math.isinf(gate._ready_at(0, clock.now))
    # Counted LATENCY after its send, the first request of the second window finds its slot
    # free by the margin.
    clock.now = WINDOW + MARGIN_S + LATENCY
    assert _answer(gate, server, clock, first)


def test_when_the_server_counts_other_requests_the_gate_probes_alone(clock: Clock) -> None:
    """Another client spent three slots of the same quota: the log does not explain the
    replies, so after the reset one request goes alone and the next waits for its reply."""
    gate, server = QuotaGate(), SlidingServer(limit=6, counted=[-0.5, -0.4, -0.3])
    for index in range(3):
        clock.now = 0.1 * index
        ticket = gate.issue(1)
        clock.now += LATENCY
        assert _answer(gate, server, clock, ticket)
    clock.now = 1.0
    reset = -0.5 + WINDOW
    assert gate._ready_at(0, clock.now) == pytest.approx(reset)
    clock.now = reset
    gate.issue(1)
    assert math.isinf(gate._ready_at(0, clock.now))


def test_a_reply_overtaken_by_an_earlier_attempts_reply_leaves_room_for_it(clock: Clock) -> None:
    """Attempt 1 was counted after attempt 2, but its reply came first: attempt 2's reading
    (remaining 6) does not count attempt 1, so it must not be taken at its word."""
    gate = QuotaGate()
    first, second = gate.issue(1), gate.issue(1)
    clock.now = 0.2
    gate.observe(first, QuotaReading(requests=QuotaWindow(remaining=5, reset_at=60.0)))
    gate.release(first)
    gate.observe(second, QuotaReading(requests=QuotaWindow(remaining=6, reset_at=60.0)))
    gate.release(second)
    admitted = 0
    while gate._ready_at(0, clock.now) <= clock.now and admitted < 10:
        gate.issue(1)
        admitted += 1
    assert 4 <= admitted <= 5  # 5 are left; 6 would be answered 429


def test_the_log_matches_a_sliding_window_and_tells_when_each_slot_frees() -> None:
    log = SendLog()
    for seq in range(1, 4):
        log.sent(seq, at=0.1 * seq)
        log.answered(seq, 0.1 * seq + LATENCY, counted=True)
        log.read(seq, 3, 3 - seq, 0.1 + LATENCY + WINDOW, unanswered=0, now=0.1 * seq + LATENCY)
    assert log.explained
    # One window and the margin after the first send: counted LATENCY later, the margin
    # after its slot frees.
    assert log.next_at() == pytest.approx(0.1 + WINDOW + MARGIN_S)
    log.sent(4, at=log.next_at() or 0.0)
    assert log.next_at() == pytest.approx(0.2 + WINDOW + MARGIN_S)
    log.sent(5, at=log.next_at() or 0.0)
    # A 429 holds no slot: the next goes in its place, and the margin doubles.
    log.answered(4, 10.5, counted=False)
    assert log.next_at() == pytest.approx(0.2 + WINDOW + 2 * MARGIN_S)
    # Not again for a request sent before that 429 came back: it went with the old margin.
    log.answered(5, 10.6, counted=False)
    assert log.next_at() == pytest.approx(0.1 + WINDOW + 2 * MARGIN_S)
    log.sent(6, at=10.7)
    log.answered(6, 10.9, counted=False)
    assert log.next_at() == pytest.approx(0.1 + WINDOW + 4 * MARGIN_S)


def test_a_bucket_refilling_at_a_steady_rate_is_not_taken_for_a_sliding_window() -> None:
    """OpenAI's reset is the time until the quota is full again: 0.1 s per request spent at
    600/min. Sent at 80/s, the server soon counts more requests than went in the last
    "window" the first replies seemed to show, and the log stops explaining them."""
    log = SendLog()
    events = sorted(
        [(0.0125 * seq, "send", seq) for seq in range(1, 41)]
        + [(0.0125 * seq + LATENCY, "reply", seq) for seq in range(1, 41)]
    )
    explained = []
    for now, kind, seq in events:
        if kind == "send":
            log.sent(seq, now)
            continue
        log.answered(seq, now, counted=True)
        log.read(seq, 600, 600 - seq, now + 0.1 * seq, unanswered=0, now=now)
        explained.append(log.explained)
    assert not any(explained[-10:]) and log.next_at() is None


def test_without_a_limit_header_the_log_explains_nothing() -> None:
    log = SendLog()
    log.sent(1, at=0.0)
    log.answered(1, 0.2, counted=True)
    log.read(1, None, 0, 10.2, unanswered=0, now=0.2)
    assert not log.explained and log.next_at() is None


async def test_a_429_waits_for_the_reported_reset_not_the_rounded_retry_after() -> None:
    state = EndpointState("fake", EndpointLimits())
    reset_at = time.monotonic() + 0.3
    error = ModelCallError(
        "HTTP 429",
        retryable=True,
        retry_after=1.0,  # the 0.3 s rounded up to whole seconds, as servers send it
        status=429,
        quota=QuotaReading(requests=QuotaWindow(remaining=0, reset_at=reset_at, limit=5)),
    )
    state.failed(error, will_retry=True)
    assert state._paused_until == pytest.approx(reset_at, abs=0.01)
    # A 429 that reports quota left (another limit was hit) keeps the Retry-After.
    left = QuotaReading(requests=QuotaWindow(remaining=3, reset_at=reset_at, limit=5))
    other = EndpointState("fake", EndpointLimits())
    before = time.monotonic()
    other.failed(
        ModelCallError("HTTP 429", retryable=True, retry_after=1.0, status=429, quota=left),
        will_retry=True,
    )
    assert other._paused_until - before == pytest.approx(1.0, abs=0.05)
    # So does one whose reported reset is already past (it cannot be what the 429 meant).
    past = QuotaReading(requests=QuotaWindow(remaining=0, reset_at=before - 1, limit=5))
    stale = EndpointState("fake", EndpointLimits())
    stale.failed(
        ModelCallError("HTTP 429", retryable=True, retry_after=1.0, status=429, quota=past),
        will_retry=True,
    )
    assert stale._paused_until - before == pytest.approx(1.0, abs=0.05)
