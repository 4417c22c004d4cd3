"""Turns ``provider/model`` specs into clients, and owns their lifetimes.

A run opens one registry; every role asks it for clients, so the same endpoint is shared by
the responder and every judge, and shared services (the local model's server) are started
once and stopped at the end. Which client a spec gets, where its requests go and which key
it carries are the spec's ``Provider``'s to say (``_plugins.find_provider``), for fairpanel's
own providers and plugins alike.
"""

from __future__ import annotations

import asyncio
import os
from types import TracebackType

from fairpanel.agents._attempts import AttemptFailures, FailureLog
from fairpanel.agents._batch_api import BatchApi
from fairpanel.agents._limits import EndpointState, LimitedClient, LimitStats
from fairpanel.agents._plugins import find_provider
from fairpanel.agents._provider import Provider, Service, SharedService
from fairpanel.agents._replicas import ReplicaClient, ReplicaHealth, ReplicaSet, guarded
from fairpanel.agents._secrets import credential_free_url, register_secret
from fairpanel.agents._spec import ModelSpec
from fairpanel.agents._types import ModelClient, Sampling, SamplingReport

__all__ = ["MissingApiKeyError", "ModelRegistry", "endpoint_key", "endpoint_of"]


class MissingApiKeyError(RuntimeError):
    """A model needs a key from the environment and it is not set."""


def endpoint_of(spec: ModelSpec) -> str:
    """A stable name of where requests go, part of every cache key.

    The local server's port changes every run, so its endpoint is named by the model, not the URL.
    A model on replicas is named by its distinct servers, sorted and joined with ``,``: the
    same whichever replica answers and in whatever order they are listed; several keys on
    one server keep that server's name (keys never enter cache keys).
    """
    provider = find_provider(spec.provider)
    if spec.replicas is None:
        return provider.endpoint(spec)
    return ",".join(sorted({provider.endpoint(replica) for replica in spec.replica_specs()}))


def endpoint_key(spec: ModelSpec) -> str:
    """What shares one quota: the provider, where requests go and whose key they carry.

    Two specs that differ only in sampling, timeouts or model name on the same server and key
    draw on the same rate limits, so they share one ``EndpointState``.
    """
    if spec.replicas is not None:
        return " + ".join(endpoint_key(replica) for replica in spec.replica_specs())
    variable = spec.api_key_env or find_provider(spec.provider).key_variable or ""
    return f"{spec.provider}|{endpoint_of(spec)}|{variable}"


