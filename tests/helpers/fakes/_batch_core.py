"""What both fake batch APIs share: a plan per submitted batch and its items' fates.

A test says how each batch it will submit goes (``BatchPlan``): how many status reads it stays
in progress, how it ends (completed, expired, cancelled, or failed as a whole), how many of its
items were processed before an expiry or cancellation, and which items fail on their own
(``item_error``). The servers turn that into their own wire format; the items that do run are
answered exactly as the online endpoint would answer the same body.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

BatchEnd = Literal["completed", "expired", "cancelled", "failed"]


@dataclass(frozen=True)
class BatchPlan:
    """How one submitted batch goes. ``polls`` status reads show it in progress before it
    ends as ``end``; with ``expired`` or ``cancelled`` only the first ``processed`` items (in
    file order) ran. ``item_error(custom_id)`` returns an error message for an item that fails
    on its own (a per-item 400/500), or None."""

    polls: int = 1
    end: BatchEnd = "completed"
    processed: int = 0
    item_error: Callable[[str], str | None] = lambda _custom_id: None


@dataclass
class FakeBatch:
    """One batch the server accepted: its requests (custom id -> body) and progress."""

    id: str
    requests: dict[str, dict[str, Any]]
    plan: BatchPlan
    created_at: float
    """Unix time; Message Batches show it to the microsecond, the Batch API in seconds."""
    metadata: dict[str, str] = field(default_factory=dict)
    reads: int = 0
    cancel_requested: bool = False

    @property
    def ended(self) -> bool:
        return self.cancel_requested or self.reads > self.plan.polls

    @property
    def end(self) -> BatchEnd:
        return "cancelled" if self.cancel_requested else self.plan.end

    def ran(self, custom_id: str) -> bool:
        """Whether the item was processed (all of them, unless the batch expired or was
        cancelled first)."""
        if self.end == "completed":
            return True
        if self.end == "failed":
            return False
        order = list(self.requests)
        return order.index(custom_id) < self.plan.processed


class BatchBook:
    """The batches one fake server accepted, and the plans for the next ones."""

    def __init__(self) -> None:
        self.plans: list[BatchPlan] = []
        """Consumed in order by each new batch; when empty, a batch completes at once."""
        self.batches: dict[str, FakeBatch] = {}
        self.created: list[str] = []
        """Ids of every batch created, in order (a resumed run must not add to it)."""
        self.lock = threading.Lock()
        self.list_pages = 0
        """List pages served (a client looking for a batch must not read the whole history)."""
        self.on_create: Callable[[FakeBatch], None] | None = None
        self.drop_create_replies = 0
        """How many creations to accept and then answer by dropping the connection (the
        provider has the batch; the client never hears so)."""
        """Called once a batch is registered, before the reply leaves (a test kills its
        client there: accepted by the provider, its id never received)."""

    def next_plan(self) -> BatchPlan:
        with self.lock:
            return self.plans.pop(0) if self.plans else BatchPlan(polls=0)

    def add(self, batch: FakeBatch) -> None:
        with self.lock:
            self.batches[batch.id] = batch
            self.created.append(batch.id)
        if self.on_create is not None:
            self.on_create(batch)

    def drop_this_reply(self) -> bool:
        """Whether the creation just added loses its reply (counts one down)."""
        with self.lock:
            if self.drop_create_replies <= 0:
                return False
            self.drop_create_replies -= 1
            return True

    def history(self, batch: FakeBatch) -> None:
        """A batch the account made before the test (listed, never counted as created)."""
        with self.lock:
            self.batches[batch.id] = batch

    def page(
        self, limit: int, *, after: str | None = None, before: str | None = None
    ) -> tuple[list[FakeBatch], bool]:
        """One list page, newest first as both APIs list: the ``limit`` batches right after
        the cursor ``after`` (older ones) or right before ``before`` (newer ones), and whether
        there are more that way."""
        with self.lock:
            self.list_pages += 1
            numbered = sorted(
                enumerate(self.batches.values()),
                key=lambda n: (n[1].created_at, n[0]),
                reverse=True,
            )
        order = [batch for _, batch in numbered]
        ids = [b.id for b in order]
        if before is not None and before in ids:
            end = ids.index(before)
            return order[max(0, end - limit) : end], end - limit > 0
        start = ids.index(after) + 1 if after is not None and after in ids else 0
        return order[start : start + limit], start + limit < len(order)

    def read(self, batch_id: str) -> FakeBatch | None:
        """The batch, one status read further along."""
        with self.lock:
            batch = self.batches.get(batch_id)
            if batch is not None and not batch.ended:
                batch.reads += 1
            return batch

    @property
    def submitted_items(self) -> list[str]:
        """Every custom id of every batch created, in order (duplicates show re-submissions)."""
        return [key for batch_id in self.created for key in self.batches[batch_id].requests]
