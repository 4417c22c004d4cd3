"""Anthropic's Message Batches: requests sent inline, ``processing_status`` polled until
``ended``, results streamed from the batch's ``results_url``.

Limits (Anthropic's documentation): 100,000 requests or 256 MB per batch, whichever comes
first; a batch not finished within 24 hours expires. Every result line names its request's
``custom_id`` (the store's request key: a 64-character hex digest, which fits the API's
``^[a-zA-Z0-9_-]{1,64}$``) and is ``succeeded``, ``errored``, ``canceled`` or ``expired``.
The API keeps no metadata on a batch, so a batch whose id was lost to a kill between its
acceptance and the store's write cannot be found again (``find`` returns None); that window
is one HTTP round trip.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from fairpanel.agents._batch_api import (
    BatchItemResult,
    BatchStatus,
    chat_body,
    openai_batch_line,
    wire_json,
)
from fairpanel.agents._types import ModelCallError, ModelRequest

if TYPE_CHECKING:  # _anthropic imports this module
    from fairpanel.agents.providers._anthropic import AnthropicClient

__all__ = ["AnthropicBatchApi"]

_RETRYABLE_ERRORS = frozenset({"api_error", "overloaded_error", "rate_limit_error"})


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

    def wire_line(self, key: str, request: ModelRequest) -> bytes:
        item = {"custom_id": key, "params": self._online.message_params(request)}
        return wire_json(item).encode("utf-8")

    def openai_line(self, key: str, request: ModelRequest) -> bytes:
        return openai_batch_line(key, chat_body(request, self._model_name))

    async def submit(self, lines: list[bytes], local_id: str) -> str:
        requests = [json.loads(line) for line in lines]
        with self._online.errors.submitting():
            batch = await self._client.messages.batches.create(requests=requests)
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

    async def find(self, local_id: str) -> str | None:
        return None

    async def aclose(self) -> None:
        await self._client.close()
