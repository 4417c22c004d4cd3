"""Seeded fault mixes for the fake provider servers, and request signatures.

``FaultMix`` is a reply function: each request's first ``transient_attempts`` arrivals may
get a fault drawn from the mix (so retries always get through in the end), and requests a
``persistent`` rule picks fail every time. Draws depend on the seed, the request's content and
how often that content has arrived, never on arrival order, so a mix replays identically
under concurrency. Set ``FAIRPANEL_FAULT_SEED`` / ``FAIRPANEL_FAULT_RATE`` to rerun the tests
with other seeds and rates.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from helpers.fakes import Fault, FaultKind

EVERY_FAULT: tuple[FaultKind, ...] = (
    "rate_limit",
    "server_error",
    "overloaded",
    "timeout",
    "reset",
    "malformed",
    "empty",
    "wrong_shape",
    "truncated",
)
SEED = int(os.environ.get("FAIRPANEL_FAULT_SEED", "7"))
RATE = float(os.environ.get("FAIRPANEL_FAULT_RATE", "0.3"))


def wire_messages(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of every message a request carries, system blocks first (both formats)."""
    found: list[tuple[str, str]] = []
    system = body.get("system")
    if isinstance(system, str):
        found.append(("system", system))
    elif isinstance(system, list):
        found += [("system", block.get("text", "")) for block in system]
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, list):
            content = "\n".join(block.get("text", "") for block in content)
        found.append((message.get("role", ""), str(content)))
    return found


def signature(body: dict[str, Any]) -> str:
    """What identifies one model call on the wire: its model and messages."""
    payload = json.dumps([body.get("model"), wire_messages(body)], ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def request_text(body: dict[str, Any]) -> str:
    return "\n".join(text for _, text in wire_messages(body))


class FaultMix:
    """A thread-safe reply function injecting seeded transient and persistent faults."""

    def __init__(
        self,
        answer: Callable[[dict[str, Any]], str],
        *,
        seed: int = SEED,
        rate: float = RATE,
        kinds: Sequence[FaultKind] = EVERY_FAULT,
        transient_attempts: int = 2,
        retry_after: float = 0.05,
        persistent: Callable[[dict[str, Any]], Fault | FaultKind | str | None] = lambda _: None,
    ) -> None:
        self._answer = answer
        self._seed = seed
        self._rate = rate
        self._kinds = tuple(kinds)
        self._transient_attempts = transient_attempts
        self._retry_after = retry_after
        self.persistent = persistent
        self._lock = threading.Lock()
        self._arrivals: Counter[str] = Counter()
        self.injected: Counter[str] = Counter()
        """Faults sent, by kind (``persistent:<kind>`` for the persistent ones)."""

    def _fault(self, kind: FaultKind) -> Fault:
        return Fault(kind, retry_after=self._retry_after if kind == "rate_limit" else None)

    def __call__(self, body: dict[str, Any]) -> str | Fault:
        key = signature(body)
        with self._lock:
            self._arrivals[key] += 1
            arrival = self._arrivals[key]
        forced = self.persistent(body)
        if isinstance(forced, Fault):
            with self._lock:
                self.injected[f"persistent:{forced.kind}"] += 1
            return forced
        if forced in EVERY_FAULT:
            with self._lock:
                self.injected[f"persistent:{forced}"] += 1
            return self._fault(forced)  # type: ignore[arg-type]
        if isinstance(forced, str):
            return forced  # a fixed (e.g. unusable) answer
        if arrival <= self._transient_attempts:
            draw = random.Random(f"{self._seed}|{key}|{arrival}")
            if draw.random() < self._rate:
                kind = draw.choice(self._kinds)
                with self._lock:
                    self.injected[kind] += 1
                return self._fault(kind)
        return self._answer(body)
