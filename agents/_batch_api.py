"""What a provider's batch API must offer, and how batch mode is configured per model.

Batch APIs (OpenAI's Batch API, Anthropic's Message Batches) answer a file of requests within
hours at half the price. A ``BatchApi`` is the provider's side of that: submit a batch, read its
status, fetch its per-item results. Everything above it (collecting requests, storing batch ids
before waiting, retrying failed items, resuming) is provider-neutral (``_batching``).

Every request line is written in the OpenAI Batch JSONL format with ``custom_id`` the store's
request key, so a batch file also serves ``vllm run-batch`` and other OpenAI-compatible batch
layers, and a result can always be matched to the request that asked for it.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from fairpanel.agents._types import ModelReply, ModelRequest

__all__ = [
    "CLOCK_SKEW_S",
    "SUBMIT_DEADLINE_S",
    "BatchApi",
    "BatchIntent",
    "BatchItemResult",
    "BatchSettings",
    "BatchStatus",
    "Execution",
    "FindVerdict",
    "chat_body",
    "openai_batch_line",
    "wire_json",
]

Execution = Literal["online", "batch"]


class BatchSettings(BaseModel):
    """How a model's batches are sent and waited for (only read under ``execution: batch``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_item_retries: int = Field(
        default=2,
        ge=0,
        le=10,
        description="How many later batches retry an item that failed, expired or was "
        "cancelled before it is recorded as a failure",
    )
    poll_s: float = Field(
        default=30.0, gt=0, description="First wait between status reads; it grows by half"
    )
    max_poll_s: float = Field(default=600.0, gt=0, description="Longest wait between reads")
    flush_s: float = Field(
        default=2.0,
        gt=0,
        description="A batch is sent once no new request has been queued for this long (every "
        "pending trial is then waiting on it), or at the provider's size limit",
    )
    expected_turnaround_s: float = Field(
        default=3600.0,
        gt=0,
        description="How long one batch is expected to take, for `fairpanel estimate`",
    )


class BatchStatus(BaseModel):
    """A batch as the provider reports it: its own state name and whether it has ended (its
    results, if any, can be fetched). ``failed`` carries the reason when the batch as a whole
    failed (validation), which leaves every item unanswered."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    state: str
    ended: bool
    failed: str | None = None


class BatchItemResult(BaseModel):
    """One item's outcome: a reply, or an error (``retryable``: a later batch may succeed)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    reply: ModelReply | None = None
    error: str | None = None
    retryable: bool = True


SUBMIT_DEADLINE_S = 1800.0
"""The longest one ``submit`` may take, cut off there (``asyncio.timeout``). The SDKs alone
set no bound: two retries of a 600 s request timeout, and a ``retry-after`` is waited for
however long it says. Thirty minutes is the SDKs' three attempts of 600 s; a batch of 200 MB
uploads within it on any link that can run an audit. A batch the provider accepted was
therefore created within this of its stored ``created_at`` (plus ``CLOCK_SKEW_S``)."""

CLOCK_SKEW_S = 300.0
"""How far the provider's clock may be from ours, and how long after the client gave up on
a create request the provider may still accept it (a timed-out request can still be served).
NTP keeps hosts within a second; five minutes also covers an unsynced laptop clock."""


class BatchIntent(BaseModel):
    """What the store knew of a batch before it was sent, all a provider needs to find it
    again when the run died before the batch's id was written: its request keys (the
    ``custom_id``s), how many, and when the provider can have accepted it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    local_id: str
    keys: frozenset[str]
    window_start: datetime
    window_end: datetime
    known: frozenset[str] = frozenset()
    """Provider batch ids the store already records (none of them can be this batch)."""

    @property
    def count(self) -> int:
        return len(self.keys)

    @classmethod
    def of(
        cls,
        local_id: str,
        keys: frozenset[str],
        created_at: datetime,
    ) -> BatchIntent:
        """``created_at`` was stored just before the submission began, which is cut off after
        ``SUBMIT_DEADLINE_S``; ``CLOCK_SKEW_S`` widens both ends for the provider's clock."""
        skew = timedelta(seconds=CLOCK_SKEW_S)
        return cls(
            local_id=local_id,
            keys=keys,
            window_start=created_at - skew,
            window_end=created_at + timedelta(seconds=SUBMIT_DEADLINE_S) + skew,
        )

    def in_window(self, created_at: datetime) -> bool:
        return self.window_start <= created_at <= self.window_end


