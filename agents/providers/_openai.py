"""OpenAI and OpenAI-compatible endpoints, through the openai SDK directly.

autogen-ext's client sat here before; it dropped ``usage.prompt_tokens_details.cached_tokens``
(so the cached-token share could not be reported) and cost more CPU per call than the call's own
HTTP work. AutoGen stays in ``_autogen_panel``, which talks to this client through our own types.

Calls go through the SDK's plain ``post`` with the body already built (``chat_body``, the same
body a batch line carries) and come back as the HTTP response. The typed
``chat.completions.create`` walks every message of its arguments against the SDK's parameter
types before sending them unchanged, and builds typed objects from the reply: on a debate
transcript that was half the CPU of a call. ``post`` keeps what matters of the SDK: its
client, authentication, timeouts and its errors (``APIStatusError`` and the rest) for non-2xx
replies. The reply's headers are at hand next to its body: the served model and
``system_fingerprint`` come from the body, a version header (when the body has no
fingerprint) from the headers (see ``_served``), and so does the rate-limit quota the
endpoint's pacing reads (see ``_quota``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

import httpx

if TYPE_CHECKING:  # the SDK is imported when a client is made: a run without one never pays
    from openai import AsyncOpenAI
    from openai.types.chat import ChatCompletionMessageParam

from fairpanel.agents._batch_api import BatchApi
from fairpanel.agents._provider import Provider, ProviderRun, nothing_unsupported
from fairpanel.agents._spec import ModelSpec
from fairpanel.agents._types import ModelReply, ModelRequest, Sampling, Usage
from fairpanel.agents.providers._openai_batch import OpenAIBatchApi
from fairpanel.agents.providers._sdk import SdkClient, SdkErrors, SdkTarget

__all__ = [
    "OPENAI_URL",
    "OpenAIClient",
    "cached_tokens_of",
    "openai_compatible_provider",
    "openai_format_client",
    "openai_provider",
]

OPENAI_URL = "https://api.openai.com/v1"


def _wire_messages(request: ModelRequest) -> list[ChatCompletionMessageParam]:
    return [
        cast("ChatCompletionMessageParam", {"role": m.role, "content": m.content})
        for m in request.messages
    ]


def cached_tokens_of(usage: Any) -> int:
    """Prompt tokens the server read from its prompt cache (OpenAI and llama.cpp both report
    ``prompt_tokens_details.cached_tokens``; servers that do not report it count as 0).
    ``usage`` is the reply's JSON object."""
    details = usage.get("prompt_tokens_details") if isinstance(usage, dict) else None
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return cached if isinstance(cached, int) and cached > 0 else 0


def _strip_unsupported(schema: Any) -> Any:
    """OpenAI's strict structured outputs reject some JSON Schema keywords llama.cpp honours."""
    if isinstance(schema, dict):
        return {
            key: _strip_unsupported(value)
            for key, value in schema.items()
            if key not in ("maxLength", "minLength")
        }
    if isinstance(schema, list):
        return [_strip_unsupported(item) for item in schema]
    return schema


