"""How a study item reaches models: through the run's registry and its caching caller.

One ``ModelPool`` serves a whole run (one client per model spec, endpoint limits shared by
every role; a batched model's client is its ``BatchMode`` collector); each item gets a
``StudyContext`` that records the keys of the calls it made, so the stored item points at its
calls in the ``calls`` table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fairpanel.agents import (
    CachingCaller,
    Message,
    ModelClient,
    ModelRegistry,
    ModelReply,
    ModelRequest,
)
from fairpanel.judging.engine import BatchMode
from fairpanel.studies._base import ResolvedModel, StudyConfig

__all__ = ["ModelPool", "StudyContext"]


class ModelPool:
    """Clients for the models a study config names (the registry keeps one per spec)."""

    def __init__(
        self,
        config: StudyConfig,
        registry: ModelRegistry,
        caller: CachingCaller,
        batch_mode: BatchMode | None = None,
    ) -> None:
        self._config = config
        self._registry = registry
        self._batch_mode = batch_mode
        self.caller = caller

    async def client(self, model: ResolvedModel) -> ModelClient:
        spec = self._config.model_spec(model.model)
        if self._batch_mode is not None:
            return await self._batch_mode.client(spec)
        return await self._registry.client(spec)


class StudyContext:
    """What ``Study.run_item`` calls models with; one per item."""

    def __init__(self, pool: ModelPool, route_key: str | None = None) -> None:
        """``route_key`` keeps the item's calls on one replica of a model served by several
        (the item's key: its turns share that server's prefix cache)."""
        self._pool = pool
        self._route_key = route_key
        self.call_keys: list[str] = []

    async def ask(
        self,
        model: ResolvedModel,
        messages: Sequence[Message],
        *,
        role: str,
        replicate: int = 0,
        schema: dict[str, Any] | None = None,
    ) -> ModelReply:
        """One call through the cache: answered from the store when it was made before.

        ``role`` names the call in token and cost tables ("responder", "coder", ...);
        ``replicate`` separates deliberate repeats of the same request; ``schema`` asks for
        structured output (a JSON schema in OpenAI's ``json_schema`` wrapper or bare).
        Raises ``ModelCallError`` when the provider fails after its retries.
        """
        client = await self._pool.client(model)
        request = ModelRequest(
            model=client.model_id,
            endpoint=client.endpoint,
            messages=tuple(messages),
            sampling=model.sampling,
            response_schema=schema,
            replicate=replicate,
            route_key=self._route_key,
        )
        self.call_keys.append(request.key())
        return await self._pool.caller.call(client, request, role)
