"""What the OpenAI and Anthropic clients do alike around their SDK calls.

Both SDKs are generated from one template, so they fail alike and under the same names:
``APIStatusError`` for a non-2xx reply (its ``status_code`` and ``response`` headers),
``APIConnectionError`` (``APITimeoutError`` is one) when no reply came, ``APIError`` for the
rest of the API's errors, all below one base class (``OpenAIError``, ``AnthropicError``). A
reply the SDK could not read escapes as a plain ``ValueError`` and the like. How those become
fairpanel's ``ModelCallError`` kinds (retryable or not, the 429's ``Retry-After`` and the
headers' quota for the endpoint's pacing) is decided here once; what each provider reads
differently (its error body, its reply) stays in its own module.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Protocol

from fairpanel.agents._limits import retry_after_from_headers
from fairpanel.agents._quota import QuotaReading, quota_from_headers
from fairpanel.agents._secrets import credential_free_url, register_secret
from fairpanel.agents._spec import ModelSpec
from fairpanel.agents._types import ModelCallError, ModelReply, NamedClient, Usage
from fairpanel.agents.providers._served import served_of

__all__ = ["RETRYABLE_STATUS", "SdkClient", "SdkErrors", "SdkTarget"]

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504, 529})
"""Statuses another attempt may get past: a timeout or conflict on the server's side, a rate
limit, a server error, and Anthropic's 529 (overloaded)."""


@dataclass(frozen=True)
class SdkTarget:
    """Which model a client calls, where, and as whom. ``endpoint`` names the server in
    request keys (the local model's names the model, not its port); ``max_retries`` is the
    SDK's own retrying, off by default: the registry wraps the client in a ``LimitedClient``
    that retries with the endpoint's shared pacing."""

    model_id: str
    model_name: str
    endpoint: str
    base_url: str | None
    api_key: str = field(repr=False)
    timeout_s: float
    max_retries: int = 0

    @classmethod
    def of(cls, spec: ModelSpec, *, endpoint: str, base_url: str | None, api_key: str) -> SdkTarget:
        return cls(
            model_id=spec.id,
            model_name=spec.model_name,
            endpoint=endpoint,
            base_url=base_url,
            api_key=api_key,
            timeout_s=spec.timeout_s,
        )

    def client_args(self, default_base_url: str | None = None) -> dict[str, Any]:
        """The SDK client's arguments (``AsyncOpenAI`` and ``AsyncAnthropic`` take the same)."""
        return {
            "api_key": self.api_key,
            "base_url": self.base_url or default_base_url,
            "timeout": self.timeout_s,
            "max_retries": self.max_retries,
        }


@dataclass(frozen=True)
class SdkErrors:
    """One provider's SDK errors: ``sdk`` is the SDK module (imported by the client when it
    is made), ``base_error`` its base exception class, ``detail`` what an ``APIStatusError``
    says, read the provider's way from its error body. ``retry_any_5xx`` also retries the
    5xx statuses outside ``RETRYABLE_STATUS`` (501, 505, ...), as the Anthropic client always
    has; the OpenAI client never has."""

    sdk: ModuleType
    base_error: type[Exception]
    detail: Callable[[Any], str]
    retry_any_5xx: bool = False

    def retryable(self, status: int) -> bool:
        return status in RETRYABLE_STATUS or (self.retry_any_5xx and status >= 500)

    @contextmanager
    def submitting(self) -> Iterator[None]:
        """Around sending a batch: a refusal is a ``ModelCallError`` the dispatcher retries or
        reports; no answer at all is a ``TimeoutError``, after which the dispatcher looks for
        the batch at the provider instead of sending it again."""
        try:
            yield
        except self.sdk.APIStatusError as exc:
            raise ModelCallError(
                f"batch refused: HTTP {exc.status_code}: {self.detail(exc)}",
                retryable=self.retryable(exc.status_code),
                status=exc.status_code,
            ) from exc
        except self.sdk.APIConnectionError as exc:
            # No reply (a timeout, a dropped connection): the provider may have the batch.
            # Never retried blind: the dispatcher looks for it before anything is sent again.
            raise TimeoutError(f"batch submission unanswered: {type(exc).__name__}") from exc
        except self.sdk.APIError as exc:
            raise ModelCallError(f"batch not sent: {type(exc).__name__}", retryable=True) from exc


