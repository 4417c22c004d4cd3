"""Turns ``provider/model`` specs into clients, and owns their lifetimes.

A run opens one registry; every role asks it for clients, so the same endpoint is shared by
the responder and every judge, and local servers are started once and stopped at the end.
Plugin providers (``fairpanel.providers`` entry points) are built by their factories.
"""

from __future__ import annotations

import asyncio
import os
from types import TracebackType

from fairpanel.agents._limits import EndpointState, LimitedClient, LimitStats
from fairpanel.agents._plugins import create_plugin_client
from fairpanel.agents._secrets import register_secret
from fairpanel.agents._spec import ModelSpec
from fairpanel.agents._types import ModelClient, Sampling, SamplingReport
from fairpanel.agents.providers._anthropic import (
    ANTHROPIC_URL,
    AnthropicClient,
    anthropic_unsupported,
)
from fairpanel.agents.providers._local import LocalModelServer
from fairpanel.agents.providers._mock import MockClient
from fairpanel.agents.providers._openai import OpenAIClient

__all__ = ["MissingApiKeyError", "ModelRegistry", "endpoint_key", "endpoint_of"]

_OPENAI_URL = "https://api.openai.com/v1"
_KEY_VARIABLES = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


class MissingApiKeyError(RuntimeError):
    """A model needs a key from the environment and it is not set."""


def endpoint_of(spec: ModelSpec) -> str:
    """A stable name of where requests go, part of every cache key.

    The local server's port changes every run, so its endpoint is named by the model, not the URL.
    """
    if spec.provider == "mock":
        return "mock"
    if spec.provider == "local":
        return f"local:{spec.model_name}"
    if spec.provider == "anthropic":
        return (spec.base_url or ANTHROPIC_URL).rstrip("/")
    if spec.is_plugin:
        return spec.base_url.rstrip("/") if spec.base_url else f"plugin:{spec.provider}"
    return (spec.base_url or _OPENAI_URL).rstrip("/")


def endpoint_key(spec: ModelSpec) -> str:
    """What shares one quota: the provider, where requests go and whose key they carry.

    Two specs that differ only in sampling, timeouts or model name on the same server and key
    draw on the same rate limits, so they share one ``EndpointState``.
    """
    variable = spec.api_key_env or _KEY_VARIABLES.get(spec.provider) or ""
    return f"{spec.provider}|{endpoint_of(spec)}|{variable}"


class ModelRegistry:
    """Creates one client per distinct spec and closes them all on exit.

    Every client except the mock goes through a ``LimitedClient`` whose ``EndpointState`` is
    shared by all specs with the same ``endpoint_key``, so one role's 429 paces them all.
    """

    def __init__(self) -> None:
        self._clients: dict[str, ModelClient] = {}
        self._endpoints: dict[str, EndpointState] = {}
        self._local: LocalModelServer | None = None
        self._lock = asyncio.Lock()

    async def __aenter__(self) -> ModelRegistry:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def check_credentials(self, spec: ModelSpec) -> None:
        """Fail before any call when a key is missing, naming the variable (never the value)."""
        self._api_key(spec)

    @staticmethod
    def _api_key(spec: ModelSpec) -> str:
        if spec.provider in ("mock", "local"):
            return "unused"
        variable = spec.api_key_env or _KEY_VARIABLES.get(spec.provider)
        if variable is None:
            return "unused"
        value = os.environ.get(variable)
        if not value:
            raise MissingApiKeyError(
                f"{spec.id} needs an API key in the environment variable {variable}"
            )
        register_secret(value)
        return value

    def unsupported_settings(self, spec: ModelSpec, sampling: Sampling | None = None) -> list[str]:
        """The sampling settings ``spec``'s client will not send as asked, for a warning.

        ``sampling`` is merged over ``spec.sampling`` as the runner does (merging an already
        merged value changes nothing). OpenAI-format servers (openai, openai-compatible, the
        local model) take all four settings; the mock is deterministic by design and takes
        them only as part of the request. A plugin's client is created (and kept for the run)
        to ask it.
        """
        effective = spec.sampling.merged(sampling)
        if spec.provider == "anthropic":
            return anthropic_unsupported(effective)
        if not spec.is_plugin:
            return []
        identity = spec.model_dump_json()
        client = self._clients.get(identity)
        if client is None:
            client = self._clients[identity] = self._limited(spec, create_plugin_client(spec))
        assert isinstance(client, SamplingReport), "plugin clients are checked on creation"
        return client.unsupported(effective)

    async def client(self, spec: ModelSpec) -> ModelClient:
        async with self._lock:
            identity = spec.model_dump_json()
            existing = self._clients.get(identity)
            if existing is not None:
                return existing
            created = await self._create(spec)
            if spec.provider != "mock":
                created = self._limited(spec, created)
            self._clients[identity] = created
            return created

    def endpoint_state(self, spec: ModelSpec) -> EndpointState | None:
        """The shared limiter state of ``spec``'s endpoint, once a client for it exists."""
        return self._endpoints.get(endpoint_key(spec))

    def endpoint_stats(self) -> dict[str, LimitStats]:
        """Counters of every endpoint used so far (429s, retries, waits), by endpoint key."""
        return {key: state.stats() for key, state in sorted(self._endpoints.items())}

    def _limited(self, spec: ModelSpec, client: ModelClient) -> LimitedClient:
        key = endpoint_key(spec)
        state = self._endpoints.get(key)
        if state is None:
            state = self._endpoints[key] = EndpointState(endpoint_of(spec), spec.limits)
        else:
            state.adopt(spec.limits)
        return LimitedClient(client, state)

    async def _create(self, spec: ModelSpec) -> ModelClient:
        if spec.provider == "mock":
            return MockClient(spec)
        if spec.provider == "local":
            if self._local is None:
                self._local = LocalModelServer()
                await asyncio.to_thread(self._local.start)
            return OpenAIClient(
                model_id=spec.id,
                model_name=spec.model_name,
                endpoint=endpoint_of(spec),
                base_url=self._local.base_url,
                api_key="local",
                structured_output=spec.structured_output is not False,
                strict_schema=False,
                max_tokens_field="max_tokens",
                timeout_s=spec.timeout_s,
            )
        if spec.provider == "anthropic":
            return AnthropicClient(
                model_id=spec.id,
                model_name=spec.model_name,
                endpoint=endpoint_of(spec),
                base_url=spec.base_url,
                api_key=self._api_key(spec),
                structured_output=spec.structured_output is not False,
                timeout_s=spec.timeout_s,
            )
        if spec.is_plugin:
            return create_plugin_client(spec)
        official = spec.provider == "openai"
        return OpenAIClient(
            model_id=spec.id,
            model_name=spec.model_name,
            endpoint=endpoint_of(spec),
            base_url=spec.base_url,
            api_key=self._api_key(spec),
            structured_output=spec.structured_output is not False
            if official
            else bool(spec.structured_output),
            strict_schema=official,
            max_tokens_field="max_completion_tokens" if official else "max_tokens",
            timeout_s=spec.timeout_s,
        )

    async def aclose(self) -> None:
        clients = list(self._clients.values())
        self._clients.clear()
        for client in clients:
            await client.aclose()
        if self._local is not None:
            await asyncio.to_thread(self._local.stop)
            self._local = None
