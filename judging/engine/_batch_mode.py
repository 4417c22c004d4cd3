"""Which models of a run go through their provider's batch API, and their dispatchers.

A model is batched when its own ``execution`` says so, or when it says nothing, the run's
(an experiment's or a study's) says ``batch`` and its provider has a batch API. Each batched
model gets one ``BatchDispatcher`` (resuming the batches an earlier run left open) and
callers get its ``BatchCollector``, whose model id and endpoint are the online client's:
request keys, and so the call cache, are the same in both modes, and a run can switch modes
between invocations.
The OpenAI-format JSONL of every batch sent is kept in the run folder's ``batches/``.
Detached (``--detach``), each dispatcher reads a batch's status once and defers the callers of
one still running (``BatchPendingError``); ``pending`` says which batches were left open.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from fairpanel.agents import (
    BatchCollector,
    BatchDispatcher,
    Execution,
    ModelClient,
    ModelRegistry,
    ModelSpec,
    endpoint_of,
    find_provider,
)
from fairpanel.judging.store import Store

__all__ = ["BATCH_FOLDER", "BatchMode", "RunExecution", "is_batched"]

BATCH_FOLDER = "batches"


class RunExecution(Protocol):
    """What batch mode reads of a run's config: experiments and studies both have it."""

    @property
    def execution(self) -> Execution: ...


def is_batched(config: RunExecution, spec: ModelSpec) -> bool:
    """Whether ``spec``'s calls go through its provider's batch API in ``config``'s run."""
    if spec.execution is not None:
        return spec.execution == "batch"
    return config.execution == "batch" and find_provider(spec.provider).batch is not None


class BatchMode:
    """The run's batch dispatchers, one per batched model; closed when the trials are done."""

    def __init__(
        self,
        config: RunExecution,
        registry: ModelRegistry,
        store: Store,
        *,
        detached: bool = False,
    ) -> None:
        self._config, self._registry, self._store = config, registry, store
        self._detached = detached
        self._dispatchers: dict[str, BatchDispatcher] = {}

    async def client(self, spec: ModelSpec) -> ModelClient:
        """The batch collector of ``spec`` when it is batched, else its online client."""
        if not is_batched(self._config, spec):
            return await self._registry.client(spec)
        scope = f"{spec.id}|{endpoint_of(spec)}"
        dispatcher = self._dispatchers.get(scope)
        if dispatcher is None:
            dispatcher = self._dispatchers[scope] = BatchDispatcher(
                self._registry.batch_api(spec),
                self._store.batches,
                self._store,
                scope=scope,
                settings=spec.batch,
                files=Path(self._store.path).parent / BATCH_FOLDER,
                detached=self._detached,
            )
            dispatcher.resume()
        return BatchCollector(dispatcher, model_id=spec.id, endpoint=endpoint_of(spec))

    @property
    def active(self) -> bool:
        return bool(self._dispatchers)

    def pending(self) -> dict[str, str]:
        """Detached: every batch left open in this invocation (provider id -> its state)."""
        return {
            batch_id: state
            for dispatcher in self._dispatchers.values()
            for batch_id, state in dispatcher.stats.pending.items()
        }

    def stats(self) -> dict[str, Any]:
        """What the dispatchers did in this invocation, by model."""
        return {
            scope: {
                "batches_sent": d.stats.submitted,
                "batches_resumed": d.stats.resumed,
                "items_sent": d.stats.items_sent,
                "items_retried": d.stats.items_retried,
                "items_failed": d.stats.items_failed,
            }
            for scope, d in self._dispatchers.items()
        }

    async def aclose(self) -> None:
        for dispatcher in self._dispatchers.values():
            await dispatcher.aclose()
