"""The embedded default model: SmolLM2-135M served by xllamacpp over real HTTP on loopback.

A whole panel run on it is in test_same_panel.py."""

from __future__ import annotations

import httpx
import pytest

from fairpanel.agents import LocalModelServer, smollm2_weights

pytestmark = pytest.mark.smollm


def test_weights_ship_in_the_wheel() -> None:
    weights = smollm2_weights()
    assert weights.suffix == ".gguf" and weights.stat().st_size > 50_000_000


def test_server_listens_on_loopback_and_stops() -> None:
    server = LocalModelServer(n_parallel=1, n_ctx_per_slot=1024)
    url = server.start()
    try:
        assert url.startswith("http://127.0.0.1:")
        models = httpx.get(f"{url}/models", timeout=10).json()
        assert models["data"]
        reply = httpx.post(
            f"{url}/chat/completions",
            json={
                "model": "smollm2",
                "messages": [{"role": "user", "content": "Say hi."}],
                "max_tokens": 5,
            },
            timeout=60,
        ).json()
        assert reply["usage"]["completion_tokens"] > 0
    finally:
        server.stop()
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{url}/models", timeout=2)
