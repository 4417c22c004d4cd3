"""Anthropic's Messages API through the official SDK's ``AsyncAnthropic``.

Written directly on the SDK rather than autogen-ext's Anthropic client, which always sends
``temperature`` as a keyword argument and so breaks on ``anthropic>=1.0``.

Sampling, as found in the installed SDK (2.x) and in what the API is reported to accept:

- ``AsyncMessages.create`` has no ``temperature``, ``top_p`` or ``top_k`` parameters (the SDK
  removed them in 1.0); the API still accepts ``temperature`` (0 to 1) and ``top_p`` in the
  JSON body, so they are sent through ``extra_body``.
- Current Claude models reject ``temperature`` and ``top_p`` in the same request, so when both
  are set only ``temperature`` is sent and ``top_p`` is reported as unsupported.
- A ``temperature`` above 1 (fairpanel allows up to 2, OpenAI's range) is outside the API's
  range; it is reported and not sent.
- There is no ``seed``: the Messages API cannot make sampling reproducible. It is reported.
- ``max_tokens`` is required by the API; unset means ``DEFAULT_MAX_TOKENS``.

Some newer models (e.g. Claude Opus 4.7) reject a ``temperature`` altogether; such a
request fails with the API's own 400 message. Set no temperature for those models.

Calls go through ``with_raw_response``: the reply's ``model`` (the snapshot an alias resolved
to) is in the body, but the Messages API has no fingerprint field, so the only fingerprint
there can be is a version header the server sent (see ``_served``). The headers also carry the
rate-limit quota the endpoint's pacing reads (see ``_quota``).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # the SDK is imported when a client is made: a run without one never pays
    from anthropic import AsyncAnthropic
    from anthropic.types import MessageParam, TextBlockParam, ToolChoiceToolParam, ToolParam

from fairpanel.agents._batch_api import BatchApi
from fairpanel.agents._provider import Provider, ProviderRun
from fairpanel.agents._spec import ModelSpec
from fairpanel.agents._types import ModelReply, ModelRequest, Sampling, Usage
from fairpanel.agents.providers._anthropic_batch import AnthropicBatchApi
from fairpanel.agents.providers._sdk import SdkClient, SdkErrors, SdkTarget

__all__ = [
    "ANTHROPIC_URL",
    "DEFAULT_MAX_TOKENS",
    "AnthropicClient",
    "anthropic_provider",
    "anthropic_unsupported",
]

ANTHROPIC_URL = "https://api.anthropic.com"
DEFAULT_MAX_TOKENS = 1024
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_FALLBACK_TOOL = "record_answer"


def anthropic_unsupported(sampling: Sampling) -> list[str]:
    """The settings of ``sampling`` that an Anthropic request will not carry (see module doc)."""
    names: list[str] = []
    if sampling.temperature is not None and sampling.temperature > 1.0:
        names.append("temperature")
    if sampling.top_p is not None and sampling.temperature is not None:
        names.append("top_p")
    if sampling.seed is not None:
        names.append("seed")
    return names


def _sampling_body(sampling: Sampling) -> dict[str, float]:
    """The sampling settings the API takes, for ``extra_body`` (absent from the SDK's kwargs)."""
    body: dict[str, float] = {}
    if sampling.temperature is not None and sampling.temperature <= 1.0:
        body["temperature"] = sampling.temperature
    if sampling.top_p is not None and sampling.temperature is None:
        body["top_p"] = sampling.top_p
    return body


def system_blocks(request: ModelRequest) -> list[TextBlockParam]:
    """Every system message, in order, as top-level ``system`` text blocks.

    The first block is the context every judge of a trial shares, so it carries the prompt
    cache breakpoint: the second and later judges read it from the cache. Empty messages are
    left out (the API rejects empty text blocks).
    """
    blocks: list[TextBlockParam] = [
        {"type": "text", "text": m.content}
        for m in request.messages
        if m.role == "system" and m.content
    ]
    if blocks:
        blocks[0]["cache_control"] = {"type": "ephemeral"}
    return blocks


def conversation(request: ModelRequest) -> list[MessageParam]:
    """User and assistant turns, consecutive same-role messages merged (the API wants turns
    to alternate; a group chat puts several judges' messages in a row). Empty messages are
    dropped: the API rejects them and they carry nothing."""
    merged: list[tuple[Literal["user", "assistant"], str]] = []
    for message in request.messages:
        role = message.role
        if role == "system" or not message.content:
            continue
        if merged and merged[-1][0] == role:
            merged[-1] = (role, f"{merged[-1][1]}\n\n{message.content}")
        else:
            merged.append((role, message.content))
    turns: list[MessageParam] = []
    for role, text in merged:
        if role == "user":
            turns.append({"role": "user", "content": text})
        else:
            turns.append({"role": "assistant", "content": text})
    return turns


def answer_tool(response_schema: dict[str, Any]) -> ToolParam:
    """The single tool the model is forced to call to give a structured answer.

    ``response_schema`` is OpenAI's ``json_schema`` format (``name``, ``schema``); a bare
    JSON schema is accepted too.
    """
    schema = response_schema.get("schema", response_schema)
    name = str(response_schema.get("name", _FALLBACK_TOOL))
    if not _TOOL_NAME.match(name):
        name = _FALLBACK_TOOL
    return {
        "name": name,
        "description": "Give your answer by calling this tool once, with every field filled in.",
        "input_schema": schema,
    }


class AnthropicClient(SdkClient):
    """``anthropic/<model>``: one Messages API call per request.

    Structured output uses forced tool use: a single tool whose ``input_schema`` is the answer
    schema and ``tool_choice`` naming it, and the tool's ``input`` is returned as JSON text.
    That works on every Claude model and on Anthropic-compatible gateways, while the newer
    ``output_config`` JSON format is only on some models; the ``input`` arrives as an already
    parsed object, so there is no prose or code fence to strip. The tool is not ``strict``
    (also model-dependent); fairpanel validates every answer itself anyway. With
    ``structured_output: false`` no tool is sent and the answer is the model's text.
    """

    _client: AsyncAnthropic

    def __init__(self, target: SdkTarget, *, structured_output: bool) -> None:
        import anthropic

        super().__init__(
            target,
            # base_url is always explicit, so ANTHROPIC_BASE_URL cannot send requests
            # somewhere other than the endpoint named in the cache keys.
            client=anthropic.AsyncAnthropic(**target.client_args(ANTHROPIC_URL)),
            errors=SdkErrors(
                sdk=anthropic,
                base_error=anthropic.AnthropicError,
                detail=lambda exc: _error_detail(exc.body),
                retry_any_5xx=True,
            ),
        )
        self._structured_output = structured_output

    def unsupported(self, sampling: Sampling) -> list[str]:
        return anthropic_unsupported(sampling)

    def _tool(self, request: ModelRequest) -> ToolParam | None:
        if request.response_schema is not None and self._structured_output:
            return answer_tool(request.response_schema)
        return None

    def _sdk_params(self, request: ModelRequest, tool: ToolParam | None) -> dict[str, Any]:
        """The Messages body of ``request`` but its sampling settings, which the SDK's
        ``create`` no longer takes as arguments (see module doc)."""
        params: dict[str, Any] = {
            "model": self._model_name,
            "max_tokens": request.sampling.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": conversation(request),
        }
        if system := system_blocks(request):
            params["system"] = system
        if tool is not None:
            params["tools"] = [tool]
            params["tool_choice"] = _force(tool)
        return params

    def message_params(self, request: ModelRequest) -> dict[str, Any]:
        """The Messages body of ``request`` as ``complete`` sends it (a batch item's
        ``params``)."""
        params = self._sdk_params(request, self._tool(request))
        return {**params, **_sampling_body(request.sampling)}

    def reply_of(self, message: Any, request: ModelRequest) -> ModelReply:
        """A batch item's message as our reply (as ``complete`` reads an online one)."""
        return self._reply_of(message, self._tool(request))

    async def complete(self, request: ModelRequest) -> ModelReply:
        tool = self._tool(request)
        started = time.perf_counter()
        with self.calling():
            raw = await self._client.messages.with_raw_response.create(
                **self._sdk_params(request, tool),
                extra_body=_sampling_body(request.sampling) or None,
            )
            message = await raw.parse()
        return self._reply_of(message, tool, headers=raw.headers, started=started)

    def _reply_of(
        self,
        message: Any,
        tool: ToolParam | None,
        *,
        headers: Mapping[str, str] | None = None,
        started: float | None = None,
    ) -> ModelReply:
        """The Messages API has no fingerprint field: the only one there can be is a version
        header (see ``_served``)."""
        return self.reply(
            text=self._text_of(message, tool),
            usage=_usage_of(message),
            finish_reason=getattr(message, "stop_reason", None),
            model=getattr(message, "model", None),
            fingerprint=None,
            headers=headers,
            started=started,
        )

    def _text_of(self, message: Any, tool: ToolParam | None) -> str:
        """The forced tool's input as JSON text, else the text blocks joined.

        The SDK does not validate bodies: a reply without a ``content`` list gets here and is
        a retryable error. A reply with text instead of the tool call (a gateway ignoring
        tools) is returned as text, for the judge's tolerant parser and re-asks.
        """
        content = getattr(message, "content", None)
        if not isinstance(content, list):
            raise self.failure("reply had no content list", retryable=True)
        if tool is not None:
            for block in content:
                if getattr(block, "type", None) == "tool_use" and block.name == tool["name"]:
                    return json.dumps(block.input, ensure_ascii=False)
        return "".join(
            block.text
            for block in content
            if getattr(block, "type", None) == "text" and isinstance(block.text, str)
        )


def _error_detail(body: object) -> str:
    """``error.type: error.message`` from an Anthropic error body (read from the body, which
    every SDK version keeps, rather than attributes that newer versions add)."""
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return "error"
    parts = [str(error[key]) for key in ("type", "message") if error.get(key)]
    return ": ".join(parts) or "error"


def _force(tool: ToolParam) -> ToolChoiceToolParam:
    return {"type": "tool", "name": tool["name"]}


def _usage_of(message: Any) -> Usage:
    """Anthropic's ``input_tokens`` leaves out cache reads and writes; ``prompt_tokens`` is
    their sum, so it counts every input token as OpenAI's does, with the reads as cached."""
    usage = getattr(message, "usage", None)
    if usage is None:
        return Usage()
    read = usage.cache_read_input_tokens or 0
    written = usage.cache_creation_input_tokens or 0
    return Usage(
        prompt_tokens=(usage.input_tokens or 0) + read + written,
        completion_tokens=usage.output_tokens or 0,
        cached_tokens=read,
    )


def _endpoint(spec: ModelSpec) -> str:
    return (spec.base_url or ANTHROPIC_URL).rstrip("/")


def _create(spec: ModelSpec, run: ProviderRun) -> AnthropicClient:
    target = SdkTarget.of(
        spec, endpoint=_endpoint(spec), base_url=spec.base_url, api_key=run.api_key(spec)
    )
    return AnthropicClient(target, structured_output=spec.structured_output is not False)


def _create_batch(spec: ModelSpec, run: ProviderRun) -> BatchApi:
    return AnthropicBatchApi(
        _create(spec, run),
        model_name=spec.model_name,
        base_url=spec.base_url or ANTHROPIC_URL,
        api_key=run.api_key(spec),
    )


anthropic_provider = Provider(
    create=_create,
    batch=_create_batch,
    endpoint=_endpoint,
    key_variable="ANTHROPIC_API_KEY",
    unsupported=anthropic_unsupported,
)
