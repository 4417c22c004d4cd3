"""Pacing from the provider's rate-limit headers, next to a client that presses on.

Each client gets its own fake OpenAI server (tests/fakes) enforcing ``--rpm`` requests per
sliding minute with ``--latency`` seconds per answer, and sends ``--calls`` requests at most
``--in-flight`` at a time:

- ``headers``: fairpanel's limited client (registry, ``limits.requests_per_minute`` = rpm)
  with the server sending ``x-ratelimit-*`` headers, so it paces from the quota they report;
- ``no-headers``: the same client against a server that sends none, so the configured limit
  paces (the smooth leaky bucket under the limit);
- ``aggressive``: a bare openai SDK loop that sends as fast as it may and, on a 429, sleeps
  the Retry-After the server sent and tries again (what Inspect AI does).

Prints each client's wall time, calls/s and 429s (counted by the server), and the ratios of
the fairpanel runs' wall times to the aggressive client's. The goal: ``headers`` no slower
than ``aggressive`` (ratio <= 1.0) with 429s under 1% of requests. The default 2,175 calls at
600/min take about 200 s per client; develop with ``--calls 300``.

    .venv/bin/python bench/pacing.py [--calls N] [--latency S] [--rpm N] [--in-flight N]
        [--clients headers,no-headers,aggressive]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import openai

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from helpers.fakes import FakeOpenAIServer

from fairpanel.agents import (
    EndpointLimits,
    LimitedClient,
    Message,
    ModelRegistry,
    ModelRequest,
    ModelSpec,
    retry_after_from_headers,
)

CLIENTS = ("headers", "no-headers", "aggressive")


async def _fairpanel(base_url: str, calls: int, rpm: int, in_flight: int) -> dict[str, Any]:
    spec = ModelSpec(
        id="openai-compatible/bench",
        base_url=base_url,
        limits=EndpointLimits(requests_per_minute=rpm, max_in_flight=in_flight),
    )
    async with ModelRegistry() as registry:
        client = await registry.client(spec)
        assert isinstance(client, LimitedClient)

        async def one(index: int) -> None:
            message = Message(role="user", content=f"call {index}")
            await client.complete(ModelRequest(model=spec.id, messages=(message,)))

        await asyncio.gather(*(one(index) for index in range(calls)))
        stats = client.state.stats()
    return {"quota_paced": stats.quota_paced, "failures": stats.failures}


async def _aggressive(base_url: str, calls: int, in_flight: int) -> dict[str, Any]:
    """Send at once; on a 429 sleep what the server said (1 s when it said nothing), retry."""
    client = openai.AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)
    slots = asyncio.Semaphore(in_flight)
    sleeps = 0

    async def one(index: int) -> None:
        nonlocal sleeps
        while True:
            async with slots:
                try:
                    await client.chat.completions.create(
                        model="bench", messages=[{"role": "user", "content": f"call {index}"}]
                    )
                    return
                except openai.RateLimitError as exc:
                    wait = retry_after_from_headers(exc.response.headers)
            sleeps += 1
            await asyncio.sleep(1.0 if wait is None else wait)

    try:
        await asyncio.gather(*(one(index) for index in range(calls)))
    finally:
        await client.close()
    return {"retry_sleeps": sleeps}


async def _run(name: str, calls: int, latency: float, rpm: int, in_flight: int) -> dict[str, Any]:
    headers = name != "no-headers"
    with FakeOpenAIServer(
        latency=latency, rate_limit_per_minute=rpm, limit_headers=headers
    ) as server:
        started = time.monotonic()
        if name == "aggressive":
            extra = await _aggressive(server.base_url, calls, in_flight)
        else:
            extra = await _fairpanel(server.base_url, calls, rpm, in_flight)
        elapsed = time.monotonic() - started
        received = len(server.requests)
    rate_limited = received - calls
    return {
        "client": name,
        "elapsed_s": round(elapsed, 2),
        "calls_per_s": round(calls / elapsed, 3),
        "server_requests": received,
        "rate_limited_429": rate_limited,
        "share_429": round(rate_limited / received, 4),
        **extra,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=2175)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--rpm", type=int, default=600)
    parser.add_argument("--in-flight", type=int, default=16)
    parser.add_argument("--clients", default=",".join(CLIENTS))
    args = parser.parse_args()
    names = [name.strip() for name in args.clients.split(",") if name.strip()]
    unknown = sorted(set(names) - set(CLIENTS))
    if unknown:
        parser.error(f"unknown clients {unknown}; choose from {list(CLIENTS)}")
    results = {
        name: asyncio.run(_run(name, args.calls, args.latency, args.rpm, args.in_flight))
        for name in names
    }
    summary: dict[str, Any] = {
        "calls": args.calls,
        "latency_s": args.latency,
        "requests_per_minute": args.rpm,
        "max_in_flight": args.in_flight,
        "clients": list(results.values()),
    }
    if "aggressive" in results:
        base = results["aggressive"]["elapsed_s"]
        summary["wall_time_over_aggressive"] = {
            name: round(result["elapsed_s"] / base, 3)
            for name, result in results.items()
            if name != "aggressive"
        }
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
