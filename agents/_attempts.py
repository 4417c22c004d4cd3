"""Every failed attempt at a call, kept with the replica it failed on.

A call that succeeds is stored with the replica that answered it; the attempts that failed
before it (a 500, a timeout, a reset connection) leave no call behind, yet they are what
tells a flaky server from a healthy one. Each endpoint's limiter reports every failed
attempt here, and a run hands them to its store, so the per-replica failure counts in the
summary cover every invocation on the run folder, not only the last.

Attempts a replica's guard refused without sending (the replica was out) are not failures
of that replica; the error text is redacted (``ModelCallError`` does so already, and a
plugin's error may not be one).
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, ConfigDict

from fairpanel.agents._limits import OnFailure
from fairpanel.agents._replicas import ReplicaOutError
from fairpanel.agents._secrets import redact
from fairpanel.agents._types import ModelCallError, ModelRequest

__all__ = ["AttemptFailures", "FailedAttempt", "FailureLog", "failure_kind"]

_ERROR_CHARS = 500
"""Error text kept per attempt: enough to read the server's reason, not a whole HTML page."""


class FailedAttempt(BaseModel):
    """One attempt that got no usable answer, on the replica that gave none."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    call_key: str
    model: str
    replica: str
    kind: str
    status: int | None = None
    latency_s: float
    error: str


class FailureLog(Protocol):
    """Where failed attempts are kept (the run's store)."""

    def put_failure(self, failure: FailedAttempt) -> None: ...


def failure_kind(error: ModelCallError) -> str:
    """A short kind a summary can count: ``HTTP <status>`` when the server answered, else
    what the client raised (``APITimeoutError``, ``APIConnectionError``, ``JSONDecodeError``)."""
    if error.status is not None:
        return f"HTTP {error.status}"
    cause = error.__cause__
    return type(cause).__name__ if cause is not None else type(error).__name__


class AttemptFailures:
    """The registry's channel from its limiters to a run's ``FailureLog``: limiters are built
    before the run opens its store, so each reports here and the log is attached later (none
    attached: the failures are not kept, as in a client used outside a run)."""

    def __init__(self) -> None:
        self.log: FailureLog | None = None

    def reporter(self, replica: str) -> OnFailure:
        """What the limiter of ``replica`` (a credential-free name) calls on each failure."""

        def report(request: ModelRequest, error: ModelCallError, latency_s: float) -> None:
            if self.log is None or isinstance(error, ReplicaOutError):
                return
            self.log.put_failure(
                FailedAttempt(
                    call_key=request.key(),
                    model=request.model,
                    replica=replica,
                    kind=failure_kind(error),
                    status=error.status,
                    latency_s=round(latency_s, 6),
                    error=redact(str(error))[:_ERROR_CHARS],
                )
            )

        return report
