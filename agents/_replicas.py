"""One model served by several replicas: route each call, keep a trial on one, skip the dead.

A judge on two vLLM servers (or one API with several keys) is one model to the design and the
store: one endpoint name, one cache. Underneath, each replica has its own ``LimitedClient``
(its own limits, pacing and retries) and its own health here.

Routing: a request that carries a ``route_key`` (a trial's pair key: every debate turn and
both sides of a counterfactual pair) goes to the replica that key was first sent to, so they
share that server's prefix cache and any difference between servers stays out of the paired
contrasts. A new key, or a request without one, goes to the least-loaded replica (requests
outstanding per allowed connection). If a key's replica is out, the key moves to another and
stays there.

Health: ``_FAULT_LIMIT`` consecutive faults (no answer, a timeout, a 5xx, or a refused key)
take a replica out for a cool-down that doubles with each relapse. When it ends the replica is
on probation: one request at a time until one succeeds, and one more fault takes it out again.
While a replica is out, its limiter gives up on it at once (``ReplicaOutError``) and the call
moves to another replica; only when every replica has been tried or is out does the call fail,
with the last error.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

from pydantic import BaseModel, ConfigDict, Field, field_validator

from fairpanel.agents._limits import EndpointLimits, LimitedClient
from fairpanel.agents._secrets import url_without_credentials
from fairpanel.agents._types import (
    ModelCallError,
    ModelClient,
    ModelReply,
    ModelRequest,
    NamedClient,
    Sampling,
)

__all__ = ["Replica", "ReplicaClient", "ReplicaHealth", "ReplicaOutError", "ReplicaSet", "guarded"]

_FAULT_LIMIT = 3
"""Consecutive faults that take a replica out (as many as one request's identical retries)."""
_COOLDOWN_S = 5.0
_COOLDOWN_MAX_S = 300.0
_PROBE_WAIT_S = 0.05
"""How often a call waiting for a replica's probation call looks again."""
_MAX_HOMES = 1 << 16
"""Route keys remembered; a design's units arrive in order, so the oldest are finished."""
_FAULT_STATUS = frozenset({401, 403, 404, 500, 502, 503, 504})
"""HTTP statuses that say the replica (its server, deployment or key) cannot answer, as
opposed to the request being wrong (400) or too fast (429, paced by the limiter)."""


class Replica(BaseModel):
    """One of several servers (or keys) answering for the same model.

    Unset fields take the model's own ``base_url``, ``api_key_env`` and ``limits``, so
    replicas of a vLLM server list only their URLs and several keys on one API only their
    variables. Each replica keeps its own limits and retry state.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str | None = Field(default=None, description="This replica's server URL")
    api_key_env: str | None = Field(
        default=None, description="Environment variable holding this replica's API key"
    )
    limits: EndpointLimits | None = Field(
        default=None, description="This replica's rate limits (default: the model's limits)"
    )

    @field_validator("base_url")
    @classmethod
    def _no_credentials_in_url(cls, value: str | None) -> str | None:
        return url_without_credentials(value)


class ReplicaOutError(ModelCallError):
    """Raised instead of calling a replica that is out, so its limiter stops retrying there."""


def is_fault(error: ModelCallError) -> bool:
    """Whether ``error`` blames the replica: no HTTP answer (refused, reset, timed out,
    unusable body) or a status in ``_FAULT_STATUS``."""
    if isinstance(error, ReplicaOutError):
        return True
    if error.status is None:
        return error.retryable
    return error.status in _FAULT_STATUS


class ReplicaHealth:
    """In rotation, out until a time, or on probation after a cool-down."""

    def __init__(
        self,
        name: str,
        *,
        fault_limit: int = _FAULT_LIMIT,
        cooldown_s: float | None = None,
        cooldown_max_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.name = name
        self._fault_limit = fault_limit
        self._cooldown_s = _COOLDOWN_S if cooldown_s is None else cooldown_s
        self._cooldown_max_s = _COOLDOWN_MAX_S if cooldown_max_s is None else cooldown_max_s
        self._clock = clock
        self._faults = 0
        self._relapses = 0
        self._out_until = 0.0
        self.outstanding = 0
        self.times_out = 0
        self.last_fault: str | None = None

    @property
    def on_probation(self) -> bool:
        return self._relapses > 0

    def out(self) -> bool:
        return self._clock() < self._out_until

    def admits(self) -> bool:
        """Whether a new request may go here: not out, and on probation only one at a time."""
        if self.out():
            return False
        return not self.on_probation or self.outstanding == 0

    def answered(self) -> None:
        """The server answered (even with an error about the request): it is alive."""
        self._faults = 0
        self._relapses = 0

    def fault(self, error: ModelCallError) -> None:
        self.last_fault = str(error)
        self._faults += 1
        if self.out() or (self._faults < self._fault_limit and not self.on_probation):
            return
        cooldown = min(self._cooldown_max_s, self._cooldown_s * 2**self._relapses)
        self._relapses += 1
        self._faults = 0
        self.times_out += 1
        self._out_until = self._clock() + cooldown


class _Guarded:
    """A replica's client as its limiter sees it: refuses while the replica is out and
    reports every attempt's outcome to the replica's health."""

    def __init__(self, inner: ModelClient, health: ReplicaHealth) -> None:
        self.inner = inner
        self._health = health

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def endpoint(self) -> str:
        return self.inner.endpoint

    def unsupported(self, sampling: Sampling) -> list[str]:
        report = getattr(self.inner, "unsupported", None)
        return [] if report is None else list(report(sampling))

    async def complete(self, request: ModelRequest) -> ModelReply:
        if self._health.out():
            raise ReplicaOutError(f"{self.model_id}: replica {self._health.name} is out")
        try:
            reply = await self.inner.complete(request)
        except ModelCallError as exc:
            if is_fault(exc):
                self._health.fault(exc)
            else:
                self._health.answered()
            raise
        self._health.answered()
        return reply

    async def aclose(self) -> None:
        await self.inner.aclose()


def guarded(client: ModelClient, health: ReplicaHealth) -> ModelClient:
    """``client`` reporting to ``health`` (wrap it before the replica's ``LimitedClient``)."""
    return _Guarded(client, health)


class ReplicaSet:
    """The replicas of one endpoint set: their health, load and which key lives where.

    Shared by every model spec on the same replicas, so a trial whose judges use one server
    with different sampling still lands on one replica.
    """

    def __init__(self, name: str, health: Sequence[ReplicaHealth]) -> None:
        self.name = name
        self.health = tuple(health)
        self.capacity = [1] * len(self.health)
        self._homes: OrderedDict[str, int] = OrderedDict()
        self._turn = 0

    def choose(self, route_key: str | None, exclude: set[int]) -> int | None:
        """The replica for the next attempt, or None when every one is tried or out."""
        candidates = [
            index
            for index, health in enumerate(self.health)
            if index not in exclude and health.admits()
        ]
        if not candidates:
            return None
        if route_key is not None:
            home = self._homes.get(route_key)
            if home in candidates:
                self._homes.move_to_end(route_key)
                return home
        count = len(self.health)
        self._turn = (self._turn + 1) % count
        best = min(
            candidates,
            key=lambda i: (self.health[i].outstanding / self.capacity[i], (i - self._turn) % count),
        )
        if route_key is not None:
            self._homes[route_key] = best
            self._homes.move_to_end(route_key)
            if len(self._homes) > _MAX_HOMES:
                self._homes.popitem(last=False)
        return best

    def probing(self, exclude: set[int]) -> bool:
        """Whether a replica not yet tried is busy with its probation call: worth waiting for
        rather than failing the call while it may be back in a moment."""
        return any(
            index not in exclude and health.on_probation and not health.out()
            for index, health in enumerate(self.health)
        )

    def warnings(self) -> list[str]:
        """One line per replica that was taken out during the run, for the run's warnings."""
        return [
            f"replica {health.name} of {self.name} was taken out {health.times_out} time(s)"
            f"{' and is out now' if health.out() else ''}; last fault: {health.last_fault}"
            for health in self.health
            if health.times_out
        ]

    def home_of(self, route_key: str) -> int | None:
        return self._homes.get(route_key)


class ReplicaClient(NamedClient):
    """A ``ModelClient`` for one spec over a ``ReplicaSet``: one limited client per replica.

    ``endpoint`` names the whole set (never the replica that answered), so the request key,
    and with it the store's cache, is the same whichever replica serves a call; the reply
    names the replica that answered (``ModelReply.replica``, its health's name).
    """

    def __init__(
        self,
        *,
        model_id: str,
        endpoint: str,
        replicas: Sequence[LimitedClient],
        replica_set: ReplicaSet,
    ) -> None:
        super().__init__(model_id=model_id, endpoint=endpoint)
        self._replicas = tuple(replicas)
        self._set = replica_set
        for index, client in enumerate(self._replicas):
            replica_set.capacity[index] = client.state.limits.max_in_flight

    @property
    def replicas(self) -> tuple[LimitedClient, ...]:
        return self._replicas

    @property
    def replica_set(self) -> ReplicaSet:
        return self._set

    def unsupported(self, sampling: Sampling) -> list[str]:
        return self._replicas[0].unsupported(sampling)

    async def complete(self, request: ModelRequest) -> ModelReply:
        tried: set[int] = set()
        last: ModelCallError | None = None
        while True:
            index = self._set.choose(request.route_key, tried)
            if index is None:
                if not self._set.probing(tried):
                    break
                await asyncio.sleep(_PROBE_WAIT_S)
                continue
            tried.add(index)
            health = self._set.health[index]
            health.outstanding += 1
            try:
                reply = await self._replicas[index].complete(request)
            except ModelCallError as exc:
                if not is_fault(exc):
                    raise  # about the request, not the replica: another would fail alike
                last = exc
            else:
                return reply.model_copy(update={"replica": health.name})
            finally:
                health.outstanding -= 1
        raise self._exhausted(tried, last)

    def _exhausted(self, tried: set[int], last: ModelCallError | None) -> ModelCallError:
        out = [h.name for h in self._set.health if h.out()]
        reason = last if last is not None and not isinstance(last, ReplicaOutError) else None
        reason_text = reason or next(
            (h.last_fault for h in self._set.health if h.last_fault), "no replica answered"
        )
        return ModelCallError(
            f"{self._model_id}: no replica of {self._endpoint} could answer "
            f"(tried {len(tried)} of {len(self._replicas)}; out: {', '.join(out) or 'none'}); "
            f"last error: {reason_text}",
            retryable=last.retryable if last is not None else True,
            status=reason.status if reason is not None else None,
        )

    async def aclose(self) -> None:
        for client in self._replicas:
            await client.aclose()
