"""`fairpanel view` (the served transcripts viewer) on large run folders: how long the first
view takes to build its side index, how soon headless Chromium shows the first page of trials,
how long a filter's page, its counts and a search take to answer, and the server's memory.

Usage: .venv/bin/python bench/view_scale.py [--sizes 100000,1000000] [--work DIR] [--keep]
       [--no-chromium]

The run folders are analysis_scale.py's (a real mock run cloned into more bases and replicates
under fresh keys: single and pair, three arms, two treatments, three judges over first,
discussion and final rounds, ~2% parse failures), named ``turns-N`` under ``--work``;
``--keep`` reuses folders already there (1M turns is about 111k trials). For each, the side
index (``view-index.sqlite``) is removed and `fairpanel view --no-open` starts in a fresh
child process: "first view" is the time until it prints its address (the index built), "next
view" the same with the index there. The server then builds its search index in the
background; Chromium (no virtual time budget left over: it dumps the DOM once the page's
requests are answered and drawn) draws the first page at once, meanwhile, as a user's browser
would; a bare Chromium start on an empty page is the browser's own share. The filter is
``category`` and ``outcome=flipped``; the search is a word of the judges' replies, whose first
query waits for whatever is left of the FTS5 index. RSS is the server's peak (VmHWM) after all
of that.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from analysis_scale import compile_package, make_template, synthesize

from fairpanel.judging.store import STORE_FILE
from fairpanel.viewer import INDEX_FILE

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run")


def start_view(folder: Path) -> tuple[subprocess.Popen[str], str, float]:
    """The running `fairpanel view` child, its address and the seconds until it printed it."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "fairpanel", "view", str(folder), "--no-open"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert child.stdout is not None
    line = child.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:\d+/[\w-]+/", line)
    if found is None:
        child.kill()
        raise SystemExit(f"fairpanel view printed no address: {line!r}")
    return child, found.group(0), time.perf_counter() - start


def stop(child: subprocess.Popen[str]) -> None:
    child.terminate()
    child.wait(timeout=30)


def timed_get(url: str) -> tuple[float, object]:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as reply:
        body = json.loads(reply.read())
    return time.perf_counter() - start, body


def peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    found = re.search(r"VmHWM:\s+(\d+) kB", status)
    return int(found.group(1)) / 1024 if found else float("nan")


def time_chromium(url: str, profile: Path) -> tuple[float, int]:
    """Seconds until Chromium has drawn ``url``'s first page of trials, and how many."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        return float("nan"), 0
    start = time.perf_counter()
    result = subprocess.run(
        [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=60000",
         "--dump-dom", url],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    seconds = time.perf_counter() - start
    if 'data-rendered="yes"' not in result.stdout and url != "about:blank":
        raise SystemExit(f"Chromium did not draw the page: {result.stdout[-500:]}")
    return seconds, result.stdout.count('<article class="trial"')


def measure(folder: Path, chromium: bool) -> str:
    (folder / INDEX_FILE).unlink(missing_ok=True)
    child, url, first_view = start_view(folder)
    stop(child)
    child, url, next_view = start_view(folder)
    try:
        profile = Path(tempfile.mkdtemp(prefix="view-profile-"))
        # As a user sees it: the browser opens while the server builds its search index.
        drawn_s, drawn = time_chromium(url, profile / "page") if chromium else (math.nan, 0)
        options_s, options = timed_get(url + "api/options")
        category = options["options"]["category"][0]  # type: ignore[index]
        page_s, page = timed_get(f"{url}api/page?category={category}&outcome=flipped")
        counts_s, _ = timed_get(f"{url}api/counts?category={category}&outcome=flipped")
        deep_s, _ = timed_get(f"{url}api/page?page={max(1, page['pages'] // 2)}")  # type: ignore[index]
        search_first_s, found = timed_get(url + "api/search?q=rubric")
        search_next_s, _ = timed_get(url + "api/search?q=merits")
        line = (
            f"first view (index built) {first_view:.2f} s, next view {next_view:.2f} s; "
            f"options {options_s * 1000:.0f} ms; filter page {page_s * 1000:.0f} ms "
            f"({page['matches']:,} match), its counts {counts_s * 1000:.0f} ms; "  # type: ignore[index]
            f"a middle page of all {deep_s * 1000:.0f} ms; first search (waits for the FTS5 index) "
            f"{search_first_s:.2f} s ({found['matches']:,} match), next search "  # type: ignore[index]
            f"{search_next_s * 1000:.0f} ms"
        )
        if chromium:
            blank, _ = time_chromium("about:blank", profile / "blank")
            filtered_s, _ = time_chromium(
                url + f"#category={category}&outcome=flipped", profile / "f"
            )
            line += (
                f"; Chromium first page {drawn_s:.2f} s ({drawn} trials, the search index "
                f"building meanwhile; a bare Chromium start {blank:.2f} s), filtered "
                f"{filtered_s:.2f} s"
            )
        shutil.rmtree(profile, ignore_errors=True)
        line += f"; server peak RSS {peak_rss_mb(child.pid):,.0f} MB"
        index_mb = (folder / INDEX_FILE).stat().st_size / 1e6
        return line + f"; side file {index_mb:,.0f} MB"
    finally:
        stop(child)


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
        line = measure(folder, not args.no_chromium)
        print(f"{trials:>9,} trials ({turns:,} turns): {line}; load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
