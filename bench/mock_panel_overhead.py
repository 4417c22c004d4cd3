"""CPU cost of fairpanel's machinery per judge call, next to the bare mock provider.

Runs a mock experiment end to end (design, AutoGen group chat, re-ask checks, cache, SQLite
store) and, in the same process, the same number of direct mock calls; prints both and their
ratio. A second run of the same experiment measures resuming (every call answered from the
store).

    .venv/bin/python bench/mock_panel_overhead.py [--derived N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path

from fairpanel.agents import Message, MockBias, ModelRequest, mock_reply
from fairpanel.judging.engine import run_experiment
from fairpanel.judging.experiment import ExperimentConfig
from fairpanel.judging.protocol import output_schema


def _config(derived: int) -> ExperimentConfig:
    return ExperimentConfig.model_validate(
        {
            "name": "bench",
            "responder": {"model": "mock/responder"},
            "panel": {
                "judges": ["domain_expert", "clarity_editor", "creativity_reviewer"],
                "model": "mock/judge",
                "discussion_rounds": 1,
            },
            "scenarios": {"bases": ["fitness-coaching"], "derived_per_base": derived},
            "identities": {"categories": ["gender", "race"]},
            "pair": {"counterbalance": False},
            "concurrency": 16,
        }
    )


def _bare_calls(count: int) -> float:
    request = ModelRequest(
        model="mock/judge",
        messages=(
            Message(
                role="user", content='<candidate id="A" author="a female">\nplan\n</candidate>'
            ),
        ),
        response_schema=output_schema("single"),
    )
    started = time.process_time()
    for index in range(count):
        mock_reply(request.model_copy(update={"replicate": index}), MockBias())
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--derived", type=int, default=3)
    args = parser.parse_args()
    config = _config(args.derived)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run"
        started = time.process_time()
        first = asyncio.run(run_experiment(config, out))
        full_cpu = time.process_time() - started
        started = time.process_time()
        second = asyncio.run(run_experiment(config, out))
        resume_cpu = time.process_time() - started
    calls = first.calls_made
    bare_cpu = _bare_calls(calls)
    report = {
        "trials": first.trials_total,
        "judge_and_responder_calls": calls,
        "cpu_ms_per_call_fairpanel": round(1000 * full_cpu / calls, 3),
        "cpu_ms_per_call_bare_mock": round(1000 * bare_cpu / calls, 3),
        "overhead_ratio": round(full_cpu / bare_cpu, 1),
        "resume_calls_made": second.calls_made,
        "resume_cpu_over_first_run": round(resume_cpu / full_cpu, 3),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