class ModelRegistry:
    """Creates one client per distinct spec and closes them all on exit.

    Every client except the mock goes through a ``LimitedClient`` whose ``EndpointState`` is
    shared by all specs with the same ``endpoint_key``, so one role's 429 paces them all.
    """

    def __init__(self) -> None:
        self._clients: dict[str, ModelClient] = {}
        self._endpoints: dict[str, EndpointState] = {}
        self._replica_sets: dict[str, ReplicaSet] = {}
        self._services: dict[type[SharedService], SharedService] = {}
        self._batch_apis: list[BatchApi] = []
        self._failures = AttemptFailures()
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
        for one in spec.replica_specs() or (spec,):
            self.api_key(one)

    def api_key(self, spec: ModelSpec) -> str:
        """The key ``spec`` carries, read from the environment (``"unused"`` if it takes none)."""
        provider = find_provider(spec.provider)
        if not provider.uses_key:
            return "unused"
        variable = spec.api_key_env or provider.key_variable
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
        merged value changes nothing). The provider answers when it can without a client
        (OpenAI-format servers take all four settings; the mock takes them only as part of the
        request); otherwise, as for plugins, the client is created (and kept for the run) to
        ask it.
        """
        effective = spec.sampling.merged(sampling)
        provider = find_provider(spec.provider)
        if provider.unsupported is not None:
            return provider.unsupported(effective)
        identity = spec.model_dump_json()
        client = self._clients.get(identity)
        if client is None:
            client = self._clients[identity] = self._build(spec, provider)
        assert isinstance(client, SamplingReport), "plugin clients are checked on creation"
        return client.unsupported(effective)

    async def client(self, spec: ModelSpec) -> ModelClient:
        async with self._lock:
            identity = spec.model_dump_json()
            existing = self._clients.get(identity)
            if existing is not None:
                return existing
            provider = find_provider(spec.provider)
            for kind in provider.services:
                await self._start(kind)
            created = self._clients[identity] = self._build(spec, provider)
            return created

    def batch_api(self, spec: ModelSpec) -> BatchApi:
        """A client of ``spec``'s provider batch API (closed with the registry)."""
        make = find_provider(spec.provider).batch
        if make is None:
            raise ValueError(f"{spec.id}: {spec.provider} has no batch API")
        api = make(spec, self)
        self._batch_apis.append(api)
        return api

    def endpoint_state(self, spec: ModelSpec) -> EndpointState | None:
        """The shared limiter state of ``spec``'s endpoint, once a client for it exists."""
        return self._endpoints.get(endpoint_key(spec))

    def endpoint_stats(self) -> dict[str, LimitStats]:
        """Counters of every endpoint used so far (429s, retries, waits), by endpoint key."""
        return {key: state.stats() for key, state in sorted(self._endpoints.items())}

    def replica_sets(self) -> dict[str, ReplicaSet]:
        """The replica sets in use (health and routing of models on replicas), by endpoint."""
        return {replicas.name: replicas for replicas in self._replica_sets.values()}

    def keep_failures(self, log: FailureLog) -> None:
        """Hand every failed attempt from now on to ``log`` (the run's store), with the
        replica it failed on: clients made before are included."""
        self._failures.log = log

    def replica_warnings(self) -> list[str]:
        """Replicas taken out so far, with their last fault (a run that finished on fewer
        servers than configured says so)."""
        return [line for replicas in self._replica_sets.values() for line in replicas.warnings()]

    def _build(self, spec: ModelSpec, provider: Provider) -> ModelClient:
        if spec.replicas is not None:
            return self._on_replicas(spec, provider)
        created = provider.create(spec, self)
        if not provider.limited:
            return created
        return self._limited(spec, created, credential_free_url(endpoint_of(spec)))

    def _on_replicas(self, spec: ModelSpec, provider: Provider) -> ReplicaClient:
        """One limited client per replica (each replica's own endpoint state, shared with any
        other spec on that server and key) over the set's shared health and routing."""
        replicas = spec.replica_specs()
        key = endpoint_key(spec)
        replica_set = self._replica_sets.get(key)
        if replica_set is None:
            health = [ReplicaHealth(_replica_name(one)) for one in replicas]
            replica_set = self._replica_sets[key] = ReplicaSet(endpoint_of(spec), health)
        clients = [
            self._limited(one, guarded(provider.create(one, self), health), health.name)
            for one, health in zip(replicas, replica_set.health, strict=True)
        ]
        return ReplicaClient(
            model_id=spec.id, endpoint=endpoint_of(spec), replicas=clients, replica_set=replica_set
        )

    def _limited(self, spec: ModelSpec, client: ModelClient, replica: str) -> LimitedClient:
        """``client`` paced by its endpoint's shared state, its failed attempts reported as
        failures of ``replica``."""
        key = endpoint_key(spec)
        state = self._endpoints.get(key)
        if state is None:
            state = self._endpoints[key] = EndpointState(endpoint_of(spec), spec.limits)
        else:
            state.adopt(spec.limits)
        return LimitedClient(client, state, self._failures.reporter(replica))

    async def _start(self, kind: type[SharedService]) -> None:
        if kind not in self._services:
            service = kind()
            await asyncio.to_thread(service.start)
            self._services[kind] = service

    def service(self, kind: type[Service]) -> Service:
        """The run's started ``kind`` service, for a provider building a client."""
        service = self._services.get(kind)
        if service is None:
            raise RuntimeError(f"{kind.__name__} was not started: name it in Provider.services")
        assert isinstance(service, kind)
        return service

    async def aclose(self) -> None:
        clients: list[ModelClient | BatchApi] = [*self._clients.values(), *self._batch_apis]
        self._clients.clear()
        self._batch_apis.clear()
        for client in clients:
            await client.aclose()
        services = list(self._services.values())
        self._services.clear()
        for service in services:
            await asyncio.to_thread(service.stop)


def _replica_name(replica: ModelSpec) -> str:
    """How messages, stored calls and the summary name one replica: its server, and its key
    variable when it names one (the variable's name, never its value)."""
    variable = f" ({replica.api_key_env})" if replica.api_key_env else ""
    return credential_free_url(endpoint_of(replica)) + variable
