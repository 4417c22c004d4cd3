"""Why a trial failed, in a few words a summary can count.

A trial's stored ``error`` is the full message (provider, HTTP status, the server's words); the
summary counts failures by a short reason read from it, so a user sees at once whether a run
lost trials to timeouts, to a server that kept failing or to judges that never answered in
the requested form. A trial whose responder call failed is stored as failed too: the run goes
on with the other scenarios instead of stopping.
"""

from __future__ import annotations

import re

from fairpanel.judging.experiment._design import TrialSpec
from fairpanel.judging.protocol._records import TrialRecord

__all__ = [
    "FAILURE_REASONS",
    "MANIPULATION_REFUSED",
    "RESPONDER_FAILED",
    "failure_reason",
    "manipulation_refused",
    "responder_failed",
]

RESPONDER_FAILED = "responder call failed"
MANIPULATION_REFUSED = "manipulation refused"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("rate_limited", re.compile(r"\bHTTP 429\b")),
    ("server_error", re.compile(r"\bHTTP 5\d\d\b")),
    ("client_error", re.compile(r"\bHTTP 4\d\d\b")),
    # APITimeoutError subclasses APIConnectionError in both SDKs: test for it first.
    ("timeout", re.compile(r"Timeout", re.IGNORECASE)),
    ("connection", re.compile(r"Connection|RemoteProtocol|disconnected", re.IGNORECASE)),
    ("bad_response", re.compile(r"unusable response|no text content|no content list")),
    ("no_valid_answer", re.compile(r"gave a valid final answer|gave no valid answer")),
    ("manipulation_refused", re.compile(rf"^{MANIPULATION_REFUSED}:")),
)
FAILURE_REASONS = (*(name for name, _ in _PATTERNS), "other")
"""Every reason ``failure_reason`` can return."""


def failure_reason(error: str | None) -> str:
    """The short reason of a failed trial's error message (``other`` when none fits)."""
    for name, pattern in _PATTERNS:
        if error and pattern.search(error):
            return name
    return "other"


def _failed_before_judging(spec: TrialSpec, error: str) -> TrialRecord:
    """The record of a trial that failed before any judge was asked: no turns, no consensus."""
    return TrialRecord(
        key=spec.key(),
        protocol=spec.protocol,
        spec=spec.model_dump(mode="json"),
        status="failed",
        error=error,
        consensus=None,
        turns=[],
    )


def responder_failed(spec: TrialSpec, error: Exception) -> TrialRecord:
    """The record of a trial that could not start because its responses could not be written."""
    return _failed_before_judging(spec, f"{RESPONDER_FAILED}: {error}")


def manipulation_refused(spec: TrialSpec, reason: str) -> TrialRecord:
    """The record of a manipulated twin whose model-written text failed its check (a rewrite
    that missed its length or dropped content): never shown to the judges, never scored."""
    return _failed_before_judging(spec, f"{MANIPULATION_REFUSED}: {reason}")
