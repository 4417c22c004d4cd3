"""What a provider says about its rate limits on every reply, and pacing from it.

OpenAI and Anthropic put the quota left and the time it comes back on every response:
OpenAI as ``x-ratelimit-{limit,remaining,reset}-{requests,tokens}`` (the reset a Go-style
duration such as ``1s``, ``6m0s`` or ``120ms``), Anthropic as
``anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}`` (the reset an RFC 3339
timestamp). A client that only knows a configured requests-per-minute must pace smoothly below
it and leaves quota unused; one that reads the headers can spend what is left at once and wait
exactly as long as the server says when nothing is left. The configured limits stay the
fallback for servers that send no such headers (vLLM, llama.cpp, most gateways).

``QuotaGate`` is that pacing for one endpoint. Its rule: an attempt may start while the newest
reading's ``remaining`` exceeds what was started after the attempt that brought the reading
(the server cannot have counted those yet); when nothing is left, wait for the reset the server
named, then send one attempt alone and let its reply tell how much came back. "Reset" means
"fully replenished" to OpenAI and Anthropic and "the next slot frees" to a sliding-window
server; waiting for it and then probing once is right for both. When the replies show a
sliding window that this client's own requests fill (``_send_log``), it need not probe: each
slot frees one window after the request that took it, so it sends at that pace.
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from aiolimiter import AsyncLimiter
from pydantic import BaseModel, ConfigDict

from fairpanel.agents._send_log import SendLog

__all__ = [
    "QuotaGate",
    "QuotaReading",
    "QuotaTicket",
    "QuotaWindow",
    "duration_seconds",
    "quota_from_headers",
    "spent_until",
    "timestamp_seconds",
]

MAX_RESET_S = 600.0
"""A longer reset is clamped (as Retry-After is): a daily quota's reset would stop the run."""

_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")
_UNIT_S = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


class QuotaWindow(BaseModel):
    """One quota (requests or tokens) as a reply reported it.

    ``reset_at`` is on the ``time.monotonic()`` clock, fixed when the headers were read, so a
    reading can be compared with later ones without knowing when it arrived.
    """

    model_config = ConfigDict(frozen=True)

    remaining: int
    reset_at: float
    limit: int | None = None


class QuotaReading(BaseModel):
    """The request and token quotas one reply reported; either may be absent."""

    model_config = ConfigDict(frozen=True)

    requests: QuotaWindow | None = None
    tokens: QuotaWindow | None = None


def duration_seconds(text: str) -> float | None:
    """Seconds in a Go-style duration (``1s``, ``6m0s``, ``1h2m3.5s``, ``120ms``) or a bare
    number of seconds; ``None`` when ``text`` is anything else."""
    text = text.strip()
    try:
        return float(text) if text and text[-1].isdigit() else _go_duration(text)
    except ValueError:
        return None


def _go_duration(text: str) -> float | None:
    total, position = 0.0, 0
    for part in _DURATION_PART.finditer(text):
        if part.start() != position:
            return None
        total += float(part.group(1)) * _UNIT_S[part.group(2)]
        position = part.end()
    return total if text and position == len(text) else None


def timestamp_seconds(text: str) -> float | None:
    """Seconds from now until an RFC 3339 timestamp (negative when past); ``None`` when
    ``text`` is not one with a UTC offset.

    A timestamp in whole seconds (Anthropic's) may name the second the reset falls in, so it
    counts as the end of that second: waiting up to a second longer beats a 429 for coming
    back early.
    """
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    whole_second = when.microsecond == 0 and "." not in text and "," not in text
    return when.timestamp() + (1.0 if whole_second else 0.0) - time.time()


