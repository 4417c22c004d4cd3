"""Batch mode: a model's calls collected into provider batches, their ids stored before any
wait, their results written to the call store as ordinary calls.

The debate code does not change. Each pending trial runs as its own task and the model's
client is a ``BatchCollector``: a request whose key is in the store is answered from it (by
``CachingCaller``, as online); any other is queued and its caller waits. The
``BatchDispatcher`` sends the queue as one batch once nothing new has been queued for
``flush_s`` (every live trial is then waiting on it) or when it reaches the provider's size
limit. So every trial's first round goes out together, then each discussion round, then the
final round: the debate is round-synchronous without knowing it, and a re-ask joins the next
batch.

Safety across kills: a batch's row and items are stored before it is sent, its provider id as
soon as the provider accepts it. A new run reads the batches still open and polls them; it
never sends their items again. A batch stored without a provider id (the run died during its
submission) is looked for at the provider by what was stored before sending (``BatchIntent``);
its items are sent again only once the provider says no batch can be it. Items that fail,
expire or are cancelled go into a later batch while a caller still needs them, up to
``max_item_retries`` failures counted over every run, then their caller gets a
``ModelCallError`` and the trial is recorded as failed.

Detached (``fairpanel run --detach``): each batch's status is read once. One that has not
ended stays open in the ledger and its callers get a ``BatchPendingError``: their trials are
deferred, not failed, and replay from the call cache in the next invocation, which resumes the
batch. So a pass goes on while batches end at their first read and returns once every live
trial waits on a batch the provider has accepted and whose id is stored.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fairpanel.agents._batch_api import (
    CLOCK_SKEW_S,
    BatchApi,
    BatchIntent,
    BatchItemResult,
    BatchSettings,
    BatchStatus,
    FindVerdict,
)
from fairpanel.agents._batch_ledger import (
    BATCH_PENDING,
    BatchLedger,
    BatchPendingError,
    BatchStats,
    Items,
    OpenBatch,
)
from fairpanel.agents._calls import CallCache
from fairpanel.agents._types import ModelCallError, ModelReply, ModelRequest, NamedClient

__all__ = [
    "BATCH_PENDING",
    "BatchCollector",
    "BatchDispatcher",
    "BatchLedger",
    "BatchPendingError",
    "BatchStats",
    "OpenBatch",
]

_MAX_POLL_ERRORS = 5


class BatchDispatcher:
    """Collects one model's requests into batches and answers them from the results."""

    def __init__(
        self,
        api: BatchApi,
        ledger: BatchLedger,
        cache: CallCache,
        *,
        scope: str,
        settings: BatchSettings,
        files: Path | None = None,
        clock: Callable[[], float] | None = None,
        detached: bool = False,
    ) -> None:
        self._api, self._ledger, self._cache = api, ledger, cache
        self._scope, self._settings, self._files = scope, settings, files
        self._queue: Items = {}
        self._waiters: dict[str, asyncio.Future[ModelReply]] = {}
        self._open: dict[str, str] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._flusher: asyncio.Task[None] | None = None
        self._last_queued = 0.0
        self._clock = clock
        self._detached = detached
        self._deferred: dict[str, tuple[str, str]] = {}
        """Detached: keys of the batches left open -> (provider batch id, state read)."""
        self.stats = BatchStats()

    def resume(self) -> None:
        """Poll every batch an earlier run left open (before any request is taken)."""
        for batch in self._ledger.open_batches(self._scope):
            self.stats.resumed += 1
            for key in batch.items:
                self._open[key] = batch.local_id
            self._spawn(self._resume(batch))

    async def request(self, key: str, request: ModelRequest, role: str) -> ModelReply:
        stored = self._cache.get_call(key)
        if stored is not None:
            return stored
        if key in self._deferred:
            raise BatchPendingError(*self._deferred[key])
        future = self._waiters.get(key)
        if future is None:
            future = self._waiters[key] = asyncio.get_running_loop().create_future()
            if key not in self._open:
                self._enqueue(key, request, role)
        return await asyncio.shield(future)

    async def aclose(self) -> None:
        """Stop polling (open batches stay open in the ledger for the next run)."""
        tasks = [*self._tasks, *([self._flusher] if self._flusher else [])]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    # -- queueing and sending ------------------------------------------------------------------

    def _now(self) -> float:
        return self._clock() if self._clock else asyncio.get_running_loop().time()

    def _enqueue(self, key: str, request: ModelRequest, role: str) -> None:
        self._queue[key] = (request, role)
        self._last_queued = self._now()
        if len(self._queue) >= self._api.max_requests:
            self._send_queue()
        elif self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_when_quiet())

    async def _flush_when_quiet(self) -> None:
        while self._queue:
            wait = self._last_queued + self._settings.flush_s - self._now()
            if wait > 0:
                await asyncio.sleep(wait)
            else:
                self._send_queue()

    def _send_queue(self) -> None:
        """The queue as batches within the provider's count and size limits."""
        chunk: Items = {}
        size = 0
        for key, (request, role) in self._queue.items():
            line = len(self._api.wire_line(key, request))
            if chunk and (
                len(chunk) >= self._api.max_requests or size + line > self._api.max_bytes
            ):
                self._spawn(self._send(chunk))
                chunk, size = {}, 0
            chunk[key] = (request, role)
            size += line
        if chunk:
            self._spawn(self._send(chunk))
        self._queue = {}

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, items: Items) -> None:
        local_id = uuid.uuid4().hex
        lines = [self._api.wire_line(key, request) for key, (request, _) in items.items()]
        if self._files is not None:
            self._files.mkdir(parents=True, exist_ok=True)
            with (self._files / f"{local_id}.jsonl").open("wb") as out:
                out.writelines(self._api.openai_line(k, r) for k, (r, _) in items.items())
        created_at = datetime.now(UTC)  # not after the stored one
        self._ledger.record_batch(local_id, self._scope, items)  # before it can be accepted
        for key in items:
            self._open[key] = local_id
        try:
            batch_id = await self._api.submit(lines, local_id)
        except TimeoutError:  # it may yet be accepted: look for it once it can be listed
            await asyncio.sleep(CLOCK_SKEW_S)
            await self._resume(OpenBatch(local_id, None, items, created_at))
            return
        except ModelCallError as exc:
            self._ledger.batch_state(local_id, "refused", closed=True, detail=str(exc))
            self._release(items)
            self._failed(local_id, items, {}, str(exc), exc.retryable)
            return
        self._ledger.batch_submitted(local_id, batch_id)
        self.stats.submitted += 1
        self.stats.items_sent += len(items)
        await self._follow(local_id, batch_id, items)

    # -- waiting and collecting ----------------------------------------------------------------

    async def _resume(self, batch: OpenBatch) -> None:
        local_id, items = batch.local_id, batch.items
        batch_id = batch.provider_batch_id
        if batch_id is None:
            intent = BatchIntent.of(local_id, frozenset(items), batch.created_at)
            verdict = await self._find(intent, items)
            if verdict is None:
                return
            if verdict.found is None:  # no batch the provider holds can be it: send again
                self._ledger.batch_state(local_id, "lost", closed=True)
                self._release(items)
                for key, (request, role) in items.items():
                    if key in self._waiters:
                        self._enqueue(key, request, role)
                return
            batch_id = verdict.found
            self._ledger.batch_submitted(local_id, batch_id)
        await self._follow(local_id, batch_id, items)

    async def _find(self, intent: BatchIntent, items: Items) -> FindVerdict | None:
        """The provider's verdict once it is ``found`` or ``none``. While batches that may be
        this one have not ended, they are polled as ``_wait`` polls, and the provider asked
        again once one has ended. None when the provider could not be asked (the callers get
        a retryable error, the batch stays open)."""
        delay, errors = self._settings.poll_s, 0
        waiting: tuple[str, ...] = ()
        while True:
            try:
                if not waiting:
                    known = frozenset(self._ledger.submissions())  # this run's batches too
                    verdict = await self._api.find(intent.model_copy(update={"known": known}))
                    if verdict.found is not None or verdict.none:
                        return verdict
                    waiting = verdict.waiting
                    self._ledger.batch_state(intent.local_id, "unconfirmed")
                    self.stats.states.append("unconfirmed")
                    if self._detached:  # the next pass looks again
                        self._defer(intent.local_id, "unconfirmed", items)
                        return None
                ended = [(await self._api.status(batch_id)).ended for batch_id in waiting]
            except Exception as exc:  # the SDKs' errors: nothing was sent
                errors += 1
                if errors >= _MAX_POLL_ERRORS:
                    self._give_up(items, f"batch {intent.local_id} could not be looked for: {exc}")
                    return None
            else:
                errors = 0
                if any(ended):
                    waiting = ()
                    continue
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, self._settings.max_poll_s)

    async def _follow(self, local_id: str, batch_id: str, items: Items) -> None:
        status = await self._wait(local_id, batch_id, items)
        if status is None:
            return
        results: dict[str, BatchItemResult] = {}
        if status.failed is None:
            requests = {key: request for key, (request, _) in items.items()}
            results = await self._api.results(batch_id, requests)
        answered: dict[str, ModelReply] = {}
        for key, (request, role) in items.items():
            reply = results[key].reply if key in results else None
            if reply is not None:
                answered[key] = reply.model_copy(update={"batch_id": batch_id})
                self._cache.put_call(key, request, answered[key], role)
        self._ledger.batch_state(local_id, status.state, closed=True, detail=status.failed)
        self._release(items)
        for key, reply in answered.items():
            self._resolve(key, reply)
        missing = status.failed or f"batch {status.state} before the item ran"
        self._failed(local_id, items, results, missing, True)

    async def _wait(self, local_id: str, batch_id: str, items: Items) -> BatchStatus | None:
        """Poll with a growing delay until the batch ends; None when polling keeps failing
        (the batch stays open in the ledger and the callers get a retryable error), or when
        detached and the one read finds it running (``_defer``)."""
        delay, errors = self._settings.poll_s, 0
        while True:
            try:
                status = await self._api.status(batch_id)
            except Exception as exc:  # the SDKs' errors: the batch itself is unaffected
                if self._detached:
                    self._defer(batch_id, "unread", items)
                    return None
                errors += 1
                if errors >= _MAX_POLL_ERRORS:
                    self._give_up(items, f"batch {batch_id} could not be polled: {exc}")
                    return None
            else:
                errors = 0
                self._ledger.batch_state(local_id, status.state)
                self.stats.states.append(status.state)
                if status.ended:
                    return status
                if self._detached:
                    self._defer(batch_id, status.state, items)
                    return None
            await asyncio.sleep(delay)
            delay = min(delay * 1.5, self._settings.max_poll_s)

    def _defer(self, batch_id: str, state: str, items: Items) -> None:
        """Leave the batch open (its keys stay claimed, so no later request sends them again)
        and reject its callers with ``BatchPendingError``."""
        self.stats.pending[batch_id] = state
        for key in items:
            self._deferred[key] = (batch_id, state)
            self._reject(key, BatchPendingError(batch_id, state))

    def _failed(
        self,
        local_id: str,
        items: Items,
        results: dict[str, BatchItemResult],
        default: str,
        retryable: bool,
    ) -> None:
        """Items without a reply: into the next batch while their callers wait and their
        failures stay within the bound, else their callers get the error."""
        for key, (request, role) in items.items():
            outcome = results.get(key)
            if outcome is not None and outcome.reply is not None:
                continue
            error = outcome.error if outcome is not None and outcome.error else default
            again = outcome.retryable if outcome is not None else retryable
            failures = self._ledger.item_failed(local_id, key, error)
            if key not in self._waiters:
                continue
            if again and failures <= self._settings.max_item_retries:
                self.stats.items_retried += 1
                self._enqueue(key, request, role)
            else:
                self.stats.items_failed += 1
                self._reject(
                    key, ModelCallError(f"{request.model}: batch item failed {failures}x: {error}")
                )

    def _give_up(self, items: Items, message: str) -> None:
        self._release(items)
        error = ModelCallError(message, retryable=True)
        for key in items:
            self._reject(key, error)

    def _release(self, items: Items) -> None:
        for key in items:
            self._open.pop(key, None)

    def _resolve(self, key: str, reply: ModelReply) -> None:
        future = self._waiters.pop(key, None)
        if future is not None and not future.done():
            future.set_result(reply)

    def _reject(self, key: str, error: ModelCallError) -> None:
        future = self._waiters.pop(key, None)
        if future is not None and not future.done():
            future.set_exception(error)


class BatchCollector(NamedClient):
    """The client a batch-mode model's callers see: same model id and endpoint as its online
    client (so request keys, and the cache, are shared with online mode)."""

    def __init__(self, dispatcher: BatchDispatcher, *, model_id: str, endpoint: str) -> None:
        super().__init__(model_id=model_id, endpoint=endpoint)
        self._dispatcher = dispatcher

    async def complete(self, request: ModelRequest) -> ModelReply:
        return await self.complete_as(request, "batch")

    async def complete_as(self, request: ModelRequest, role: str) -> ModelReply:
        return await self._dispatcher.request(request.key(), request, role)

    async def aclose(self) -> None:
        await self._dispatcher.aclose()
