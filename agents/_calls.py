"""Every model call goes through here: answered from the store when it was made before.

The cache key is the hash of the full request (model, endpoint, messages, sampling, schema,
replicate), so a re-run costs nothing and deliberate replicates are never collapsed.
Identical requests in flight at the same moment share one call.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from fairpanel.agents._secrets import credential_free_url
from fairpanel.agents._types import ModelClient, ModelReply, ModelRequest, Usage

__all__ = ["CachingCaller", "CallCache", "CallLedger", "RoleAwareClient"]


@runtime_checkable
class RoleAwareClient(Protocol):
    """A client that stores calls itself and so must know their role (batch mode's
    collector, which writes a batch's results as they arrive, whoever still waits for them)."""

    async def complete_as(self, request: ModelRequest, role: str) -> ModelReply: ...


class CallCache(Protocol):
    """Where finished calls live (the run's SQLite store implements this)."""

    def get_call(self, key: str) -> ModelReply | None: ...

    def put_call(self, key: str, request: ModelRequest, reply: ModelReply, role: str) -> None: ...


@dataclass
class CallLedger:
    """What this invocation spent: calls sent, calls answered from the store, tokens by role."""

    calls_made: int = 0
    calls_cached: int = 0
    tokens_by_role: dict[str, Usage] = field(default_factory=lambda: defaultdict(Usage))

    def record(self, role: str, reply: ModelReply) -> None:
        if reply.from_cache:
            self.calls_cached += 1
        else:
            self.calls_made += 1
            self.tokens_by_role[role] = self.tokens_by_role[role] + reply.usage


class CachingCaller:
    def __init__(self, cache: CallCache, ledger: CallLedger | None = None) -> None:
        self._cache = cache
        self.ledger = ledger or CallLedger()
        self._in_flight: dict[str, asyncio.Future[ModelReply]] = {}

    async def call(self, client: ModelClient, request: ModelRequest, role: str) -> ModelReply:
        key = request.key()
        stored = self._cache.get_call(key)
        if stored is not None:
            reply = stored.model_copy(update={"from_cache": True})
            self.ledger.record(role, reply)
            return reply
        pending = self._in_flight.get(key)
        if pending is not None:
            shared = await asyncio.shield(pending)
            reply = shared.model_copy(update={"from_cache": True})
            self.ledger.record(role, reply)
            return reply
        future: asyncio.Future[ModelReply] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        try:
            if isinstance(client, RoleAwareClient):
                reply = await client.complete_as(request, role)
            else:
                reply = await client.complete(request)
            if reply.replica is None:  # a client that does not say (the mock, a plugin's)
                reply = reply.model_copy(update={"replica": credential_free_url(client.endpoint)})
            self._cache.put_call(key, request, reply, role)
            future.set_result(reply)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            future.set_exception(exc)
            # Nobody else may be waiting; retrieve it so asyncio does not warn.
            future.exception()
            raise
        finally:
            del self._in_flight[key]
        self.ledger.record(role, reply)
        return reply
