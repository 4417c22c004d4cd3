"""OpenAI's Batch API: a JSONL file uploaded, a batch created on it, its status polled, its
output and error files read back.

Limits (OpenAI's documentation): 50,000 requests and 200 MB per input file; the only
completion window is 24 hours. A batch that expires or is cancelled still returns the items
it finished; the others come back in the error file (``batch_expired``, ``batch_cancelled``).
The batch is created with ``metadata.fairpanel_batch`` set to the run's own id of it, so a run
killed between the upload's acceptance and the store's write finds it again (``find``) instead
of submitting it twice.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from fairpanel.agents._batch_api import BatchItemResult, BatchStatus, openai_batch_line
from fairpanel.agents._types import ModelCallError, ModelReply, ModelRequest, Usage

if TYPE_CHECKING:  # the SDK is imported when a batch client is made
    from openai.types import CompletionUsage

    from fairpanel.agents.providers._openai import OpenAIClient

__all__ = ["OpenAIBatchApi"]

_ENDED = frozenset({"completed", "expired", "cancelled", "failed"})
_RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
METADATA_KEY = "fairpanel_batch"


def _cached_tokens(usage: CompletionUsage | None) -> int:
    """As ``_openai.cached_tokens_of`` reads it from an online reply."""
    details = usage.prompt_tokens_details if usage is not None else None
    cached = details.cached_tokens if details is not None else None
    return cached if isinstance(cached, int) and cached > 0 else 0


def reply_of_body(body: dict[str, Any]) -> ModelReply:
    """A chat completion body (one batch output line's ``response.body``) as our reply."""
    from openai.types.chat import ChatCompletion

    completion = ChatCompletion.model_validate(body)
    choice = completion.choices[0]
    usage = completion.usage
    if not isinstance(choice.message.content, str):
        raise ValueError("reply had no text content")
    return ModelReply(
        text=choice.message.content,
        usage=Usage(
            prompt_tokens=usage.prompt_tokens if usage is not None else 0,
            completion_tokens=usage.completion_tokens if usage is not None else 0,
            cached_tokens=_cached_tokens(usage),
        ),
        finish_reason=str(choice.finish_reason),
        served_model=completion.model or None,
        fingerprint=completion.system_fingerprint or None,
    )


def _item(line: dict[str, Any]) -> BatchItemResult:
    """One line of the output or error file."""
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
            error=f"HTTP {status}: {detail or 'error'}", retryable=status in _RETRYABLE_STATUS
        )
    try:
        return BatchItemResult(reply=reply_of_body(body))
    except (ValueError, IndexError, TypeError) as exc:
        return BatchItemResult(error=f"unusable response ({type(exc).__name__}: {exc})")


class OpenAIBatchApi:
    """The Batch API of one OpenAI(-format) model; lines are built by its online client, so
    a batched request is byte for byte what the online call would send."""

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
        import openai  # loaded by __init__; a lookup in sys.modules

        try:
            uploaded = await self._client.files.create(
                file=(f"{local_id}.jsonl", b"".join(lines), "application/jsonl"), purpose="batch"
            )
            batch = await self._client.batches.create(
                input_file_id=uploaded.id,
                endpoint="/v1/chat/completions",
                completion_window="24h",
                metadata={METADATA_KEY: local_id},
            )
        except openai.APIStatusError as exc:
            raise ModelCallError(
                f"batch refused: HTTP {exc.status_code}: {exc.message}",
                retryable=exc.status_code in _RETRYABLE_STATUS,
                status=exc.status_code,
            ) from exc
        except openai.APIError as exc:
            raise ModelCallError(f"batch not sent: {type(exc).__name__}", retryable=True) from exc
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
                    found[str(line["custom_id"])] = _item(line)
        return found

    async def find(self, local_id: str) -> str | None:
        async for batch in self._client.batches.list(limit=100):
            if (batch.metadata or {}).get(METADATA_KEY) == local_id:
                return batch.id
        return None

    async def aclose(self) -> None:
        await self._client.close()