class OpenAIClient(SdkClient):
    """Chat completions against api.openai.com or any server speaking its wire format."""

    _client: AsyncOpenAI

    def __init__(
        self,
        target: SdkTarget,
        *,
        structured_output: bool,
        strict_schema: bool,
        max_tokens_field: str,
    ) -> None:
        import openai

        super().__init__(
            target,
            client=openai.AsyncOpenAI(**target.client_args()),
            errors=SdkErrors(
                sdk=openai, base_error=openai.OpenAIError, detail=lambda exc: str(exc.message)
            ),
        )
        self._structured_output = structured_output
        self._strict_schema = strict_schema
        self._max_tokens_field = max_tokens_field

    def unsupported(self, sampling: Sampling) -> list[str]:
        """Chat Completions takes temperature, top_p, seed and a token limit alike."""
        return []

    def _create_args(self, request: ModelRequest) -> dict[str, Any]:
        sampling = request.sent_sampling
        args: dict[str, Any] = {}
        if sampling.temperature is not None:
            args["temperature"] = sampling.temperature
        if sampling.top_p is not None:
            args["top_p"] = sampling.top_p
        if sampling.seed is not None:
            args["seed"] = sampling.seed
        if sampling.max_tokens is not None:
            args[self._max_tokens_field] = sampling.max_tokens
        if request.response_schema is not None:
            if self._structured_output:
                # Sent as is (serialised, never changed on the way), so not copied.
                schema = request.response_schema
                if self._strict_schema:
                    schema = _strip_unsupported(schema)
                args["response_format"] = {"type": "json_schema", "json_schema": schema}
            else:
                args["response_format"] = {"type": "json_object"}
        return args

    def chat_body(self, request: ModelRequest) -> dict[str, Any]:
        """The Chat Completions body of ``request`` (what ``complete`` sends, and what a batch
        line carries)."""
        return {
            "model": self._model_name,
            "messages": _wire_messages(request),
            **self._create_args(request),
        }

    async def complete(self, request: ModelRequest) -> ModelReply:
        started = time.perf_counter()
        with self.calling():
            # cast_to=httpx.Response: the SDK hands back the HTTP response itself (newer SDKs
            # their httpx2 twin of it, with the same ``headers`` and ``json``).
            response = await self._client.post(
                "/chat/completions", body=self.chat_body(request), cast_to=httpx.Response
            )
            completion = response.json()
        return self.reply_of(completion, headers=response.headers, started=started)

    def reply_of(
        self,
        completion: Any,
        *,
        headers: Mapping[str, str] | None = None,
        started: float | None = None,
    ) -> ModelReply:
        """A chat completion body as our reply: an online call's, with its ``headers`` and
        start time, or a batch output line's ``response.body``, which has neither. Read as
        JSON, not as the SDK's typed ``ChatCompletion``, which costs CPU and rejects what
        OpenAI-compatible servers vary (a ``finish_reason`` of their own)."""
        try:
            choice = completion["choices"][0]
            content = choice["message"].get("content")
            usage = completion.get("usage") or {}
            prompt_tokens = usage.get("prompt_tokens") or 0
            completion_tokens = usage.get("completion_tokens") or 0
        except (AttributeError, IndexError, KeyError, TypeError) as exc:
            raise self.failure(f"unusable response ({type(exc).__name__})", retryable=True) from exc
        if not isinstance(content, str):
            raise self.failure("reply had no text content", retryable=True)
        return self.reply(
            text=content,
            usage=Usage(
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                cached_tokens=cached_tokens_of(usage),
            ),
            finish_reason=str(choice.get("finish_reason")),
            model=completion.get("model"),
            fingerprint=completion.get("system_fingerprint"),
            headers=headers,
            started=started,
        )


def _endpoint(spec: ModelSpec) -> str:
    return (spec.base_url or OPENAI_URL).rstrip("/")


def openai_format_client(
    spec: ModelSpec,
    *,
    endpoint: str,
    base_url: str | None,
    api_key: str,
    official: bool,
    structured_by_default: bool,
) -> OpenAIClient:
    """``spec``'s client on a server speaking OpenAI's format. api.openai.com (``official``)
    takes strict schemas and ``max_completion_tokens``; other servers get plain schemas and
    ``max_tokens``. ``structured_by_default`` is the structured-output setting when the spec
    leaves it unset (off for unknown servers, many of which ignore ``response_format``)."""
    structured = spec.structured_output
    return OpenAIClient(
        SdkTarget.of(spec, endpoint=endpoint, base_url=base_url, api_key=api_key),
        structured_output=structured_by_default if structured is None else structured,
        strict_schema=official,
        max_tokens_field="max_completion_tokens" if official else "max_tokens",
    )


def _creator(*, official: bool) -> Callable[[ModelSpec, ProviderRun], OpenAIClient]:
    """api.openai.com asks for structured output unless told not to; other servers only when
    told to."""

    def create(spec: ModelSpec, run: ProviderRun) -> OpenAIClient:
        return openai_format_client(
            spec,
            endpoint=_endpoint(spec),
            base_url=spec.base_url,
            api_key=run.api_key(spec),
            official=official,
            structured_by_default=official,
        )

    return create


def _batch_creator(*, official: bool) -> Callable[[ModelSpec, ProviderRun], BatchApi]:
    """The Batch API of a server speaking OpenAI's format, its lines built as ``create``'s
    client would send them online."""

    def create_batch(spec: ModelSpec, run: ProviderRun) -> BatchApi:
        online = _creator(official=official)(spec, run)
        return OpenAIBatchApi(online, base_url=spec.base_url, api_key=run.api_key(spec))

    return create_batch


openai_provider = Provider(
    create=_creator(official=True),
    endpoint=_endpoint,
    key_variable="OPENAI_API_KEY",
    unsupported=nothing_unsupported,
    batch=_batch_creator(official=True),
)
openai_compatible_provider = Provider(
    create=_creator(official=False),
    endpoint=_endpoint,
    unsupported=nothing_unsupported,
    needs_base_url=True,
    batch=_batch_creator(official=False),
)