class FindVerdict(BaseModel):
    """What a provider can say of a batch whose id was lost: ``found`` (its id); ``waiting``
    (batches that may be it but cannot be confirmed until they end: never send it again
    while any remains); neither: no batch the provider holds can be it, so it is safe to send
    again."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    found: str | None = None
    waiting: tuple[str, ...] = ()

    @property
    def none(self) -> bool:
        return self.found is None and not self.waiting


@runtime_checkable
class BatchApi(Protocol):
    """A provider's batch endpoint for one model."""

    @property
    def max_requests(self) -> int:
        """The most requests one batch may hold."""
        ...

    @property
    def max_bytes(self) -> int:
        """The largest batch the provider takes, measured on ``wire_line``."""
        ...

    def wire_line(self, key: str, request: ModelRequest) -> bytes:
        """The item as the provider receives it (sized against ``max_bytes``)."""
        ...

    def openai_line(self, key: str, request: ModelRequest) -> bytes:
        """The item as an OpenAI Batch JSONL line (``custom_id`` = ``key``)."""
        ...

    async def submit(self, lines: list[bytes], local_id: str) -> str:
        """Send ``wire_line``s as one batch; the provider's batch id once it accepted it. A
        submission still unanswered after ``SUBMIT_DEADLINE_S`` raises ``TimeoutError``: it
        may have been accepted, so the batch is looked for (``find``), not sent again."""
        ...

    async def status(self, batch_id: str) -> BatchStatus: ...

    async def results(
        self, batch_id: str, requests: dict[str, ModelRequest]
    ) -> dict[str, BatchItemResult]:
        """Every item the ended batch reports on, by ``custom_id``; items it never reached
        (expired, cancelled) are absent or errors."""
        ...

    async def find(self, intent: BatchIntent) -> FindVerdict:
        """Whether the provider holds the batch of ``intent``, whose id was never recorded
        (the run was killed between the provider's accepting it and the store's write).
        Only batches created within the intent's window are read, newest first, so the
        account's history is never scanned."""
        ...

    async def aclose(self) -> None: ...


def wire_json(value: Any) -> str:
    """Compact JSON with keys in the order they were built, as an online call sends them: a
    structured-output schema's property order is the order the model writes its fields, so
    sorting the keys would change what a batched model answers (its verdict before its
    reasons)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def openai_batch_line(key: str, body: dict[str, Any]) -> bytes:
    """One OpenAI Batch JSONL line for a chat completion ``body``."""
    line = {"custom_id": key, "method": "POST", "url": "/v1/chat/completions", "body": body}
    return (wire_json(line) + "\n").encode("utf-8")


def chat_body(request: ModelRequest, model_name: str) -> dict[str, Any]:
    """A plain Chat Completions body of ``request`` (for batch files of providers whose own
    wire format differs, so the file still runs on OpenAI-compatible batch layers)."""
    body: dict[str, Any] = {
        "model": model_name,
        "messages": [{"role": m.role, "content": m.content} for m in request.messages],
    }
    sampling = request.sent_sampling
    for name in ("temperature", "top_p", "seed", "max_tokens"):
        value = getattr(sampling, name)
        if value is not None:
            body[name] = value
    if request.response_schema is not None:
        body["response_format"] = {"type": "json_schema", "json_schema": request.response_schema}
    return body