class _Closable(Protocol):
    def close(self) -> Awaitable[None]: ...


class SdkClient(NamedClient):
    """A model's online client on an SDK: its names, the SDK client it calls and closes, and
    what its calls' failures and replies become. A subclass declares ``_client`` as its
    SDK's client class.

    The key is registered as a secret (as the registry does with every key it reads), so a
    server that echoes it never gets it into an error's text, even from a client made
    without the registry.
    """

    def __init__(self, target: SdkTarget, *, client: _Closable, errors: SdkErrors) -> None:
        super().__init__(model_id=target.model_id, endpoint=target.endpoint)
        self._model_name = target.model_name
        self._client: _Closable = client
        self.errors = errors
        self._replica = credential_free_url(target.endpoint)
        register_secret(target.api_key)

    def failure(
        self,
        detail: str,
        *,
        retryable: bool,
        retry_after: float | None = None,
        status: int | None = None,
        quota: QuotaReading | None = None,
    ) -> ModelCallError:
        """An error naming the model."""
        return ModelCallError(
            f"{self.model_id}: {detail}",
            retryable=retryable,
            retry_after=retry_after,
            status=status,
            quota=quota,
        )

    @contextmanager
    def calling(self) -> Iterator[None]:
        """Around one call and the reading of its body: whatever the SDK raises leaves as a
        ``ModelCallError``. Rate limits and server errors are retryable with the reply's
        ``Retry-After`` and quota; no reply (a timeout, a refused connection) and an
        unreadable one are retryable; the SDK's other errors are not."""
        sdk = self.errors.sdk
        try:
            yield
        except sdk.APIStatusError as exc:
            headers = exc.response.headers
            raise self.failure(
                f"HTTP {exc.status_code}: {self.errors.detail(exc)}",
                retryable=self.errors.retryable(exc.status_code),
                retry_after=retry_after_from_headers(headers),
                status=exc.status_code,
                quota=quota_from_headers(headers),
            ) from exc
        except sdk.APIConnectionError as exc:  # includes APITimeoutError
            raise self.failure(type(exc).__name__, retryable=True) from exc
        except (sdk.APIError, ValueError, TypeError, AttributeError, KeyError) as exc:
            # The SDKs let a 200 whose body is not JSON escape as json.JSONDecodeError.
            raise self.failure(
                f"unusable response ({type(exc).__name__}: {exc})", retryable=True
            ) from exc
        except self.errors.base_error as exc:
            raise self.failure(f"{type(exc).__name__}: {exc}", retryable=False) from exc

    def reply(
        self,
        *,
        text: str,
        usage: Usage,
        finish_reason: str | None,
        model: object,
        fingerprint: object,
        headers: Mapping[str, str] | None = None,
        started: float | None = None,
    ) -> ModelReply:
        """The reply read from a body's fields; an online call's also from its ``headers``
        (the version header when the body has no fingerprint, the quota) and the time since
        it ``started`` (``time.perf_counter``). A batch item has neither. Either names this
        client's server as the replica that answered (a router of replicas renames it)."""
        served_model, served_fingerprint = served_of(model, fingerprint, headers)
        return ModelReply(
            text=text,
            usage=usage,
            finish_reason=finish_reason,
            latency_s=0.0 if started is None else time.perf_counter() - started,
            served_model=served_model,
            fingerprint=served_fingerprint,
            quota=quota_from_headers(headers),
            replica=self._replica,
        )

    async def aclose(self) -> None:
        await self._client.close()
