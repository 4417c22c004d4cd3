"""The store's record of which replica answered and which failed (``agents.FailureLog``).

Every stored call names the replica that answered it (``calls.replica``) and every failed
attempt is a row of ``call_failures``, so the per-replica numbers of a run folder are read
from the store: they count every invocation on the folder, a resumed run's included.

Latency is the seconds an online call took to be answered; a batch's calls have none (they
are answered hours later, together), so they count as calls but not in the latency.
"""

from __future__ import annotations

import math
import sqlite3
from collections import defaultdict
from datetime import UTC, datetime
from typing import Any

from fairpanel.agents import FailedAttempt, redact

__all__ = ["NOT_RECORDED", "ReplicaRecords", "quantile"]

NOT_RECORDED = "(not recorded)"
"""The replica of calls stored before fairpanel recorded it (store schema 6 and older)."""


def quantile(ordered: list[float], share: float) -> float:
    """The ``share`` quantile of sorted values, interpolated between the two nearest ranks
    (the common default: numpy's ``linear``, R's type 7)."""
    position = share * (len(ordered) - 1)
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _latency(seconds: list[float]) -> dict[str, float] | None:
    if not seconds:
        return None
    ordered = sorted(seconds)
    return {
        "mean": round(sum(ordered) / len(ordered), 4),
        "p50": round(quantile(ordered, 0.5), 4),
        "p95": round(quantile(ordered, 0.95), 4),
    }


class ReplicaRecords:
    """Failed attempts, and the per-replica numbers of calls and failures."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def put_failure(self, failure: FailedAttempt) -> None:
        self._db.execute(
            "INSERT INTO call_failures (call_key, model, replica, kind, status, latency_s, "
            "error, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                failure.call_key,
                failure.model,
                redact(failure.replica),
                failure.kind,
                failure.status,
                failure.latency_s,
                redact(failure.error),
                datetime.now(UTC).isoformat(timespec="seconds"),
            ),
        )

    def summary(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Per model, per replica: calls answered, failed attempts (in all and by kind) and
        the latency (mean, p50, p95 in seconds; None without an online call)."""
        latencies: dict[tuple[str, str], list[float]] = defaultdict(list)
        calls: dict[tuple[str, str], int] = defaultdict(int)
        for model, replica, latency, batch_id in self._db.execute(
            "SELECT model, replica, latency_s, batch_id FROM calls"
        ):
            where = (str(model), NOT_RECORDED if replica is None else str(replica))
            calls[where] += 1
            if batch_id is None:
                latencies[where].append(float(latency))
        failures: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
        for model, replica, kind, count in self._db.execute(
            "SELECT model, replica, kind, COUNT(*) FROM call_failures "
            "GROUP BY model, replica, kind ORDER BY kind"
        ):
            failures[str(model), str(replica)][str(kind)] = int(count)
        found: dict[str, dict[str, dict[str, Any]]] = {}
        for model, replica in sorted({*calls, *failures}):
            kinds = failures.get((model, replica), {})
            found.setdefault(model, {})[replica] = {
                "calls": calls.get((model, replica), 0),
                "failures": sum(kinds.values()),
                "failures_by_kind": kinds,
                "latency_s": _latency(latencies.get((model, replica), [])),
            }
        return found
