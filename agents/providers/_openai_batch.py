"""OpenAI's Batch API: a JSONL file uploaded, a batch created on it, its status polled, its
output and error files read back.

Limits (OpenAI's documentation): 50,000 requests and 200 MB per input file; the only
completion window is 24 hours. A batch that expires or is cancelled still returns the items
it finished; the others come back in the error file (``batch_expired``, ``batch_cancelled``).
The batch is created with ``metadata.fairpanel_batch`` set to the run's own id of it, so a run
killed between the upload's acceptance and the store's write finds it again (``find``) instead
of submitting it twice: it pages the list newest first and stops at the window the batch can
have been created in, never reading the account's whole history.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any

from fairpanel.agents._batch_api import (
    SUBMIT_DEADLINE_S,
    BatchIntent,
    BatchItemResult,
    BatchStatus,
    FindVerdict,
    openai_batch_line,
)
from fairpanel.agents._types import ModelCallError, ModelRequest

if TYPE_CHECKING:  # _openai imports this module
    from openai.types import Batch

    from fairpanel.agents.providers._openai import OpenAIClient

__all__ = ["OpenAIBatchApi"]

_ENDED = frozenset({"completed", "expired", "cancelled", "failed"})
METADATA_KEY = "fairpanel_batch"
_PAGE = 100


class OpenAIBatchApi:
    """The Batch API of one OpenAI(-format) model; lines are built and replies read by its
    online client, so a batched request is byte for byte what the online call would send, and
    its reply reads as the online one would."""

    max_requests = 50_000
    max_bytes = 200 * 1024 * 1024

    def __init__(self, online: OpenAIClient, *, base_url: str | None, api_key: str) -> None:
        import openai

        self._online = online
        self._client = openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=2)

    def wire_line(self, key: str, request: ModelRequest) -> bytes:
        return openai_batch_line(key, self._online.chat_body(request))

    def openai_line(self, key: str, request: ModelRequest) -> bytes:
        return self.wire_line(key, request)

    async def submit(self, lines: list[bytes], local_id: str) -> str:
        with self._online.errors.submitting():
            async with asyncio.timeout(SUBMIT_DEADLINE_S):
                uploaded = await self._client.files.create(
                    file=(f"{local_id}.jsonl", b"".join(lines), "application/jsonl"),
                    purpose="batch",
                )
                batch = await self._client.with_options(max_retries=0).batches.create(
                    input_file_id=uploaded.id,
                    endpoint="/v1/chat/completions",
                    completion_window="24h",
                    metadata={METADATA_KEY: local_id},
                )
        return batch.id

    async def status(self, batch_id: str) -> BatchStatus:
        batch = await self._client.batches.retrieve(batch_id)
        failed = None
        if batch.status == "failed":
            errors = batch.errors.data if batch.errors and batch.errors.data else []
            failed = "; ".join(f"{e.code}: {e.message}" for e in errors) or "batch failed"
        return BatchStatus(state=batch.status, ended=batch.status in _ENDED, failed=failed)

    async def results(
        self, batch_id: str, requests: dict[str, ModelRequest]
    ) -> dict[str, BatchItemResult]:
        batch = await self._client.batches.retrieve(batch_id)
        found: dict[str, BatchItemResult] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            content = await self._client.files.content(file_id)
            for raw in content.text.splitlines():
                if raw.strip():
                    line = json.loads(raw)
                    found[str(line["custom_id"])] = self._item(line)
        return found

    def _item(self, line: dict[str, Any]) -> BatchItemResult:
        """One line of the output or error file; a reply is read as the online client reads
        one."""
        error = line.get("error")
        if error:
            code = str(error.get("code") or "error")
            return BatchItemResult(error=f"{code}: {error.get('message') or ''}".strip(": "))
        response = line.get("response") or {}
        status = int(response.get("status_code") or 0)
        body = response.get("body") or {}
        if status != 200:
            detail = (body.get("error") or {}).get("message") if isinstance(body, dict) else None
            return BatchItemResult(
                error=f"HTTP {status}: {detail or 'error'}",
                retryable=self._online.errors.retryable(status),
            )
        try:
            return BatchItemResult(reply=self._online.reply_of(body))
        except ModelCallError as exc:
            return BatchItemResult(error=str(exc))

    async def find(self, intent: BatchIntent) -> FindVerdict:
        start, end = intent.window_start.timestamp(), intent.window_end.timestamp()
        waiting: list[str] = []
        page = await self._client.batches.list(limit=_PAGE)
        while True:
            for batch in page.data:
                if batch.created_at < int(start):  # whole seconds, rounded down
                    return FindVerdict(waiting=tuple(waiting))
                if batch.created_at > end or batch.id in intent.known:
                    continue
                if (batch.metadata or {}).get(METADATA_KEY) != intent.local_id:
                    continue
                total = batch.request_counts.total if batch.request_counts else 0
                if total == intent.count:
                    return FindVerdict(found=batch.id)
                if not total and not _ended(batch):  # still validating: counts come later
                    waiting.append(batch.id)
            if not page.has_next_page():
                return FindVerdict(waiting=tuple(waiting))
            page = await page.get_next_page()

    async def aclose(self) -> None:
        await self._client.close()


def _ended(batch: Batch) -> bool:
    return batch.status in _ENDED
