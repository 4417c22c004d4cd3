"""A fake Anthropic Messages server (``/v1/messages``, ``/v1/models``)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from ._base import FakeServerBase
from ._core import (
    Fault,
    LimitDecision,
    count_tokens,
    cut_at_stop_sequence,
    format_seconds,
    message_text,
    random_id,
    truncate_to_tokens,
)
from ._http import Reply, Request


class _InvalidError(Exception):
    pass


_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_NOT_EMPTY = (
    "all messages must have non-empty content except for the optional final assistant message"
)


def _error(status: int, type_: str, message: str, headers: dict[str, str] | None = None) -> Reply:
    request_id = random_id("req_011", 21)
    payload = {
        "type": "error",
        "error": {"type": type_, "message": message},
        "request_id": request_id,
    }
    return Reply.json(status, payload, {"request-id": request_id, **(headers or {})})


def _check_cache_control(block: dict[str, Any], where: str) -> None:
    cache_control = block.get("cache_control")
    if cache_control is None:
        return
    if not isinstance(cache_control, dict) or cache_control.get("type") != "ephemeral":
        raise _InvalidError(f"{where}cache_control.type: Input should be 'ephemeral'")
    if cache_control.get("ttl", "5m") not in ("5m", "1h"):
        raise _InvalidError(f"{where}cache_control.ttl: Input should be '5m' or '1h'")


def _check_blocks(blocks: list[Any], where: str, *, text_only: bool) -> None:
    for j, block in enumerate(blocks):
        here = f"{where}.{j}"
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise _InvalidError(f"{here}: Input should be a valid dictionary with a 'type' field")
        if text_only and block["type"] != "text":
            raise _InvalidError(f"{here}.type: Input should be 'text'")
        if block["type"] == "text":
            if not isinstance(block.get("text"), str):
                raise _InvalidError(f"{here}.text: Field required")
            if not block["text"]:
                raise _InvalidError(f"{where}: text content blocks must be non-empty")
        _check_cache_control(block, f"{here}.")


def _check_tools(body: dict[str, Any]) -> None:
    tools = body.get("tools")
    names: list[str] = []
    if tools is not None:
        if not isinstance(tools, list):
            raise _InvalidError("tools: Input should be a valid list")
        for i, tool in enumerate(tools):
            name = tool.get("name") if isinstance(tool, dict) else None
            if not isinstance(name, str) or not _TOOL_NAME.match(name):
                raise _InvalidError(
                    f"tools.{i}.name: String should match pattern {_TOOL_NAME.pattern!r}"
                )
            schema = tool.get("input_schema")
            if not isinstance(schema, dict) or schema.get("type") != "object":
                raise _InvalidError(f"tools.{i}.input_schema.type: Input should be 'object'")
            names.append(name)
    choice = body.get("tool_choice")
    if choice is None:
        return
    if not isinstance(choice, dict) or choice.get("type") not in ("auto", "any", "tool", "none"):
        raise _InvalidError("tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'")
    if choice["type"] == "tool" and choice.get("name") not in names:
        raise _InvalidError(f"tool_choice: tool {choice.get('name')!r} not found in tools")


def _forced_tool(body: dict[str, Any]) -> str | None:
    """The tool the request forces (``tool_choice`` ``tool``, or ``any`` with its first tool)."""
    choice = body.get("tool_choice")
    tools = body.get("tools") or []
    if not isinstance(choice, dict) or not tools:
        return None
    if choice.get("type") == "tool":
        return str(choice.get("name"))
    return str(tools[0]["name"]) if choice.get("type") == "any" else None


def _tool_input(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _credential(headers: dict[str, str]) -> str | None:
    """The API key: ``x-api-key``, or an ``Authorization: Bearer`` token (which is what the
    anthropic 2.x SDK sends for ``api_key=``)."""
    if "x-api-key" in headers:
        return headers["x-api-key"]
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class FakeAnthropicServer(FakeServerBase):
    """Speaks the Anthropic Messages wire format on ``base_url`` (no ``/v1``: the SDK adds it).

    Use as a context manager (or ``start()``/``stop()``) and point
    ``anthropic.Anthropic(base_url=server.base_url, api_key=..., max_retries=0)`` at it.
    A request that forces a tool (``tool_choice``) gets a reply text that is a JSON object
    back as a ``tool_use`` block whose ``input`` is that object.
    """

    MODEL_ID: ClassVar[str] = "fake-claude"
    MALFORMED_BODY: ClassVar[bytes] = b'{"content": ['
    _URL_SUFFIX: ClassVar[str] = ""

    # ----------------------------------------------------------------- routing

    def _process(self, req: Request) -> Reply | Fault:
        route = (req.method, req.path.rstrip("/"))
        if route not in {("POST", "/v1/messages"), ("GET", "/v1/models")}:
            return _error(404, "not_found_error", "Not Found")
        key = _credential(req.headers)
        if key is None:
            return _error(401, "authentication_error", "x-api-key header is required")
        if self.api_key is not None and key != self.api_key:
            return _error(401, "authentication_error", "invalid x-api-key")
        if not req.headers.get("anthropic-version", "").strip():
            return _error(400, "invalid_request_error", "anthropic-version: header is required")
        if route == ("GET", "/v1/models"):
            return self._models_reply()
        return self._answer(req)

    def _models_reply(self) -> Reply:
        model = {
            "type": "model",
            "id": self.MODEL_ID,
            "display_name": "Fake Claude",
            "created_at": "2025-01-01T00:00:00Z",
        }
        payload = {
            "data": [model],
            "has_more": False,
            "first_id": model["id"],
            "last_id": model["id"],
        }
        return Reply.json(200, payload, {"request-id": random_id("req_011", 21)})

    # ----------------------------------------------------------------- validation

    def _validated(self, req: Request) -> dict[str, Any] | Reply:
        try:
            return self._validate(req)
        except _InvalidError as exc:
            return _error(400, "invalid_request_error", str(exc))

    def _validate(self, req: Request) -> dict[str, Any]:
        body = req.body
        if body is None:
            raise _InvalidError("The request body is not valid JSON.")
        if not isinstance(body.get("model"), str) or not body["model"]:
            raise _InvalidError("model: Field required")
        max_tokens = body.get("max_tokens")
        if max_tokens is None:
            raise _InvalidError("max_tokens: Field required")
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool):
            raise _InvalidError("max_tokens: Input should be a valid integer")
        if max_tokens < 1:
            raise _InvalidError("max_tokens: Input should be greater than or equal to 1")
        self._validate_messages(body.get("messages"))
        _check_tools(body)
        _check_cache_control(body, "")
        system = body.get("system")
        if isinstance(system, list):
            _check_blocks(system, "system", text_only=True)
        elif system is not None and not isinstance(system, str):
            raise _InvalidError("system: Input should be a valid string or a list of text blocks")
        temperature = body.get("temperature")
        if temperature is not None and (
            not isinstance(temperature, int | float) or not 0 <= temperature <= 1
        ):
            raise _InvalidError("temperature: Input should be less than or equal to 1")
        stops = body.get("stop_sequences")
        if stops is not None and (
            not isinstance(stops, list) or not all(isinstance(s, str) for s in stops)
        ):
            raise _InvalidError("stop_sequences: Input should be a valid list of strings")
        if body.get("stream"):
            raise _InvalidError("stream: the fairpanel fake server does not support streaming")
        return body

    def _validate_messages(self, messages: object) -> None:
        if messages is None:
            raise _InvalidError("messages: Field required")
        if not isinstance(messages, list):
            raise _InvalidError("messages: Input should be a valid list")
        if not messages:
            raise _InvalidError("messages: at least one message is required")
        previous: str | None = None
        for i, message in enumerate(messages):
            if not isinstance(message, dict):
                raise _InvalidError(f"messages.{i}: Input should be a valid dictionary")
            role = message.get("role")
            if role == "system":
                raise _InvalidError(
                    f'messages.{i}.role: Unexpected role "system". The Messages API accepts a '
                    'top-level `system` parameter, not "system" as an input message role.'
                )
            if role not in ("user", "assistant"):
                raise _InvalidError(f"messages.{i}.role: Input should be 'user' or 'assistant'")
            if previous is None and role != "user":
                raise _InvalidError('messages: first message must use the "user" role')
            if role == previous:
                raise _InvalidError(
                    'messages: roles must alternate between "user" and "assistant", '
                    f'but found multiple "{role}" roles in a row'
                )
            previous = role
            content = message.get("content")
            if isinstance(content, list):
                _check_blocks(content, f"messages.{i}.content", text_only=False)
            elif not isinstance(content, str):
                raise _InvalidError(f"messages.{i}.content: Input should be a valid string or list")
            is_final_assistant = role == "assistant" and i == len(messages) - 1
            if not content and not is_final_assistant:
                raise _InvalidError(f"messages.{i}: {_NOT_EMPTY}")

    # ----------------------------------------------------------------- replies

    def _success_reply(self, req: Request, text: str) -> Reply:
        """A ``message``. When the request forces a tool and the reply text is a JSON object,
        the answer is a ``tool_use`` block with that object as its ``input`` (not truncated);
        other text is answered as a text block, as a gateway that ignores tools would."""
        body = req.body or {}
        tool = _forced_tool(body)
        tool_input = _tool_input(text) if tool is not None else None
        stops = body.get("stop_sequences")
        text, matched = cut_at_stop_sequence(text, stops if isinstance(stops, list) else [])
        stop_reason = "stop_sequence" if matched is not None else "end_turn"
        max_tokens = body.get("max_tokens")
        if isinstance(max_tokens, int):
            text, truncated = truncate_to_tokens(text, max_tokens)
            if truncated:
                stop_reason, matched = "max_tokens", None
        messages = body.get("messages") or []
        input_tokens = count_tokens(message_text(body.get("system"))) + sum(
            count_tokens(message_text(m.get("content"))) for m in messages if isinstance(m, dict)
        )
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if tool_input is not None:
            content = [
                {
                    "type": "tool_use",
                    "id": random_id("toolu_01", 22),
                    "name": tool,
                    "input": tool_input,
                }
            ]
            text, stop_reason, matched = json.dumps(tool_input), "tool_use", None
        payload = {
            "id": random_id("msg_01", 22),
            "type": "message",
            "role": "assistant",
            "model": body.get("model", self.MODEL_ID),
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": matched,
            "usage": {
                "input_tokens": input_tokens,
                "output_tokens": count_tokens(text),
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
                "service_tier": "standard",
            },
        }
        return Reply.json(200, payload, {"request-id": random_id("req_011", 21)})

    def _fault_reply(self, fault: Fault, req: Request) -> Reply:
        if fault.kind == "rate_limit":
            headers = {}
            if fault.retry_after is not None:
                headers["retry-after"] = format_seconds(fault.retry_after)
            limit = self.rate_limit_per_minute
            quota = "" if limit is None else f" of {limit} requests per minute"
            message = (
                f"This request would exceed the rate limit for your organization{quota}. "
                "For details, refer to: https://docs.claude.com/en/api/rate-limits."
            )
            return _error(fault.status or 429, "rate_limit_error", message, headers)
        if fault.kind == "server_error":
            return _error(fault.status or 500, "api_error", "Internal server error")
        if fault.kind == "overloaded":
            return _error(fault.status or 529, "overloaded_error", "Overloaded")
        if fault.kind == "wrong_shape":
            body = req.body or {}
            payload = {
                "id": random_id("msg_01", 22),
                "type": "message",
                "role": "assistant",
                "model": body.get("model", self.MODEL_ID),
                "usage": {"input_tokens": 0, "output_tokens": 0},
            }
            return Reply.json(fault.status or 200, payload)
        raise AssertionError(f"fault {fault.kind!r} is handled by the transport layer")

    def _limit_headers(self, decision: LimitDecision) -> dict[str, str]:
        return _anthropic_limit_headers(decision)


def _anthropic_limit_headers(decision: LimitDecision) -> dict[str, str]:
    """Anthropic's headers; the reset timestamp in whole seconds, rounded up so it is never
    before the slot frees."""
    reset_at = datetime.now(UTC) + timedelta(seconds=decision.reset_after)
    if reset_at.microsecond:
        reset_at = reset_at.replace(microsecond=0) + timedelta(seconds=1)
    return {
        "anthropic-ratelimit-requests-limit": str(decision.limit),
        "anthropic-ratelimit-requests-remaining": str(decision.remaining),
        "anthropic-ratelimit-requests-reset": reset_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
