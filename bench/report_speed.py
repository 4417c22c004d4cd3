"""Wall time of whole `fairpanel` commands, each in a fresh process, as a user starts them.

Usage: .venv/bin/python bench/report_speed.py RUN_DIR [LARGE_RUN_DIR] [--repeats 3]

Prints the median wall and CPU time over repeats (after one warm-up) of `fairpanel report RUN_DIR`
(results.json, the terminal answer and report.html, imports included), of `fairpanel --help`
and of `fairpanel estimate` on the built-in example, and the machine's load average, so two
versions of the code can be compared on the same folder side by side. Goals (issue 31): a
small run (a few thousand turns) <= 3 s, a million turns <= 20 s (give LARGE_RUN_DIR, e.g. one
of bench/analysis_scale.py's folders; only on an idle machine), --help and estimate <= 1 s.
fairpanel's modules are byte-compiled first, as an installed package's are.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "fairpanel",
    "agents",
    "analysis",
    "judging",
    "personas",
    "report",
    "scenarios",
    "studies",
)


def _seconds(args: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of ``fairpanel ARGS`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "fairpanel", *args], check=True, capture_output=True, cwd=ROOT
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def _median(args: list[str], repeats: int) -> tuple[float, float]:
    _seconds(args)  # warm-up: the page cache, not imports (each run is a fresh process)
    timings = [_seconds(args) for _ in range(repeats)]
    return (
        statistics.median(wall for wall, _ in timings),
        statistics.median(cpu for _, cpu in timings),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("large_run_dir", type=Path, nargs="?")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for package in PACKAGES:
        compileall.compile_dir(ROOT / package, quiet=1)
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} cores")
    rows = [
        ("fairpanel --help", ["--help"]),
        (
            "fairpanel estimate examples/mock-planted-bias.yaml",
            ["estimate", "examples/mock-planted-bias.yaml"],
        ),
        (f"fairpanel report {args.run_dir}", ["report", str(args.run_dir)]),
    ]
    if args.large_run_dir is not None:
        rows.append((f"fairpanel report {args.large_run_dir}", ["report", str(args.large_run_dir)]))
    for label, command in rows:
        repeats = 1 if command[-1] == str(args.large_run_dir) else args.repeats
        wall, cpu = _median(command, repeats)
        print(f"{label}: {wall:.2f} s wall, {cpu:.2f} s CPU (medians of {repeats})")
    print(f"load average after: {os.getloadavg()[0]:.2f} (1 min)")


if __name__ == "__main__":
    main()
