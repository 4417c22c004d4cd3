"""A fake OpenAI Chat Completions server (``/v1/chat/completions``, ``/v1/models``)."""

from __future__ import annotations

import time
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

_ROLES = ("system", "developer", "user", "assistant", "tool", "function")


class _InvalidError(Exception):
    def __init__(self, message: str, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message, self.param, self.code = message, param, code


def _error(
    status: int,
    message: str,
    type_: str,
    *,
    param: str | None = None,
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> Reply:
    payload = {"error": {"message": message, "type": type_, "param": param, "code": code}}
    return Reply.json(status, payload, headers)


class FakeOpenAIServer(FakeServerBase):
    """Speaks the OpenAI Chat Completions wire format on ``base_url`` (``.../v1``).

    Use as a context manager (or ``start()``/``stop()``) and point
    ``openai.OpenAI(base_url=server.base_url, api_key=..., max_retries=0)`` at it.
    """

    MODEL_ID: ClassVar[str] = "fake-gpt"
    #: OpenAI's automatic prompt caching: prompts of at least 1,024 tokens, reused in 128-token
    #: steps of a prefix seen before. Tests lower these on an instance to cache short prompts.
    prompt_cache_min_tokens: int = 1024
    prompt_cache_step: int = 128
    MALFORMED_BODY: ClassVar[bytes] = b'{"choices": ['
    _URL_SUFFIX: ClassVar[str] = "/v1"

    # ----------------------------------------------------------------- routing

    def _process(self, req: Request) -> Reply | Fault:
        route = (req.method, req.path.rstrip("/"))
        if route not in {("POST", "/v1/chat/completions"), ("GET", "/v1/models")}:
            return _error(404, f"Invalid URL ({req.method} {req.path})", "invalid_request_error")
        if (denied := self._check_auth(req)) is not None:
            return denied
        if route == ("GET", "/v1/models"):
            return self._models_reply()
        return self._answer(req)

    def _check_auth(self, req: Request) -> Reply | None:
        if self.api_key is None:
            return None
        auth = req.headers.get("authorization", "")
        scheme, _, token = auth.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            message = (
                "You didn't provide an API key. You need to provide your API key in an "
                "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
            )
        elif token.strip() != self.api_key:
            token = token.strip()
            masked = f"{token[:3]}{'*' * 6}{token[-4:]}" if len(token) > 8 else "*" * len(token)
            message = (
                f"Incorrect API key provided: {masked}. You can find your API key at "
                "https://platform.openai.com/account/api-keys."
            )
        else:
            return None
        return _error(401, message, "invalid_request_error", code="invalid_api_key")

    def _models_reply(self) -> Reply:
        model = {
            "id": self.MODEL_ID,
            "object": "model",
            "created": 1_700_000_000,
            "owned_by": "fairpanel",
        }
        return Reply.json(200, {"object": "list", "data": [model]}, self._common_headers())

    # ----------------------------------------------------------------- validation

    def _validated(self, req: Request) -> dict[str, Any] | Reply:
        try:
            return self._validate(req)
        except _InvalidError as exc:
            return _error(400, exc.message, "invalid_request_error", param=exc.param, code=exc.code)

    def _validate(self, req: Request) -> dict[str, Any]:
        body = req.body
        if body is None:
            raise _InvalidError(
                "We could not parse the JSON body of your request. (HINT: This likely means "
                "you aren't using your HTTP library correctly. The OpenAI API expects a JSON "
                "payload, but what was sent was not valid JSON.)"
            )
        if not isinstance(body.get("model"), str) or not body["model"]:
            raise _InvalidError("you must provide a model parameter")
        messages = body.get("messages")
        if messages is None:
            raise _InvalidError(
                "Missing required parameter: 'messages'.", "messages", "missing_required_parameter"
            )
        if not isinstance(messages, list) or not messages:
            raise _InvalidError(
                "Invalid 'messages': empty array. Expected an array with minimum length 1, "
                "but got an empty array instead.",
                "messages",
                "empty_array",
            )
        for i, message in enumerate(messages):
            if not isinstance(message, dict) or message.get("role") not in _ROLES:
                role = message.get("role") if isinstance(message, dict) else None
                raise _InvalidError(
                    f"Invalid value: '{role}'. Supported values are: "
                    + ", ".join(f"'{r}'" for r in _ROLES)
                    + ".",
                    f"messages[{i}].role",
                    "invalid_value",
                )
        if body.get("stream"):
            raise _InvalidError(
                "The fairpanel fake server does not support streaming; send stream=false.",
                "stream",
                "unsupported_value",
            )
        for name in ("max_tokens", "max_completion_tokens"):
            value = body.get(name)
            if value is not None and (
                not isinstance(value, int) or isinstance(value, bool) or value < 1
            ):
                raise _InvalidError(
                    f"Invalid '{name}': integer below minimum value. Expected a value >= 1, "
                    f"but got {value!r} instead.",
                    name,
                    "integer_below_min_value",
                )
        temperature = body.get("temperature")
        if temperature is not None and (
            not isinstance(temperature, int | float) or not 0 <= temperature <= 2
        ):
            raise _InvalidError(
                f"Invalid 'temperature': expected a decimal between 0 and 2, "
                f"but got {temperature!r} instead.",
                "temperature",
                "invalid_value",
            )
        return body

    # ----------------------------------------------------------------- replies

    def _common_headers(self) -> dict[str, str]:
        return {"x-request-id": random_id("req_", 32), "openai-processing-ms": "1"}

    def _success_reply(self, req: Request, text: str) -> Reply:
        body = req.body or {}
        stop = body.get("stop")
        stops = [stop] if isinstance(stop, str) else [s for s in stop or [] if isinstance(s, str)]
        text, _ = cut_at_stop_sequence(text, stops)
        limits = [
            v
            for v in (body.get("max_tokens"), body.get("max_completion_tokens"))
            if isinstance(v, int)
        ]
        finish_reason = "stop"
        if limits:
            text, truncated = truncate_to_tokens(text, min(limits))
            finish_reason = "length" if truncated else "stop"
        messages = body.get("messages") or []
        prompt_tokens = sum(
            count_tokens(message_text(m.get("content"))) for m in messages if isinstance(m, dict)
        )
        completion_tokens = count_tokens(text)
        cached_tokens = self._prompt_cache_hit(messages)
        n_value = body.get("n")
        n = n_value if isinstance(n_value, int) and n_value > 0 else 1
        choice: dict[str, Any] = {
            "message": {"role": "assistant", "content": text, "refusal": None, "annotations": []},
            "logprobs": None,
            "finish_reason": finish_reason,
        }
        payload = {
            "id": random_id("chatcmpl-", 29),
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.MODEL_ID),
            "choices": [{"index": i, **choice} for i in range(n)],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens * n,
                "total_tokens": prompt_tokens + completion_tokens * n,
                "prompt_tokens_details": {"cached_tokens": cached_tokens, "audio_tokens": 0},
                "completion_tokens_details": {
                    "reasoning_tokens": 0,
                    "audio_tokens": 0,
                    "accepted_prediction_tokens": 0,
                    "rejected_prediction_tokens": 0,
                },
            },
            "service_tier": "default",
            "system_fingerprint": "fp_fairpanel_fake",
        }
        return Reply.json(200, payload, self._common_headers())

    def _prompt_cache_hit(self, messages: list[Any]) -> int:
        """Tokens of this prompt's longest prefix shared with an earlier prompt, rounded down to
        the cache step, or 0 below the minimum; the prompt is then remembered."""
        words: list[str] = []
        for message in messages:
            if isinstance(message, dict):
                words.extend(message_text(message.get("content")).split())
        with self._log_lock:
            seen: list[list[str]] = self.__dict__.setdefault("_cached_prompts", [])
            best = 0
            for earlier in seen:
                shared = 0
                for mine, theirs in zip(words, earlier, strict=False):
                    if mine != theirs:
                        break
                    shared += 1
                best = max(best, shared)
            seen.append(words)
        if best < max(self.prompt_cache_min_tokens, 1):
            return 0
        step = max(self.prompt_cache_step, 1)
        return best // step * step

    def _fault_reply(self, fault: Fault, req: Request) -> Reply:
        headers = self._common_headers()
        if fault.kind == "rate_limit":
            if fault.retry_after is not None:
                headers["retry-after"] = format_seconds(fault.retry_after)
                headers["retry-after-ms"] = str(round(fault.retry_after * 1000))
            limit = self.rate_limit_per_minute
            used = "" if limit is None else f" Limit {limit}, Used {limit}, Requested 1."
            wait = (
                ""
                if fault.retry_after is None
                else f" Please try again in {format_seconds(fault.retry_after)}s."
            )
            message = (
                f"Rate limit reached for requests per min (RPM) on {self.MODEL_ID}:{used}{wait}"
                " Visit https://platform.openai.com/account/rate-limits to learn more."
            )
            return _error(
                fault.status or 429, message, "requests", code="rate_limit_exceeded",
                headers=headers,
            )  # fmt: skip
        if fault.kind == "server_error":
            message = "The server had an error while processing your request. Sorry about that!"
            return _error(fault.status or 500, message, "server_error", headers=headers)
        if fault.kind == "overloaded":
            message = "The engine is currently overloaded, please try again later."
            return _error(fault.status or 503, message, "server_error", headers=headers)
        if fault.kind == "wrong_shape":
            body = req.body or {}
            payload = {
                "id": random_id("chatcmpl-", 29),
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", self.MODEL_ID),
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            }
            return Reply.json(fault.status or 200, payload, headers)
        raise AssertionError(f"fault {fault.kind!r} is handled by the transport layer")

    def _limit_headers(self, decision: LimitDecision) -> dict[str, str]:
        return _openai_limit_headers(decision)


def _openai_limit_headers(decision: LimitDecision) -> dict[str, str]:
    return {
        "x-ratelimit-limit-requests": str(decision.limit),
        "x-ratelimit-remaining-requests": str(decision.remaining),
        "x-ratelimit-reset-requests": f"{format_seconds(round(decision.reset_after, 3))}s",
    }
