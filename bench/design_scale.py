"""Memory and time of designing and scheduling a large experiment, and of resuming a run.

memory: peak RSS of a fresh process that loads an experiment and makes the runner's
scheduling pass (every trial designed, keyed and checked against the store) for a small and
a large design, side by side; the ratio should stay near 1 because trials are generated
lazily. resume: wall time of running a finished mock run again over the first run.
run_memory: peak RSS of whole mock runs (designed, run, every call and turn stored) at a
small and a 40-times larger design, each in a fresh process.

    .venv/bin/python bench/design_scale.py [--small-replicates 1] [--large-replicates 8]
        [--run-large-replicates 4]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fairpanel.judging.engine import run_experiment
from fairpanel.judging.experiment import ExperimentConfig

_CHILD = """
import json, resource, sys, time
from fairpanel.judging import ExperimentConfig, design_of
config = ExperimentConfig.model_validate(json.loads(sys.argv[1]))
started = time.perf_counter()
finished = set()
count = pending = 0
for spec in design_of(config).trials():
    count += 1
    pending += spec.key() not in finished
print(json.dumps({"trials": count, "seconds": time.perf_counter() - started,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

_RUN_CHILD = """
import asyncio, json, resource, sys, tempfile, time
from pathlib import Path
from fairpanel.judging import ExperimentConfig, run_experiment
config = ExperimentConfig.model_validate(json.loads(sys.argv[1]))
started = time.perf_counter()
with tempfile.TemporaryDirectory() as folder:
    summary = asyncio.run(run_experiment(config, Path(folder) / "run"))
print(json.dumps({"trials": summary.trials_total, "trials_ok": summary.trials_ok,
                  "seconds": time.perf_counter() - started,
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _config(replicates: int, derived: int) -> dict[str, Any]:
    return {
        "name": "scale",
        "responder": {"model": "mock/responder"},
        "panel": {"judges": ["domain_expert", "clarity_editor"], "model": "mock/judge"},
        "scenarios": {"bases": "all", "derived_per_base": derived},
        "identities": {"categories": ["gender", "race", "religion"]},
        "replicates": replicates,
    }


def _child(config: dict[str, Any], script: str = _CHILD) -> dict[str, Any]:
    result = subprocess.run(
        [sys.executable, "-c", script, json.dumps(config)],
        check=True,
        capture_output=True,
        text=True,
    )
    return dict(json.loads(result.stdout))


def _resume(derived: int) -> dict[str, Any]:
    config = ExperimentConfig.model_validate(
        {**_config(1, derived), "protocols": ["single"], "concurrency": 16}
    )
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "run"
        started = time.perf_counter()
        first = asyncio.run(run_experiment(config, out))
        first_s = time.perf_counter() - started
        started = time.perf_counter()
        second = asyncio.run(run_experiment(config, out))
        second_s = time.perf_counter() - started
    return {
        "trials": first.trials_total,
        "first_run_s": round(first_s, 2),
        "rerun_s": round(second_s, 2),
        "rerun_calls_made": second.calls_made,
        "rerun_over_first": round(second_s / first_s, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--small-replicates", type=int, default=1)
    parser.add_argument("--large-replicates", type=int, default=8)
    parser.add_argument("--resume-derived", type=int, default=10)
    parser.add_argument(
        "--run-large-replicates",
        type=int,
        default=4,
        help="replicates of the large full mock run (0 skips the run-memory comparison)",
    )
    args = parser.parse_args()
    small = _child(_config(args.small_replicates, 1))
    large = _child(_config(args.large_replicates, 10))
    report: dict[str, Any] = {
        "memory": {
            "small": small,
            "large": large,
            "peak_rss_ratio": round(large["peak_rss_mb"] / small["peak_rss_mb"], 3),
        },
        "resume": _resume(args.resume_derived),
    }
    if args.run_large_replicates:
        single = {"protocols": ["single"], "concurrency": 16}
        run_small = _child({**_config(1, 1), **single}, _RUN_CHILD)
        run_large = _child({**_config(args.run_large_replicates, 10), **single}, _RUN_CHILD)
        report["run_memory"] = {
            "small": run_small,
            "large": run_large,
            "peak_rss_ratio": round(run_large["peak_rss_mb"] / run_small["peak_rss_mb"], 3),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
