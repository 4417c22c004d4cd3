"""CPU per model call of full panel trials, next to a bare loop of the same calls.

A zero-latency OpenAI-format server (tests/fakes, in its own process so its CPU is not
counted) answers both: first a fairpanel run (design, AutoGen group chat, validation, cache,
SQLite store) against an openai-compatible judge, then a bare loop replaying the very requests
that run sent (read back from its store: same messages, sampling and response format) through
the openai SDK. The SDK's own cost grows with the messages, so only the same calls make a fair
baseline. Prints CPU milliseconds per call for each and the ratio.

A ratio at one run size mixes per-call work with start-up (lazy imports, the design, the
store's schema, the first connections), which a longer run dilutes. So by default it measures
two run sizes, each in a fresh process so both pay the same start-up, and also prints the
marginal figure: CPU milliseconds per extra call, ``(cpu_large - cpu_small) / (calls_large -
calls_small)``, for fairpanel and for the bare loop, and their ratio (goal <= 1.5). The
defaults (``--derived 1,4``: 308 and 1,232 calls) take about a minute of CPU.

    .venv/bin/python bench/overhead.py [--derived 1,4]   # one number: that run size only
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

from fairpanel.judging.engine import run_experiment
from fairpanel.judging.experiment import ExperimentConfig

ROOT = Path(__file__).resolve().parents[1]
_SERVER = """
import sys, time, json
sys.path.insert(0, sys.argv[1])
from helpers.fakes import FakeOpenAIServer
from helpers.judges import openai_judge_like
with FakeOpenAIServer(openai_judge_like) as server:
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


def _measure(derived: int) -> dict[str, Any]:
    """One run size: fairpanel's run, then the bare loop over the same requests."""
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
            summary = asyncio.run(run_experiment(_config(base_url, derived), Path(folder)))
            panel_cpu, panel_wall = time.process_time() - started, time.perf_counter() - wall
            bodies = _stored_requests(Path(folder) / "fairpanel.sqlite")
        calls = summary.calls_made
        assert len(bodies) == calls, (len(bodies), calls)
        started = time.process_time()
        asyncio.run(_bare(base_url, bodies))
        bare_cpu = time.process_time() - started
    finally:
        server.kill()
    return {
        "derived": derived,
        "trials": summary.trials_total,
        "calls": calls,
        "cpu_s_fairpanel": round(panel_cpu, 3),
        "cpu_s_bare_openai_sdk": round(bare_cpu, 3),
        "cpu_ms_per_call_fairpanel": round(1000 * panel_cpu / calls, 3),
        "cpu_ms_per_call_bare_openai_sdk": round(1000 * bare_cpu / calls, 3),
        "ratio": round(panel_cpu / bare_cpu, 2),
        "fairpanel_calls_per_s": round(calls / panel_wall, 1),
    }


def _measure_in_child(derived: int) -> dict[str, Any]:
    """``_measure`` in a fresh interpreter, so every run size pays the same start-up."""
    output = subprocess.run(
        [sys.executable, __file__, "--derived", str(derived)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    result: dict[str, Any] = json.loads(output)
    return result


def _marginal(small: dict[str, Any], large: dict[str, Any]) -> dict[str, float]:
    extra = large["calls"] - small["calls"]
    panel = 1000 * (large["cpu_s_fairpanel"] - small["cpu_s_fairpanel"]) / extra
    bare = 1000 * (large["cpu_s_bare_openai_sdk"] - small["cpu_s_bare_openai_sdk"]) / extra
    return {
        "extra_calls": extra,
        "fairpanel_cpu_ms_per_extra_call": round(panel, 3),
        "bare_cpu_ms_per_extra_call": round(bare, 3),
        "ratio": round(panel / bare, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--derived",
        default="1,4",
        help="derived prompts per base: one number for one run size, two for the margin",
    )
    args = parser.parse_args()
    sizes = [int(part) for part in args.derived.split(",") if part.strip()]
    if len(sizes) == 1:
        print(json.dumps(_measure(sizes[0]), indent=2))
        return
    if len(sizes) != 2 or sizes[0] >= sizes[1]:
        parser.error("--derived takes one size, or two sizes, smaller first (e.g. 1,4)")
    small, large = (_measure_in_child(size) for size in sizes)
    print(json.dumps({"runs": [small, large], "marginal": _marginal(small, large)}, indent=2))


if __name__ == "__main__":
    main()
