"""Anthropic's Message Batches: requests sent inline, ``processing_status`` polled until
``ended``, results streamed from the batch's ``results_url``.

Limits (Anthropic's documentation): 100,000 requests or 256 MB per batch, whichever comes
first; a batch not finished within 24 hours expires. Every result line names its request's
``custom_id`` (the store's request key: a 64-character hex digest, which fits the API's
``^[a-zA-Z0-9_-]{1,64}$``) and is ``succeeded``, ``errored``, ``canceled`` or ``expired``.
The API keeps no metadata on a batch, so a batch whose id was lost to a kill between its
acceptance and the store's write is found by what the store kept before sending: the batches
listed (newest first, paging stops at the intent's window) that the store does not know,
created in the window, with as many requests; one that has ended is ours when its results'
``custom_id``s are exactly the intent's keys, one still running is waited for.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

from fairpanel.agents._batch_api import (
    SUBMIT_DEADLINE_S,
    BatchIntent,
    BatchItemResult,
    BatchStatus,
    FindVerdict,
    chat_body,
    openai_batch_line,
    wire_json,
)
from fairpanel.agents._types import ModelCallError, ModelRequest

if TYPE_CHECKING:  # _anthropic imports this module
    from anthropic.types.messages import MessageBatch

    from fairpanel.agents.providers._anthropic import AnthropicClient

__all__ = ["AnthropicBatchApi"]

_RETRYABLE_ERRORS = frozenset({"api_error", "overloaded_error", "rate_limit_error"})
_PAGE = 100


class AnthropicBatchApi:
    """Message Batches of one Claude model; ``params`` are built by its online client."""

    max_requests = 100_000
    max_bytes = 256 * 1024 * 1024

    def __init__(
        self, online: AnthropicClient, *, model_name: str, base_url: str, api_key: str
    ) -> None:
        self._online = online
        self._model_name = model_name
        import anthropic

        self._client = anthropic.AsyncAnthropic(api_key=api_key, base_url=base_url, max_retries=2)
        self._not_ours: set[str] = set()
        """Ended batches whose ``custom_id``s were read and differ (they never change)."""

    def wire_line(self, key: str, request: ModelRequest) -> bytes:
        item = {"custom_id": key, "params": self._online.message_params(request)}
        return wire_json(item).encode("utf-8")

    def openai_line(self, key: str, request: ModelRequest) -> bytes:
        return openai_batch_line(key, chat_body(request, self._model_name))

    async def submit(self, lines: list[bytes], local_id: str) -> str:
        requests = [json.loads(line) for line in lines]
        with self._online.errors.submitting():
            async with asyncio.timeout(SUBMIT_DEADLINE_S):
                batch = await self._client.with_options(max_retries=0).messages.batches.create(
                    requests=requests
                )
        return batch.id

    async def status(self, batch_id: str) -> BatchStatus:
        batch = await self._client.messages.batches.retrieve(batch_id)
        return BatchStatus(state=batch.processing_status, ended=batch.processing_status == "ended")

    async def results(
        self, batch_id: str, requests: dict[str, ModelRequest]
    ) -> dict[str, BatchItemResult]:
        found: dict[str, BatchItemResult] = {}
        async for line in await self._client.messages.batches.results(batch_id):
            request = requests.get(line.custom_id)
            result = line.result
            if result.type == "succeeded" and request is not None:
                try:
                    reply = self._online.reply_of(result.message, request)
                except ModelCallError as exc:
                    found[line.custom_id] = BatchItemResult(error=str(exc))
                else:
                    found[line.custom_id] = BatchItemResult(reply=reply)
            elif result.type == "errored":
                inner = result.error.error
                found[line.custom_id] = BatchItemResult(
                    error=f"{inner.type}: {inner.message}",
                    retryable=inner.type in _RETRYABLE_ERRORS,
                )
            else:
                found[line.custom_id] = BatchItemResult(error=f"batch item {result.type}")
        return found

    async def find(self, intent: BatchIntent) -> FindVerdict:
        waiting: list[str] = []
        page = await self._client.messages.batches.list(limit=_PAGE)
        while True:
            for batch in page.data:
                if batch.created_at < intent.window_start:
                    return FindVerdict(waiting=tuple(waiting))
                if not self._may_be(batch, intent):
                    continue
                if batch.processing_status != "ended":
                    waiting.append(batch.id)
                elif await self._custom_ids(batch.id) == intent.keys:
                    return FindVerdict(found=batch.id)
                else:
                    self._not_ours.add(batch.id)
            if not page.has_next_page():
                return FindVerdict(waiting=tuple(waiting))
            page = await page.get_next_page()

    def _may_be(self, batch: MessageBatch, intent: BatchIntent) -> bool:
        counts = batch.request_counts
        total = (
            counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired
        )
        return (
            batch.id not in intent.known
            and batch.id not in self._not_ours
            and intent.in_window(batch.created_at)
            and total == intent.count
        )

    async def _custom_ids(self, batch_id: str) -> frozenset[str]:
        return frozenset(
            [line.custom_id async for line in await self._client.messages.batches.results(batch_id)]
        )

    async def aclose(self) -> None:
        await self._client.close()
