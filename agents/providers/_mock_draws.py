"""Numbers the mock draws from what it is asked: every draw is a hash of named parts, so an
answer is a pure function of its request and a re-run reproduces it."""

from __future__ import annotations

import hashlib
from statistics import NormalDist

__all__ = ["normal", "pick", "unit"]

_STANDARD_NORMAL = NormalDist()


def unit(*parts: str) -> float:
    """A uniform number in [0, 1) derived from ``parts``."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def pick(n: int, *parts: str) -> int:
    return int(unit(*parts) * n)


def normal(*parts: str) -> float:
    """A standard normal number derived from ``parts`` (the inverse CDF of a hashed uniform,
    kept off 0 and 1)."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return _STANDARD_NORMAL.inv_cdf((int.from_bytes(digest[:8], "big") + 0.5) / 2**64)
