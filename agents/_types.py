"""The provider-neutral request and reply types every model client speaks.

Keeping our own small types (instead of passing AutoGen or SDK objects around) lets the store
hash a request canonically and lets providers be swapped without touching the judging code.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from fairpanel.agents._quota import QuotaReading
from fairpanel.agents._secrets import redact

__all__ = [
    "Message",
    "ModelCallError",
    "ModelClient",
    "ModelReply",
    "ModelRequest",
    "NamedClient",
    "Sampling",
    "SamplingReport",
    "Usage",
    "canonical_json",
    "replicate_seed",
]

REQUEST_KEY_VERSION = 1


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace, so equal content always hashes equally."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Message(BaseModel):
    """One chat message in the provider-neutral form that is hashed and stored."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str


class Sampling(BaseModel):
    """Sampling settings. ``None`` means "the provider's default", which is not the same as 0."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    seed: int | None = None
    max_tokens: int | None = Field(default=None, ge=1, le=100_000)

    def for_replicate(self, replicate: int) -> Sampling:
        """The settings sent for a call of ``replicate``: as configured for replicate 0, and for
        any other (a later replicate, the same-text control's negative ones) with a seed of its
        own, derived from the configured seed (or from none) and the replicate.

        The replicate is in the cache key but in nothing a provider receives, so without this a
        deliberate repeat would reach the server byte for byte as the call it repeats, and a
        seeded or deterministic server (llama.cpp, vLLM, OpenAI with a seed, a caching proxy)
        would give the same answer back: the repeat would not be a fresh sample. The derived
        seed is a function of fields the key already holds, so keys do not change."""
        if replicate == 0:
            return self
        return self.model_copy(update={"seed": replicate_seed(self.seed, replicate)})

    def merged(self, override: Sampling | None) -> Sampling:
        """Settings of ``override`` win where they are set."""
        if override is None:
            return self
        data = self.model_dump()
        data.update(override.model_dump(exclude_none=True))
        return Sampling.model_validate(data)


def replicate_seed(seed: int | None, replicate: int) -> int:
    """The seed sent for ``replicate`` (not 0) of a call configured with ``seed``: a hash of
    both, below 2**31 so every server's seed field takes it (llama.cpp's is 32-bit)."""
    digest = hashlib.sha256(canonical_json({"seed": seed, "replicate": replicate}).encode())
    return int.from_bytes(digest.digest()[:4], "big") & 0x7FFFFFFF


class ModelRequest(BaseModel):
    """Everything that determines a model's answer; its hash is the cache key.

    ``endpoint`` separates the same model name served by different servers. Timeouts,
    concurrency and API keys are deliberately absent: they do not change the answer.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str
    endpoint: str = ""
    messages: tuple[Message, ...]
    sampling: Sampling = Sampling()
    response_schema: dict[str, Any] | None = None
    replicate: int = 0
    route_key: str | None = Field(default=None, exclude=True)
    """Which calls belong together on a model served by several replicas (a trial's pair
    key): they go to one replica. It says where to ask, not what, so it is excluded from
    dumps and so from the key: the store answers the call whichever replica first did."""

    @property
    def sent_sampling(self) -> Sampling:
        """The sampling settings a provider sends: ``sampling`` with the replicate's own seed
        (``Sampling.for_replicate``). Providers read this, not ``sampling``, so a deliberate
        repeat differs on the wire from the call it repeats."""
        return self.sampling.for_replicate(self.replicate)

    def key(self) -> str:
        payload = {"v": REQUEST_KEY_VERSION, **self.model_dump(mode="json")}
        return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


class Usage(BaseModel):
    """Token counts as the server reported them (never estimated locally)."""

    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
        )


class ModelReply(BaseModel):
    """One answer, with what the server said about itself while giving it.

    ``served_model`` is the model name the server says it ran (OpenAI's and Anthropic's
    response ``model``, e.g. a dated snapshot behind an alias) and ``fingerprint`` the backend
    configuration it reported (OpenAI's ``system_fingerprint``, else a version header the
    response carried). Both are None when the server says nothing: they are stored with every
    call so that a judge silently swapped behind the same name shows up in the run's record.

    ``quota`` is the rate-limit quota the reply's headers reported, for the endpoint's pacing;
    it describes the moment, not the answer, so it is neither stored nor serialised.
    """

    model_config = ConfigDict(extra="forbid")

    text: str
    usage: Usage = Usage()
    finish_reason: str | None = None
    latency_s: float = 0.0
    from_cache: bool = False
    served_model: str | None = None
    fingerprint: str | None = None
    quota: QuotaReading | None = Field(default=None, exclude=True, repr=False)
    batch_id: str | None = None
    """The provider's batch that answered (None: an online call), priced at the batch rate."""
    replica: str | None = None
    """Which server answered, named without credentials: the replica of a model on several
    (its URL, and its key's variable when replicas share a URL), else the model's endpoint
    (a batch's too). Where, not what: the request key and the cache ignore it."""


class ModelCallError(RuntimeError):
    """A provider failed to answer; ``retryable`` says whether trying again may help.

    ``retry_after`` is the wait in seconds the server asked for (Retry-After headers), so the
    endpoint's limiter can pause every caller instead of guessing; ``status`` is the HTTP
    status when there was one, so 429s can be counted apart from other failures; ``quota``
    the rate-limit quota the error response's headers reported.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        retry_after: float | None = None,
        status: int | None = None,
        quota: QuotaReading | None = None,
    ) -> None:
        super().__init__(redact(message))  # providers may echo a key in their error bodies
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status
        self.quota = quota


@runtime_checkable
class ModelClient(Protocol):
    """What every provider implements: one request in, one reply out."""

    @property
    def model_id(self) -> str: ...

    @property
    def endpoint(self) -> str: ...

    async def complete(self, request: ModelRequest) -> ModelReply: ...

    async def aclose(self) -> None: ...


class NamedClient:
    """The model id and endpoint of a client that is given both when it is made (a provider's
    own client, the replica set's, the batch collector) rather than asking another client.
    Both name every request key, so the cache is shared by whatever answers under them."""

    def __init__(self, *, model_id: str, endpoint: str) -> None:
        self._model_id = model_id
        self._endpoint = endpoint

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def endpoint(self) -> str:
        return self._endpoint


@runtime_checkable
class SamplingReport(Protocol):
    """A client that says which sampling settings it cannot honour.

    ``unsupported(sampling)`` names the settings that are set in ``sampling`` but that the
    client will not send as asked (e.g. ``seed`` on Anthropic), so the runner can warn before
    a run instead of the setting being dropped in silence. Plugin clients must implement it.
    """

    def unsupported(self, sampling: Sampling) -> list[str]: ...
