"""When a spent request quota comes back, told from this client's own requests.

A sliding-window server (at most ``limit`` requests in any window of W seconds, as the fake
servers and many gateways count) frees each slot exactly one window after it counted the
request that took it. A client that logs its own requests can hold the same rule itself: its
k-th request may go one window after the server counted its (k - limit)-th. At a reset it then
sends at the pace it sent one window before, instead of sending one request alone to learn how
much came back (and, one window later, again alone when that lone request's slot frees).

When the server counted a request is bounded by when its reply arrived. The window is learnt
from the replies: a reply reporting ``remaining`` of ``limit``, the oldest counted request
leaving at ``reset_at``, means the oldest counted request is this client's ``limit -
remaining``-th newest, and ``reset_at`` minus its reply's arrival is one window (less the time
between the count and the reply). Earlier requests still unanswered may not have been counted
yet, so the oldest is taken that many further back, which can only lengthen the window learnt.

The log explains the replies only while the windows learnt agree and the server counts no more
requests than this client sent in the last window. Another client spending the same quota, a
reset meaning something else (a bucket refilling at a steady rate), or replies whose arrival
says little about the count (long generations) break that; the caller then waits for the reset
and sends one request to learn what came back.
"""

from __future__ import annotations

import bisect
import math
from collections import deque

__all__ = ["SendLog"]

WINDOW_SPREAD_S = 0.3
"""How far the windows learnt from recent replies may spread and still explain them."""
COUNT_SLACK = 2
"""How many more requests than this client sent in the last window the server may count
(requests at the window's edge) before the replies show another client's."""
_KEPT_READINGS = 8
_MIN_KEPT = 1024


class SendLog:
    """One endpoint's attempts the server may have counted (all but those answered 429), in
    send order, with when each was sent and answered, and the window the replies imply."""

    def __init__(self) -> None:
        self._seqs: list[int] = []
        self._sent: list[float] = []
        self._answered: list[float] = []
        """Arrival of each reply; ``inf`` while the attempt is in flight."""
        self._keep = _MIN_KEPT
        self._limit: int | None = None
        self._windows: deque[float] = deque(maxlen=_KEPT_READINGS)
        """Window learnt from each recent reading: reset minus the oldest reply's arrival."""
        self._spans: deque[float] = deque(maxlen=_KEPT_READINGS)
        """The same from the oldest's send: one window plus the latency to the count."""
        self.excess = 0
        """Requests the newest reading counted beyond this client's in the last window."""
        self.explained = False
        """Whether the newest reading matched the log (so ``next_at`` applies)."""

    def sent(self, seq: int, at: float) -> None:
        """Log an attempt as sent (sequence numbers increase)."""
        self._seqs.append(seq)
        self._sent.append(at)
        self._answered.append(math.inf)
        if len(self._seqs) > 4 * self._keep:
            for column in (self._seqs, self._sent, self._answered):
                del column[: -self._keep]

    def answered(self, seq: int, at: float, *, counted: bool) -> None:
        """The attempt's reply arrived at ``at``; ``counted`` is false for a 429 (the server
        refused it, so it holds no slot)."""
        index = self._index(seq)
        if index is None:
            return
        if counted:
            self._answered[index] = at
        else:
            for column in (self._seqs, self._sent, self._answered):
                del column[index]

    def _index(self, seq: int) -> int | None:
        index = bisect.bisect_left(self._seqs, seq)
        return index if index < len(self._seqs) and self._seqs[index] == seq else None

    def read(
        self,
        seq: int,
        limit: int | None,
        remaining: int,
        reset_at: float,
        *,
        unanswered: int,
        now: float,
    ) -> None:
        """Match the reading the reply to attempt ``seq`` brought at ``now`` (``unanswered``
        earlier attempts still in flight) against the log; sets ``explained``."""
        newest = self._index(seq)
        counted = 0 if limit is None else limit - remaining
        if limit is None or counted <= 0 or newest is None or newest < counted - 1:
            self.explained = False  # no limit, or the server counts more than this log holds
            return
        if limit != self._limit:
            self._limit, self._keep = limit, max(_MIN_KEPT, 2 * limit)
            self._windows.clear()
            self._spans.clear()
        oldest = max(0, newest - (counted - 1) - unanswered)
        window = reset_at - self._answered[oldest]
        if math.isinf(window):
            self.explained = False
            return
        if self._windows and window < min(self._windows) - WINDOW_SPREAD_S:
            # Counted fewer than the log says: the server forgets requests sooner than one
            # window after it counted them (its reset means something else).
            self._windows.clear()
            self._spans.clear()
        if not self._windows or window <= min(self._windows) + WINDOW_SPREAD_S:
            # (A longer window only means the oldest was taken too far back, past a pause in
            # the sends; whether other clients' requests are counted, the count tells.)
            self._windows.append(window)
            self._spans.append(reset_at - self._sent[oldest])
        self.excess = counted - self.recent(now - min(self._spans))
        self.explained = len(self._windows) > 1 and self.excess <= COUNT_SLACK

    def recent(self, since: float) -> int:
        """How many logged attempts were sent after ``since``."""
        return len(self._sent) - bisect.bisect_right(self._sent, since)

    def next_at(self) -> float | None:
        """When the next request may go by the server's own rule (``-inf``: at once; ``inf``:
        once a reply arrives), or ``None`` when the replies do not match the log."""
        if not self.explained or self._limit is None:
            return None
        back = len(self._answered) - self._limit
        return -math.inf if back < 0 else self._answered[back] + min(self._windows)
