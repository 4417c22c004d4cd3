"""What batch mode records and reports: the ledger a run's store implements, the batches it
left open, and the error a detached run's callers get while their batch is still running."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from fairpanel.agents._types import ModelCallError, ModelRequest

__all__ = [
    "BATCH_PENDING",
    "BatchLedger",
    "BatchPendingError",
    "BatchStats",
    "Items",
    "OpenBatch",
]

Items = dict[str, tuple[ModelRequest, str]]
"""Request key -> (request, role) of one batch."""

BATCH_PENDING = "[batch pending]"
"""Opens a ``BatchPendingError``'s message, so a trial's recorded error (which the debate
words as it likes around the call's) still says that it waited on an open batch."""


class BatchPendingError(ModelCallError):
    """A detached run's call whose batch has not ended: asked again in the next invocation."""

    def __init__(self, batch_id: str, state: str) -> None:
        super().__init__(f"{BATCH_PENDING} batch {batch_id} is {state}", retryable=True)
        self.batch_id, self.state = batch_id, state


@dataclass(frozen=True)
class OpenBatch:
    """A stored batch that has not been collected: resumed by the next run."""

    local_id: str
    provider_batch_id: str | None
    items: Items
    created_at: datetime
    """Stored just before the submission began (the start of the window it can have been
    accepted in)."""


class BatchLedger(Protocol):
    """Where batches are recorded (the run's store implements this)."""

    def open_batches(self, scope: str) -> list[OpenBatch]: ...

    def record_batch(self, local_id: str, scope: str, items: Items) -> None: ...

    def batch_submitted(self, local_id: str, provider_batch_id: str) -> None: ...

    def batch_state(
        self, local_id: str, state: str, *, closed: bool = False, detail: str | None = None
    ) -> None: ...

    def item_failed(self, local_id: str, key: str, error: str) -> int:
        """Record a failed item; how many times ``key`` has failed in any batch."""
        ...

    def submissions(self) -> list[str]:
        """Every provider batch id recorded."""
        ...


@dataclass
class BatchStats:
    """What the dispatcher did in this invocation."""

    submitted: int = 0
    resumed: int = 0
    items_sent: int = 0
    items_retried: int = 0
    items_failed: int = 0
    states: list[str] = field(default_factory=list)
    pending: dict[str, str] = field(default_factory=dict)
    """Detached: the provider id of every batch left open -> its state at the one read."""
