"""A clock the quota gate reads instead of ``time.monotonic``, moved by hand, so schedules
are tested on exact times and the tests take no time."""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest

from fairpanel.agents import _quota


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def install_clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """A ``Clock`` at 0 that the quota module reads from now on (wall time is left alone)."""
    fake = Clock()
    monkeypatch.setattr(_quota, "time", SimpleNamespace(monotonic=fake, time=time.time))
    return fake
