"""Throughput of one model on 1, 2 and 3 replicas, and of 2 with one killed half-way.

Each replica is a fake OpenAI-format server (tests/helpers/fakes) answering after
``--latency`` seconds; fairpanel may keep ``--in-flight`` calls open on each (the replica's
``limits.max_in_flight``), so one replica carries at most in_flight / latency calls per
second. ``--calls`` calls are sent as trials would send them: units of 3 rounds of 2
concurrent calls sharing a route key, ``--units-at-once`` units at a time. Prints calls per
second by replica count, the share each replica served, whether every unit stayed on one
replica, and for the killed run how many calls failed (the goal: none).

    .venv/bin/python bench/replicas.py [--calls 600] [--latency 0.1] [--in-flight 4]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from helpers.fakes import FakeOpenAIServer

from fairpanel.agents import (
    Message,
    ModelCallError,
    ModelClient,
    ModelRegistry,
    ModelRequest,
    ModelSpec,
)

_ROUNDS, _PER_ROUND = 3, 2


def _spec(urls: list[str], in_flight: int) -> ModelSpec:
    limits = {"max_in_flight": in_flight, "backoff_base_s": 0.01, "backoff_max_s": 0.05}
    where: dict[str, Any] = (
        {"replicas": [{"base_url": url} for url in urls]}
        if len(urls) > 1
        else {"base_url": urls[0]}
    )
    return ModelSpec.model_validate(
        {"id": "openai-compatible/bench", "timeout_s": 5.0, "limits": limits, **where}
    )


async def _unit(client: ModelClient, unit: int) -> int:
    failed = 0
    for turn in range(_ROUNDS):
        asks = [
            ModelRequest(
                model="openai-compatible/bench",
                endpoint=client.endpoint,
                messages=(Message(role="user", content=f"u{unit} t{turn} j{j}"),),
                route_key=f"u{unit}",
            )
            for j in range(_PER_ROUND)
        ]
        replies = await asyncio.gather(*(client.complete(a) for a in asks), return_exceptions=True)
        failed += sum(isinstance(r, ModelCallError) for r in replies)
    return failed


async def _run(
    replicas: int, calls: int, latency: float, in_flight: int, at_once: int, kill: bool
) -> dict[str, Any]:
    servers = [FakeOpenAIServer(lambda b: "ok", latency=latency).start() for _ in range(replicas)]
    urls = [server.base_url for server in servers]
    units = calls // (_ROUNDS * _PER_ROUND)
    if kill:
        victim = servers[-1]
        half = calls // (2 * replicas)

        killed = threading.Event()

        def dies(body: dict[str, Any]) -> str:
            if len(victim.requests) >= half and not killed.is_set():
                killed.set()
                threading.Thread(target=victim.stop).start()
            return "ok"

        victim.reply = dies
    try:
        async with ModelRegistry() as registry:
            client = await registry.client(_spec(urls, in_flight))
            queue = iter(range(units))
            failed = 0

            async def worker() -> None:
                nonlocal failed
                for unit in queue:
                    failed += await _unit(client, unit)

            started = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(at_once)))
            seconds = time.perf_counter() - started
    finally:
        for server in servers:
            server.stop()
    total = sum(len(server.requests) for server in servers)
    served: dict[str, set[int]] = {}
    for index, server in enumerate(servers):
        for body in server.requests:
            served.setdefault(body["messages"][0]["content"].split()[0], set()).add(index)
    return {
        "replicas": replicas,
        "killed_one": kill,
        "calls": units * _ROUNDS * _PER_ROUND,
        "seconds": round(seconds, 2),
        "calls_per_s": round(units * _ROUNDS * _PER_ROUND / seconds, 1),
        "ceiling_per_s": round(replicas * in_flight / latency, 1),
        "share": [round(len(server.requests) / max(1, total), 2) for server in servers],
        "units_on_one_replica": sum(len(where) == 1 for where in served.values()) / len(served),
        "failed_calls": failed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=600)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--in-flight", type=int, default=4)
    parser.add_argument("--units-at-once", type=int, default=8)
    args = parser.parse_args()
    for replicas, kill in ((1, False), (2, False), (3, False), (2, True)):
        row = asyncio.run(
            _run(replicas, args.calls, args.latency, args.in_flight, args.units_at_once, kill)
        )
        print(json.dumps(row))


if __name__ == "__main__":
    main()
