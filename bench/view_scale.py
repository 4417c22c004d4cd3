"""Wall time, CPU time and peak RSS of `fairpanel view` (the transcripts page) on large run
folders, the page's size, and how long headless Chromium takes to load it and draw its first
page of trials.

Usage: .venv/bin/python bench/view_scale.py [--sizes 100000,1000000] [--work DIR] [--keep]
       [--no-chromium]

The run folders are analysis_scale.py's (a real mock run cloned into more bases and replicates
under fresh keys: single and pair, three arms, two treatments, three judges over first,
discussion and final rounds, ~2% parse failures), named ``turns-N`` under ``--work``;
``--keep`` reuses folders already there (1M turns is about 111k trials). Each `fairpanel view
--no-open` runs in a fresh child process (the package byte-compiled first, as installed).
Chromium loads the page without virtual time, so ``--dump-dom`` returns after the load event,
which comes after the page's script has parsed the data and drawn the first 50 trials.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from analysis_scale import compile_package, make_template, synthesize

from fairpanel.judging.store import STORE_FILE


def time_view(folder: Path, out: Path) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds and peak RSS (MB) of `fairpanel view` in a child process."""
    command = [sys.executable, "-m", "fairpanel", "view", str(folder), "--no-open"]
    start = time.perf_counter()
    child = subprocess.Popen([*command, "--out", str(out)], stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"fairpanel view failed on {folder}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def time_chromium(page: Path, profile: Path) -> tuple[float, int]:
    """Seconds until Chromium has loaded ``page`` (script run, first page drawn) and the
    number of trials it drew."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        return float("nan"), 0
    start = time.perf_counter()
    result = subprocess.run(
        [binary, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
         "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    return time.perf_counter() - start, result.stdout.count('<article class="trial"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="100000,1000000", help="judge turns, comma-separated")
    parser.add_argument("--work", type=Path, default=None, help="keep the folders here")
    parser.add_argument("--keep", action="store_true", help="reuse folders already synthesized")
    parser.add_argument("--no-chromium", action="store_true", help="skip the browser timing")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="view-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    template = None
    compile_package()
    for size in (int(s) for s in args.sizes.split(",")):
        folder = work / f"turns-{size}"
        if not (args.keep and (folder / STORE_FILE).is_file()):
            template = template or make_template(work)
            synthesize(template, folder, size)
        with sqlite3.connect(folder / STORE_FILE) as db:
            trials = int(db.execute("SELECT COUNT(*) FROM trials").fetchone()[0])
            turns = int(db.execute("SELECT COUNT(*) FROM turns").fetchone()[0])
        out = Path(tempfile.mkdtemp(prefix="view-page-")) / "transcripts.html"
        seconds, cpu, rss = time_view(folder, out)
        line = (
            f"{trials:>9,} trials ({turns:,} turns): view {seconds:.2f} s wall, {cpu:.2f} s CPU, "
            f"peak RSS {rss:,.0f} MB; page {out.stat().st_size / 1e6:,.1f} MB"
        )
        if not args.no_chromium:
            loaded, drawn = time_chromium(out, out.parent / "profile")
            line += f"; Chromium load and first page {loaded:.2f} s ({drawn} trials drawn)"
        print(line + f"; load {os.getloadavg()[0]:.2f}", flush=True)
        shutil.rmtree(out.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
