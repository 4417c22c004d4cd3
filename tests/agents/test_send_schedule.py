"""The send schedule against simulated sliding-window servers on a fake clock: whether a server
counts a request on arrival (as real APIs do) or after processing it (as the fake servers do),
a steady delay lets each request be counted just after the slot it reuses frees, where waiting
for the reply would lose a round trip per window; delays that vary cost few 429s."""

from __future__ import annotations

import heapq
import math
import random
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest
from helpers.fake_clock import Clock, install_clock

from fairpanel.agents import QuotaReading, QuotaWindow
from fairpanel.agents._quota import QuotaGate, QuotaTicket
from fairpanel.agents._send_log import MARGIN_S

WINDOW = 10.0
LIMIT = 20
IN_FLIGHT = 8
CALLS = 1000
"""Fifty windows' worth, so every later window reuses the slots of the one before."""

Delay = Callable[[random.Random], float]


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return install_clock(monkeypatch)


@dataclass
class Run:
    rejected: int = 0
    lags: list[float] = field(default_factory=list)
    """For each request counted in a full window, how long after its slot freed."""
    finished_at: float = 0.0


def _simulate(clock: Clock, to_count: Delay, to_reply: Delay, seed: int = 7) -> Run:
    """CALLS requests, IN_FLIGHT at a time, each sent as soon as the gate admits it, against a
    server counting at most LIMIT in any WINDOW: ``to_count`` after its send (a 429 instead
    when full) and replying ``to_reply`` after that with the quota headers' reading."""
    rng, gate, run = random.Random(seed), QuotaGate(), Run()
    counts: list[float] = []
    events: list[tuple[float, int, str, QuotaTicket, QuotaReading | None]] = []
    order, pending, open_, done = 0, CALLS, 0, 0

    def push(at: float, kind: str, ticket: QuotaTicket, reading: QuotaReading | None) -> None:
        nonlocal order
        order += 1
        heapq.heappush(events, (at, order, kind, ticket, reading))

    while done < CALLS:
        while pending and open_ < IN_FLIGHT and gate._ready_at(0, clock.now) <= clock.now:
            push(clock.now + to_count(rng), "count", gate.issue(1), None)
            pending, open_ = pending - 1, open_ + 1
        wake = gate._ready_at(0, clock.now) if pending and open_ < IN_FLIGHT else math.inf
        clock.now = min(wake, events[0][0] if events else math.inf)
        assert math.isfinite(clock.now), "stuck"
        while events and events[0][0] <= clock.now:
            at, _, kind, ticket, reading = heapq.heappop(events)
            if kind == "count":
                live = [count for count in counts[-LIMIT:] if count > at - WINDOW]
                counted = len(live) < LIMIT
                if counted:
                    if len(counts) >= LIMIT:
                        run.lags.append(at - (counts[-LIMIT] + WINDOW))
                    counts.append(at)
                    live.append(at)
                # The reset travels as a duration from the count; read on arrival, it ends
                # the reply's delay later than the slot frees.
                delay = to_reply(rng)
                reset_at = live[0] + WINDOW + delay
                window = QuotaWindow(remaining=LIMIT - len(live), reset_at=reset_at, limit=LIMIT)
                push(
                    at + delay, "reply" if counted else "429", ticket, QuotaReading(requests=window)
                )
                continue
            gate.observe(ticket, reading, counted=kind == "reply")
            gate.release(ticket)
            open_ -= 1
            if kind == "reply":
                done += 1
            else:
                run.rejected += 1
                pending += 1
    run.finished_at = clock.now
    return run


def steady(seconds: float) -> Delay:
    return lambda rng: seconds


def varying(low: float, high: float) -> Delay:
    return lambda rng: rng.uniform(low, high)


@pytest.mark.parametrize(
    ("to_count", "to_reply"),
    [(steady(0.005), steady(0.2)), (steady(0.2), steady(0.005))],
    ids=["counted on arrival", "counted after processing"],
)
def test_a_steady_server_counts_each_request_just_after_its_slot_frees(
    clock: Clock, to_count: Delay, to_reply: Delay
) -> None:
    run = _simulate(clock, to_count, to_reply)
    assert run.rejected == 0
    # Sent when the reply it replaces came, each would be counted a round trip (0.205 s)
    # late, and the 49 turns of the window would add ten seconds.
    assert 0 <= statistics.median(run.lags) <= 2 * MARGIN_S
    turns = CALLS // LIMIT - 1
    assert run.finished_at < turns * (WINDOW + 2 * MARGIN_S) + 1.0


@pytest.mark.parametrize(
    ("to_count", "to_reply"),
    [(varying(0.05, 2.0), steady(0.005)), (steady(0.005), varying(0.1, 3.0))],
    ids=["processing varies before the count", "generation varies after the count"],
)
def test_a_server_whose_delays_vary_answers_few_429s(
    clock: Clock, to_count: Delay, to_reply: Delay
) -> None:
    run = _simulate(clock, to_count, to_reply)
    assert run.rejected <= CALLS // 100
