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
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from fairpanel.agents._types import ModelReply, ModelRequest

__all__ = [
    "BatchApi",
    "BatchItemResult",
    "BatchSettings",
    "BatchStatus",
    "Execution",
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
        """Send ``wire_line``s as one batch; the provider's batch id once it accepted it."""
        ...

    async def status(self, batch_id: str) -> BatchStatus: ...

    async def results(
        self, batch_id: str, requests: dict[str, ModelRequest]
    ) -> dict[str, BatchItemResult]:
        """Every item the ended batch reports on, by ``custom_id``; items it never reached
        (expired, cancelled) are absent or errors."""
        ...

    async def find(self, local_id: str) -> str | None:
        """The id of a batch submitted as ``local_id`` whose id was never recorded (the run
        was killed between the provider's accepting it and the store's write), if the
        provider can say; None when it cannot or there is none."""
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
