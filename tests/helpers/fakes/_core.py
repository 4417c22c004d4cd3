"""Faults, reply functions, the fake tokenizer and the sliding-window rate limiter."""

from __future__ import annotations

import hashlib
import json
import math
import re
import secrets
import string
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import Any, Final, Literal, TypeAlias, get_args

FaultKind: TypeAlias = Literal[
    "rate_limit",
    "server_error",
    "overloaded",
    "timeout",
    "reset",
    "malformed",
    "empty",
    "wrong_shape",
    "truncated",
]
_FAULT_KINDS: Final[frozenset[str]] = frozenset(get_args(FaultKind))


@dataclass(frozen=True)
class Fault:
    """A failure the fake server should produce instead of a normal answer.

    ``retry_after`` (seconds) is only used by ``rate_limit``: it is sent as ``retry-after``
    (an integer when the value is whole, else a decimal, which both SDKs accept) and, on the
    OpenAI server, also as ``retry-after-ms``.  ``None`` sends no retry headers at all.
    ``status`` overrides the HTTP status of the fault (e.g. 503 for ``server_error``, or 502
    for ``malformed`` to mimic a proxy page); ``reset`` and ``timeout`` ignore it.
    """

    kind: FaultKind
    retry_after: float | None = None
    status: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in _FAULT_KINDS:
            raise ValueError(
                f"unknown fault kind {self.kind!r}; expected one of {sorted(_FAULT_KINDS)}"
            )
        if self.retry_after is not None and not (
            math.isfinite(self.retry_after) and self.retry_after >= 0
        ):
            raise ValueError(f"retry_after must be a finite number >= 0, got {self.retry_after}")
        if self.status is not None and not 100 <= self.status <= 599:
            raise ValueError(f"status must be an HTTP status code, got {self.status}")


ReplyFn: TypeAlias = Callable[[dict[str, Any]], str | Fault]
"""Maps a parsed request body to the assistant text or a :class:`Fault`.

Called from the server's handler threads, possibly concurrently: it must be thread-safe.
"""

# --------------------------------------------------------------------------- text helpers

_WORD_RE: Final = re.compile(r"\S+")
_FILLER_WORDS: Final = (
    "amber", "basil", "cedar", "delta", "ember", "fjord", "grove", "harbor",
    "indigo", "juniper", "kelp", "lumen", "maple", "nectar", "opal", "prairie",
)  # fmt: skip


def count_tokens(text: str) -> int:
    """The fake tokenizer: one token per whitespace-separated word."""
    return len(text.split())


def truncate_to_tokens(text: str, max_tokens: int) -> tuple[str, bool]:
    """Cut ``text`` after its ``max_tokens``-th word; returns (text, was_truncated)."""
    words = list(islice(_WORD_RE.finditer(text), max_tokens + 1))
    if len(words) <= max_tokens:
        return text, False
    end = words[max_tokens - 1].end() if max_tokens > 0 else 0
    return text[:end], True


def cut_at_stop_sequence(text: str, stops: Iterable[str]) -> tuple[str, str | None]:
    """Cut ``text`` before the earliest stop sequence; returns (text, matched_sequence)."""
    best: tuple[int, str] | None = None
    for stop in stops:
        index = text.find(stop) if stop else -1
        if index >= 0 and (best is None or index < best[0]):
            best = (index, stop)
    if best is None:
        return text, None
    return text[: best[0]], best[1]


def default_reply_text(body: Mapping[str, Any]) -> str:
    """The deterministic reply used when no reply function is given (or for faults that
    still answer, like ``timeout`` and ``truncated``): derived from a hash of the request's
    ``system`` and ``messages`` fields, so equal conversations get equal replies."""
    payload = {"system": body.get("system"), "messages": body.get("messages")}
    encoded = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    digest = hashlib.sha256(encoded.encode("utf-8")).digest()
    words = " ".join(_FILLER_WORDS[b % len(_FILLER_WORDS)] for b in digest[:8])
    return f"Fake reply {digest.hex()[:12]}: {words}."


def random_id(prefix: str, length: int) -> str:
    alphabet = string.ascii_letters + string.digits
    return prefix + "".join(secrets.choice(alphabet) for _ in range(length))


def format_seconds(seconds: float) -> str:
    """``2.0`` -> ``"2"``, ``0.25`` -> ``"0.25"`` (header-friendly, no exponent)."""
    if seconds == int(seconds):
        return str(int(seconds))
    return f"{seconds:.3f}".rstrip("0").rstrip(".")


def message_text(content: object) -> str:
    """The plain text of a message ``content`` (a string or a list of content blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for block in content:
            if isinstance(block, dict):
                text = block.get("text")
                if isinstance(text, str):
                    parts.append(text)
                elif "content" in block:  # e.g. Anthropic tool_result
                    parts.append(message_text(block["content"]))
        return "\n".join(parts)
    return ""


# --------------------------------------------------------------------------- rate limiting


@dataclass(frozen=True)
class LimitDecision:
    allowed: bool
    limit: int
    remaining: int
    reset_after: float  # seconds until the oldest request in the window leaves it

    @property
    def retry_after(self) -> float:
        """``reset_after`` in whole seconds, rounded up (what the real APIs send)."""
        return float(max(1, math.ceil(self.reset_after)))


class SlidingWindowLimiter:
    """A sliding-window-log limiter: at most ``limit`` accepted requests in any ``window``.

    Rejected requests do not consume quota.  Thread-safe.
    """

    def __init__(
        self, limit: int, window: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if limit < 1:
            raise ValueError(f"rate limit must be >= 1 request per window, got {limit}")
        self.limit = limit
        self.window = window
        self._clock = clock
        self._accepted: deque[float] = deque()
        self._lock = threading.Lock()

    def acquire(self) -> LimitDecision:
        with self._lock:
            now = self._clock()
            while self._accepted and self._accepted[0] <= now - self.window:
                self._accepted.popleft()
            allowed = len(self._accepted) < self.limit
            if allowed:
                self._accepted.append(now)
            reset_after = self._accepted[0] + self.window - now if self._accepted else 0.0
            return LimitDecision(
                allowed=allowed,
                limit=self.limit,
                remaining=self.limit - len(self._accepted),
                reset_after=max(reset_after, 0.0),
            )
