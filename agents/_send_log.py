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

Waiting for the reply is safe but late: a request is counted somewhere between its send and its
reply (real APIs count on arrival and reply after generating; the fake servers count after their
latency), so a request sent when the reply came is counted a round trip's worth after its slot
freed, and a sliding window carries that lag into every later window. Each reading also tells
the window in send terms: ``reset`` minus the oldest's send, less the reporting request's own
round trip, is one window plus the oldest's send-to-count delay less the reporting request's.
While those agree (the delay from send to count is steady, whatever the delay from count to
reply), a request sent one window plus a margin after the send it replaces is counted about
that margin after the slot frees; when they spread, the margin widens with them and the reply
schedule, never later, takes over. The reply schedule itself counts every request still
unanswered as holding a slot (replies overtake each other when the delays vary). A 429 while
the log explains the replies doubles the margin of both schedules for the rest of the run, so
a server whose delays change at once costs a few 429s, not some in every window.
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
MARGIN_S = 0.02
"""How long after the slot frees (by the send-time estimate) a request is aimed to be counted,
before the delays' spread or a 429 widens it."""
MAX_MARGIN_S = 60.0
_KEPT_READINGS = 8
_KEPT_ARRIVALS = 32
_MIN_KEPT = 1024


class SendLog:
    """One endpoint's attempts the server may have counted (all but those answered 429), in
    send order, with when each was sent and answered, and the window the replies imply."""

    def __init__(self) -> None:
        self._seqs: list[int] = []
        self._sent: list[float] = []
        self._answered: list[float] = []
        """Arrival of each reply; ``inf`` while the attempt is in flight."""
        self._replies: list[float] = []
        """The same arrivals sorted (replies overtake each other), without the in-flight."""
        self._in_flight = 0
        """Logged attempts in flight (their ``_answered`` is ``inf``)."""
        self._keep = _MIN_KEPT
        self._limit: int | None = None
        self._windows: deque[float] = deque(maxlen=_KEPT_READINGS)
        """Window learnt from each recent reading: reset minus the oldest reply's arrival."""
        self._spans: deque[float] = deque(maxlen=_KEPT_READINGS)
        """The same from the oldest's send: one window plus the latency to the count."""
        self._arrivals: deque[float] = deque(maxlen=_KEPT_ARRIVALS)
        """Window learnt in send terms from each recent reading with nothing earlier in
        flight: reset minus the oldest's send, less the reporting request's round trip (one
        window plus the oldest's send-to-count delay less the reporting request's)."""
        self._trips: deque[float] = deque(maxlen=_KEPT_ARRIVALS)
        """Round trips of the recent replies, for the quickest."""
        self._margin = MARGIN_S
        self._widened_at = -math.inf
        """When a 429 last widened the margin (requests sent before then had the old one)."""
        """Least margin of the send schedule (and, past ``MARGIN_S``, delay of the reply
        schedule); doubled by each 429 either may have caused."""
        self.excess = 0
        """Requests the newest reading counted beyond this client's in the last window."""
        self.explained = False
        """Whether the newest reading matched the log (so ``next_at`` applies)."""

    def sent(self, seq: int, at: float) -> None:
        """Log an attempt as sent (sequence numbers increase)."""
        self._seqs.append(seq)
        self._sent.append(at)
        self._answered.append(math.inf)
        self._in_flight += 1
        if len(self._seqs) > 4 * self._keep:
            self._in_flight -= self._answered[: -self._keep].count(math.inf)
            for column in (self._seqs, self._sent, self._answered, self._replies):
                del column[: -self._keep]

    def answered(self, seq: int, at: float, *, counted: bool) -> None:
        """The attempt's reply arrived at ``at``; ``counted`` is false for a 429 (the server
        refused it, so it holds no slot)."""
        index = self._index(seq)
        if index is None:
            return
        if math.isinf(self._answered[index]):
            self._in_flight -= 1
        if counted:
            self._answered[index] = at
            bisect.insort(self._replies, at)
            self._trips.append(at - self._sent[index])
        else:
            if self.explained and self._sent[index] >= self._widened_at:
                # Maybe sent too soon by the schedule: aim later from now on (the requests
                # already in flight went with the old margin, so their 429s widen it no more).
                self._margin = min(2 * self._margin, MAX_MARGIN_S)
                self._widened_at = at
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
            self._clear()
        oldest = max(0, newest - (counted - 1) - unanswered)
        window = reset_at - self._answered[oldest]
        if math.isinf(window):
            self.explained = False
            return
        if self._windows and window < min(self._windows) - WINDOW_SPREAD_S:
            # Counted fewer than the log says: the server forgets requests sooner than one
            # window after it counted them (its reset means something else).
            self._clear()
        if not self._windows or window <= min(self._windows) + WINDOW_SPREAD_S:
            # (A longer window only means the oldest was taken too far back, past a pause in
            # the sends; whether other clients' requests are counted, the count tells.)
            self._windows.append(window)
            self._spans.append(reset_at - self._sent[oldest])
            if unanswered == 0:
                round_trip = now - self._sent[newest]
                self._arrivals.append(reset_at - self._sent[oldest] - round_trip)
        self.excess = counted - self.recent(now - min(self._spans))
        self.explained = len(self._arrivals) > 1 and self.excess <= COUNT_SLACK

    def _clear(self) -> None:
        self._windows.clear()
        self._spans.clear()
        self._arrivals.clear()

    def recent(self, since: float) -> int:
        """How many logged attempts were sent after ``since``."""
        return len(self._sent) - bisect.bisect_right(self._sent, since)

    def next_at(self) -> float | None:
        """When the next request may go by the server's own rule (``-inf``: at once; ``inf``:
        once a reply arrives), or ``None`` when the replies do not match the log."""
        if not self.explained or self._limit is None:
            return None
        back = len(self._answered) - self._limit
        if back < 0:
            return -math.inf
        # A slot may be taken once all but ``limit - 1`` of the logged requests were answered
        # one window ago (each was counted before its reply), whatever order they came in.
        answered = self._limit - self._in_flight
        replied = self._replies[-answered] if 0 < answered <= len(self._replies) else math.inf
        arrivals = self._arrivals
        # Each shortest estimate undercounts the window by its delays' spread (from send to
        # count, or from count to reply); the longer of the two is the closer. A reply, which
        # comes after the count, sent one window before is then safe; one send earlier is too,
        # aimed a margin past the window that covers the spread of the send-to-count delays.
        window = max(min(self._windows), min(arrivals))
        margin = max(self._margin, max(arrivals) - min(arrivals))
        # (A spread or a 429 that widens the margin delays the reply schedule as much: a
        # request counted out of send order shortens every reading of the window.)
        by_reply = replied + window + margin - MARGIN_S
        if math.isinf(self._answered[back]):
            return by_reply  # counted at any time until its reply: that tells when it frees
        # A request answered later than the quickest was likely counted later too, by up to
        # the difference (or generated longer after its count: then waiting is only safe).
        quickest = min(self._trips, default=0.0)
        start = max(self._sent[back], self._answered[back] - quickest)
        return min(by_reply, start + window + margin)