def _count(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        value = int(text.strip())
    except ValueError:
        return None
    return value if value >= 0 else None


def _window(
    headers: Mapping[str, str],
    names: tuple[str, str, str],
    seconds_of: Callable[[str], float | None],
    now: float,
) -> QuotaWindow | None:
    """The quota under ``names`` (limit, remaining, reset), or ``None`` unless both the
    remaining count and the reset are readable (one without the other cannot pace)."""
    limit_name, remaining_name, reset_name = names
    remaining = _count(headers.get(remaining_name))
    reset_text = headers.get(reset_name)
    if remaining is None or reset_text is None:
        return None
    seconds = seconds_of(reset_text)
    if seconds is None or not math.isfinite(seconds):
        return None
    reset_at = now + min(max(seconds, 0.0), MAX_RESET_S)
    return QuotaWindow(
        remaining=remaining, reset_at=reset_at, limit=_count(headers.get(limit_name))
    )


def _names(style: str, kind: str) -> tuple[str, str, str]:
    """The (limit, remaining, reset) header names of one quota in one provider's style."""
    if style == "openai":
        return (
            f"x-ratelimit-limit-{kind}",
            f"x-ratelimit-remaining-{kind}",
            f"x-ratelimit-reset-{kind}",
        )
    prefix = f"anthropic-ratelimit-{kind}"
    return (f"{prefix}-limit", f"{prefix}-remaining", f"{prefix}-reset")


_STYLES: tuple[tuple[str, Callable[[str], float | None]], ...] = (
    ("openai", duration_seconds),
    ("anthropic", timestamp_seconds),
)
_HEADER_NAMES = {
    (style, kind): _names(style, kind) for style, _ in _STYLES for kind in ("requests", "tokens")
}


def quota_from_headers(headers: Mapping[str, str] | None) -> QuotaReading | None:
    """The quotas in a response's headers (OpenAI's or Anthropic's names; httpx headers are
    looked up case-insensitively), or ``None`` when they report none. Malformed values are
    ignored: a quota is kept only when its remaining count and reset both parse."""
    if headers is None:
        return None
    now = time.monotonic()
    found: dict[str, QuotaWindow] = {}
    for style, seconds_of in _STYLES:
        for kind in ("requests", "tokens"):
            names = _HEADER_NAMES[style, kind]
            if kind not in found and names[1] in headers:
                window = _window(headers, names, seconds_of, now)
                if window is not None:
                    found[kind] = window
    return QuotaReading(**found) if found else None


def spent_until(reading: QuotaReading | None) -> float | None:
    """When the quotas ``reading`` reports as spent (0 remaining) come back (``monotonic``
    clock), or ``None`` when it reports none spent.

    A 429's Retry-After is rounded up to whole seconds; the reset in the same reply is not,
    so waiting for the reset instead saves up to a second at each window boundary.
    """
    if reading is None:
        return None
    resets = [
        window.reset_at
        for window in (reading.requests, reading.tokens)
        if window is not None and window.remaining == 0
    ]
    return max(resets) if resets else None


@dataclass(slots=True)
class _Meter:
    """One quota's newest reading and what was spent since the attempt that brought it."""

    window: QuotaWindow | None = None
    seq: int = -1
    """Sequence number of the attempt whose reply gave ``window``; older replies are stale."""
    spent_at_reading: int = 0
    """``spent`` right after that attempt started (its own cost included)."""
    spent: int = 0
    observed_at: float = -math.inf
    """When the reply that gave ``window`` arrived."""
    previous: tuple[int, int] | None = None
    """The previous reading's ``remaining`` and ``spent_at_reading``, while it may be newer on
    the server's side: its attempt was answered after this reading's attempt was sent, so the
    server may have counted it after this one and it is in neither count (replies overtake)."""

    def read(self, window: QuotaWindow, ticket_seq: int, mark: int, *, sent_at: float) -> None:
        """Take the reading an attempt sent at ``sent_at`` brought."""
        previous = self.window
        self.previous = None
        if previous is not None and self.observed_at > sent_at:
            self.previous = (previous.remaining, self.spent_at_reading)
        self.window, self.seq, self.spent_at_reading = window, ticket_seq, mark
        self.observed_at = time.monotonic()

    def ready_at(self, cost: int, now: float, idle: bool, log: SendLog | None = None) -> float:
        """When an attempt costing ``cost`` may start: ``now`` or earlier means at once,
        ``inf`` means "after the next reply"."""
        window = self.window
        if window is None:
            return now
        if window.limit is not None:
            cost = min(cost, window.limit)  # else a huge request could never start
        unreflected = self.spent - self.spent_at_reading
        room = window.remaining - unreflected
        if self.previous is not None:
            remaining, mark = self.previous
            room = min(room, remaining - (self.spent - mark))
        if room >= cost:
            return now
        if now < window.reset_at:
            ready = window.reset_at
        else:
            # Reset has passed: some quota is back, but how much only a reply can tell. Send
            # one attempt alone; when none is in flight no reply can come, so probe again.
            ready = now if unreflected == 0 or idle else math.inf
        # Unless the replies show a sliding window this client's own send times explain.
        next_at = None if log is None else log.next_at()
        return ready if next_at is None else min(ready, next_at)


@dataclass(frozen=True, slots=True)
class QuotaTicket:
    """Where one attempt stands in the endpoint's sequence, to weigh its reply's reading."""

    seq: int
    tokens: int
    requests_mark: int
    tokens_mark: int
    issued_at: float = -math.inf


class QuotaGate:
    """Admits attempts on one endpoint from the quota its replies report (create inside the
    event loop). Until a quota has been reported, ``paces_requests`` / ``paces_tokens`` are
    false and the caller uses its configured limits instead.
    """

    def __init__(self) -> None:
        self._requests = _Meter()
        self._tokens = _Meter()
        self._issued = 0
        self._log = SendLog()
        self._open: dict[int, int] = {}
        """Attempts in flight: sequence number -> estimated tokens."""
        self._changed = asyncio.Event()
        self._reported = {"requests": asyncio.Event(), "tokens": asyncio.Event()}
        self.waits = 0

    @property
    def paces_requests(self) -> bool:
        return self._requests.window is not None

    @property
    def paces_tokens(self) -> bool:
        return self._tokens.window is not None

    async def configured(self, limiter: AsyncLimiter, amount: float, kind: str) -> bool:
        """Wait for the configured ``limiter`` (the fallback for ``kind``, "requests" or
        "tokens"); False when the server began reporting that quota meanwhile, so the caller
        paces from the report instead of waiting out the configured rate."""
        if limiter.has_capacity(amount):
            await limiter.acquire(amount)
            return True
        acquired = asyncio.ensure_future(limiter.acquire(amount))
        reported = asyncio.ensure_future(self._reported[kind].wait())
        try:
            await asyncio.wait((acquired, reported), return_when=asyncio.FIRST_COMPLETED)
        finally:
            reported.cancel()
            if not acquired.done():
                acquired.cancel()
        return acquired.done() and not acquired.cancelled()

    def _ready_at(self, tokens: int, now: float) -> float:
        idle = not self._open
        return max(
            self._requests.ready_at(1, now, idle, self._log),
            self._tokens.ready_at(tokens, now, idle),
        )

    async def admit(self, tokens: int) -> None:
        """Return once the reported quotas leave room for one attempt costing ``tokens``."""
        while (ready := self._ready_at(tokens, now := time.monotonic())) > now:
            self.waits += 1
            event = self._changed
            try:
                if math.isinf(ready):
                    await event.wait()
                else:
                    async with asyncio.timeout_at(ready):
                        await event.wait()
            except TimeoutError:
                pass

    def issue(self, tokens: int) -> QuotaTicket:
        """Count an attempt as started; call right after ``admit`` returns, with no await
        between, so no other attempt is admitted on the same room."""
        self._issued += 1
        self._open[self._issued] = tokens
        now = time.monotonic()
        self._log.sent(self._issued, now)
        self._requests.spent += 1
        self._tokens.spent += tokens
        return QuotaTicket(
            self._issued, tokens, self._requests.spent, self._tokens.spent, issued_at=now
        )

    def observe(
        self, ticket: QuotaTicket, reading: QuotaReading | None, *, counted: bool = True
    ) -> None:
        """Keep the quotas the reply to ``ticket``'s attempt reported, unless a reply to a
        later attempt already did (replies can overtake each other). ``counted`` is false
        when the server refused the attempt (429), so it took no slot of the quota.

        The reading counts neither the attempts started after this one nor, to be safe, the
        earlier ones still in flight: the server may have counted those after this one.
        """
        now = time.monotonic()
        self._log.answered(ticket.seq, now, counted=counted)
        if reading is None:
            return
        older = [tokens for seq, tokens in self._open.items() if seq < ticket.seq]
        for kind, meter, window, mark in (
            ("requests", self._requests, reading.requests, ticket.requests_mark - len(older)),
            ("tokens", self._tokens, reading.tokens, ticket.tokens_mark - sum(older)),
        ):
            if window is not None and ticket.seq > meter.seq:
                meter.read(window, ticket.seq, mark, sent_at=ticket.issued_at)
                self._reported[kind].set()
        requests = reading.requests
        if requests is not None and counted and self._requests.seq == ticket.seq:
            self._log.read(
                ticket.seq,
                requests.limit,
                requests.remaining,
                requests.reset_at,
                unanswered=len(older),
                now=now,
            )

    def release(self, ticket: QuotaTicket) -> None:
        """An attempt ended (however it ended): wake the callers waiting for room."""
        del self._open[ticket.seq]
        if self.paces_requests or self.paces_tokens:
            self._changed.set()
            self._changed = asyncio.Event()
