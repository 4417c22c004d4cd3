"""Wall time of analysing and reporting a finished run folder, as `fairpanel report` does.

Usage: .venv/bin/python bench/report_speed.py RUN_DIR [--repeats 3]

Prints the median over repeats (after one warm-up that pays for imports) of ``write_results``
alone and of the whole ``fairpanel report`` command (results, tables, report.html), so two
versions of the code can be compared on the same folder.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from typer.testing import CliRunner

from fairpanel.cli import app
from fairpanel.run_folder import write_results


def _median_seconds(action: object, repeats: int) -> float:
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()  # type: ignore[operator]
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    runner = CliRunner()

    def report() -> None:
        result = runner.invoke(app, ["report", str(args.run_dir)], catch_exceptions=False)
        assert result.exit_code == 0, result.output

    report()  # warm-up
    results = _median_seconds(lambda: write_results(args.run_dir), args.repeats)
    whole = _median_seconds(report, args.repeats)
    print(f"{args.run_dir}: write_results {results:.2f} s, fairpanel report {whole:.2f} s")


if __name__ == "__main__":
    main()
