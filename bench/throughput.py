"""Throughput of the per-endpoint limiter against a server that enforces the same limit.

Starts the fake OpenAI server (tests/fakes) with a sliding-window limit of ``--rpm`` requests
per minute and ``--latency`` seconds per answer, sends ``--calls`` requests through the
registry's limited client for an ``openai-compatible`` spec with
``limits.requests_per_minute`` set to the same number, and prints the achieved calls per
second next to the limit. The goal is a ratio of at least 0.95 with no 429s: the limiter
should use the quota without overrunning it. The default (2000 calls at 600/min) takes
about 200 s. The server sends no rate-limit headers here, so the configured limit paces; with
``--limit-headers`` it reports its quota and the client paces from that (bench/pacing.py
compares the two with a client that presses on).

    .venv/bin/python bench/throughput.py [--calls N] [--latency S] [--rpm N] [--in-flight N]
        [--limit-headers]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from helpers.fakes import FakeOpenAIServer

from fairpanel.agents import (
    EndpointLimits,
    LimitedClient,
    Message,
    ModelRegistry,
    ModelRequest,
    ModelSpec,
)


async def _run(
    calls: int, latency: float, rpm: int, in_flight: int, headers: bool
) -> dict[str, Any]:
    with FakeOpenAIServer(
        latency=latency, rate_limit_per_minute=rpm, limit_headers=headers
    ) as server:
        spec = ModelSpec(
            id="openai-compatible/bench",
            base_url=server.base_url,
            limits=EndpointLimits(requests_per_minute=rpm, max_in_flight=in_flight),
        )
        async with ModelRegistry() as registry:
            client = await registry.client(spec)
            assert isinstance(client, LimitedClient)

            async def one(index: int) -> None:
                await client.complete(
                    ModelRequest(
                        model=spec.id,
                        messages=(Message(role="user", content=f"call {index}"),),
                    )
                )

            started = time.monotonic()
            await asyncio.gather(*(one(index) for index in range(calls)))
            elapsed = time.monotonic() - started
            stats = client.state.stats()
        received = len(server.requests)
    achieved = calls / elapsed
    limit = rpm / 60
    return {
        "calls": calls,
        "latency_s": latency,
        "requests_per_minute": rpm,
        "max_in_flight": in_flight,
        "limit_headers": headers,
        "elapsed_s": round(elapsed, 2),
        "achieved_calls_per_s": round(achieved, 3),
        "limit_calls_per_s": round(limit, 3),
        "ratio": round(achieved / limit, 3),
        "rate_limited_429": stats.rate_limited,
        "server_requests": received,
        "retries": stats.retries,
        "failures": stats.failures,
        "waits": stats.waits,
        "wait_s": stats.wait_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--rpm", type=int, default=600)
    parser.add_argument("--in-flight", type=int, default=16)
    parser.add_argument("--limit-headers", action="store_true")
    args = parser.parse_args()
    result = asyncio.run(
        _run(args.calls, args.latency, args.rpm, args.in_flight, args.limit_headers)
    )
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
