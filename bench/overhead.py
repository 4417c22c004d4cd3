"""CPU per model call of full panel trials, next to a bare loop of the same calls.

A zero-latency OpenAI-format server (tests/fakes, in its own process so its CPU is not
counted) answers both: first a fairpanel run (design, AutoGen group chat, validation, cache,
SQLite store) against an openai-compatible judge, then a bare loop replaying the very requests
that run sent (read back from its store: same messages, sampling and response format) through
the openai SDK. The SDK's own cost grows with the messages, so only the same calls make a fair
baseline. Prints CPU milliseconds per call for each and the ratio
(goal <= 2).

    .venv/bin/python bench/overhead.py [--derived 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import openai

from fairpanel.judging import ExperimentConfig, run_experiment

ROOT = Path(__file__).resolve().parents[1]
_SERVER = """
import sys, time, json
sys.path.insert(0, sys.argv[1])
from fakes import FakeOpenAIServer
from test_providers import judge_like
with FakeOpenAIServer(judge_like) as server:
    print(server.base_url, flush=True)
    time.sleep(3600)
"""


def _config(base_url: str, derived: int) -> ExperimentConfig:
    return ExperimentConfig.model_validate(
        {
            "name": "overhead",
            "models": {
                "judge": {
                    "id": "openai-compatible/judge",
                    "base_url": base_url,
                    "structured_output": True,
                }
            },
            "responder": {"model": "judge"},
            "panel": {
                "judges": ["domain_expert", "clarity_editor", "creativity_reviewer"],
                "model": "judge",
            },
            "scenarios": {"bases": ["fitness-coaching"], "derived_per_base": derived},
            "identities": {"categories": ["gender", "race"]},
            "arms": {"placebo": False, "same_label": False},
            "concurrency": 8,
        }
    )


def _stored_requests(store_file: Path) -> list[dict[str, Any]]:
    """The chat-completions bodies fairpanel sent, rebuilt from its store as plain dicts, so the
    bare loop sends the very same calls (messages, sampling, response format)."""
    bodies: list[dict[str, Any]] = []
    with sqlite3.connect(store_file) as db:
        for (text,) in db.execute("SELECT request FROM calls ORDER BY created_at"):
            request = json.loads(text)
            body: dict[str, Any] = {
                "model": "judge",
                "messages": [
                    {"role": m["role"], "content": m["content"]} for m in request["messages"]
                ],
            }
            sampling = request["sampling"]
            for name in ("temperature", "top_p", "seed", "max_tokens"):
                if sampling.get(name) is not None:
                    body[name] = sampling[name]
            if request.get("response_schema") is not None:
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": request["response_schema"],
                }
            bodies.append(body)
    return bodies


async def _bare(base_url: str, bodies: list[dict[str, Any]]) -> None:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="unused", max_retries=0)
    semaphore = asyncio.Semaphore(8)

    async def one(body: dict[str, Any]) -> None:
        async with semaphore:
            await client.chat.completions.create(**body)

    await asyncio.gather(*(one(body) for body in bodies))
    await client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--derived", type=int, default=2)
    args = parser.parse_args()
    server = subprocess.Popen(
        [sys.executable, "-c", _SERVER, str(ROOT / "tests")],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "tests")},
    )
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as folder:
            started, wall = time.process_time(), time.perf_counter()
            summary = asyncio.run(run_experiment(_config(base_url, args.derived), Path(folder)))
            panel_cpu, panel_wall = time.process_time() - started, time.perf_counter() - wall
            bodies = _stored_requests(Path(folder) / "fairpanel.sqlite")
        calls = summary.calls_made
        assert len(bodies) == calls, (len(bodies), calls)
        started = time.process_time()
        asyncio.run(_bare(base_url, bodies))
        bare_cpu = time.process_time() - started
    finally:
        server.kill()
    print(
        json.dumps(
            {
                "trials": summary.trials_total,
                "calls": calls,
                "cpu_ms_per_call_fairpanel": round(1000 * panel_cpu / calls, 3),
                "cpu_ms_per_call_bare_openai_sdk": round(1000 * bare_cpu / calls, 3),
                "ratio": round(panel_cpu / bare_cpu, 2),
                "fairpanel_calls_per_s": round(calls / panel_wall, 1),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
