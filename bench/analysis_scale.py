"""Wall time and peak RSS of `fairpanel report` on run folders of 10k, 100k and 1M judge turns.

Usage: .venv/bin/python bench/analysis_scale.py [--sizes 10000,100000,1000000] [--work DIR]

A real mock run (single and pair protocols, main, placebo and same_label arms, two treatments,
three judges with one discussion round: first, discussion and final rounds) is made once as a
template; each size is then synthesized from it by cloning its trials under fresh trial and
request keys into more base scenarios and replicates, with the judges' scores jittered, about
2% of the turns made unparseable and about 0.5% of the trials failed. The clones are written
into a store created by the project's own ``Store`` (its schema and migrations) in one
transaction with ``executemany``, so only the trials and turns tables grow; the template's
calls, responses (cloned per base), manifest and resolved config stay as a run leaves them.

Each size's `fairpanel report` (results.json, the tables and report.html) runs in a fresh
child process, with fairpanel's modules byte-compiled first as an installed package's are;
its wall time, peak RSS (``ru_maxrss`` from ``os.wait4``: its largest process) and the peak
of the summed PSS of all its processes (the report forks workers for a large run's analyses;
sampled every 0.2 s in a second run, since sampling slows the report) are printed with
the seconds per 100k turns and, between consecutive sizes, how time grew against the turns.
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import importlib.util
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from fairpanel.judging.store import (
    RESOLVED_CONFIG_FILE,
    STORE_FILE,
    Store,
    name_id,
    packed_codes,
    packed_numbers,
    trial_design,
)
from fairpanel.run_folder import run

TEMPLATE = """
name: scale-template
seed: 3
protocols: [single, pair]
models:
  judge-mock:
    id: mock/judge
    mock:
      score_shift: {female: {creativity: 1.0}}
      first_position_bias: 0.2
responder:
  model: mock/responder
panel:
  judges: [domain_expert, creativity_reviewer, clarity_editor]
  model: judge-mock
  discussion_rounds: 1
scenarios:
  bases: [emergency-triage, salary-negotiation]
  derived_per_base: 1
identities:
  categories: [gender]
arms: {placebo: true, same_label: true}
treatments:
  - {name: none}
  - {name: author-blind, judge_instruction: "Judge the answer only, never who wrote it."}
concurrency: 16
"""

BASE_GROUPS = 40
"""Clone c of a template trial goes to base group c % BASE_GROUPS (a base scenario of its own)
and replicate c // BASE_GROUPS: a large audit has tens of bases, the rest is replication."""
JITTERS = 16
PARSE_FAILURE_RATE = 0.02
TRIAL_FAILURE_RATE = 0.005
METRIC_NAMES = ("creativity", "accuracy", "efficiency", "reliability")
TURN_COLUMNS = (
    "trial_key, round, round_kind, judge, speaker_index, judge_model, raw_text, parsed, "
    "parse_error, attempts, prompt_tokens, completion_tokens, latency_s, call_keys"
)
PACKED_COLUMNS = "numbers, codes"
"""What the store packs beside each turn for the analysis (``Store.put_trial`` writes them)."""
TRIAL_COLUMNS = (
    "key, protocol, spec, status, error, consensus, schema_version, created_at, design, "
    "design_numbers, request_digest"
)


def make_template(work: Path) -> Path:
    folder = work / "template"
    if (folder / STORE_FILE).is_file():
        return folder
    config = work / "template.yaml"
    config.write_text(TEMPLATE, encoding="utf-8")
    run(config, folder, report=False)
    return folder


def _jittered(parsed: dict[str, Any], rng: random.Random) -> str:
    """The parsed answer with every score moved by -1, 0 or +1 (kept in 0..10)."""

    def move(scores: dict[str, Any]) -> dict[str, Any]:
        out = dict(scores)
        for metric in METRIC_NAMES:
            if metric in out:
                out[metric] = float(min(10, max(0, out[metric] + rng.choice((-1, 0, 0, 1)))))
        return out

    if "A" in parsed and isinstance(parsed["A"], dict):
        return json.dumps({**parsed, "A": move(parsed["A"]), "B": move(parsed["B"])})
    return json.dumps(move(parsed))


def _renamed(identifier: str, group: int) -> str:
    """``emergency-triage/01`` of base group 3 -> ``emergency-triage-g3/01``."""
    head, _, tail = identifier.partition("/")
    return f"{head}-g{group}" + (f"/{tail}" if tail else "")


def synthesize(template: Path, target: Path, turns_wanted: int, seed: int = 0) -> int:
    """A run folder at ``target`` with about ``turns_wanted`` judge turns; returns the count."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for name in os.listdir(template):
        if name.endswith(".json"):
            shutil.copy(template / name, target / name)
    source = sqlite3.connect(template / STORE_FILE)
    trials = source.execute(
        "SELECT key, protocol, spec, consensus, schema_version, created_at FROM trials "
        "WHERE status = 'ok' ORDER BY key"
    ).fetchall()
    turns_of: dict[str, list[tuple[Any, ...]]] = {}
    for row in source.execute(f"SELECT {TURN_COLUMNS} FROM turns ORDER BY trial_key, round"):
        turns_of.setdefault(row[0], []).append(row)
    responses = source.execute("SELECT * FROM responses").fetchall()
    source.close()
    shutil.copy(template / STORE_FILE, target / STORE_FILE)
    Store(target / STORE_FILE).close()  # the project's schema, brought up to date
    per_copy = sum(len(turns_of.get(row[0], [])) for row in trials)
    copies = max(1, round(turns_wanted / per_copy))
    rng = random.Random(seed)
    jitter = {
        (key, index): [
            None if turn[7] is None else _jittered(json.loads(turn[7]), rng) for _ in range(JITTERS)
        ]
        for key, rows in turns_of.items()
        for index, turn in enumerate(rows)
    }
    db = sqlite3.connect(target / STORE_FILE, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=OFF")
    db.execute("BEGIN")
    db.execute("DELETE FROM turns")
    db.execute("DELETE FROM trials")
    db.execute("DELETE FROM responses")
    db.executemany(
        "INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?)",
        (
            (_renamed(r[0], group), r[1], r[2], r[3], r[4])
            for group in range(min(copies, BASE_GROUPS))
            for r in responses
        ),
    )
    trial_rows: list[tuple[Any, ...]] = []
    turn_rows: list[tuple[Any, ...]] = []
    names: dict[tuple[str, str, str], int] = {}
    total = 0
    for copy in range(copies):
        group, replicate = copy % BASE_GROUPS, copy // BASE_GROUPS
        for key, protocol, spec_text, consensus, version, created in trials:
            spec = json.loads(spec_text)
            spec["base_id"] = _renamed(spec["base_id"], group)
            spec["scenario_id"] = _renamed(spec["scenario_id"], group)
            spec["replicate"] = replicate
            new_key = hashlib.sha256(f"{key}/{copy}".encode()).hexdigest()
            failed = rng.random() < TRIAL_FAILURE_RATE
            source_turns = turns_of.get(key, [])
            call_keys = [
                hashlib.sha256(f"{new_key}/{index}".encode()).hexdigest()
                for index in range(len(source_turns))
            ]
            trial_rows.append(
                (
                    new_key,
                    protocol,
                    json.dumps(spec, sort_keys=True),
                    "failed" if failed else "ok",
                    "judge call failed: timeout" if failed else None,
                    None if failed else consensus,
                    version,
                    created,
                    *trial_design(
                        spec, None if failed or not consensus else json.loads(consensus), call_keys
                    ),
                )
            )
            for index, turn in enumerate(source_turns):
                parsed = jitter[(key, index)][rng.randrange(JITTERS)]
                broken = parsed is None or rng.random() < PARSE_FAILURE_RATE
                call_key = call_keys[index]
                named = (turn[2], turn[3], turn[5])
                if named not in names:
                    names[named] = name_id(db, *named)
                codes = packed_codes(new_key, turn[1], turn[4], turn[9], not broken, names[named])
                turn_rows.append(
                    (
                        new_key,
                        *turn[1:6],
                        "I would rather not score this." if broken else turn[6],
                        None if broken else parsed,
                        "no JSON object in the reply" if broken else None,
                        *turn[9:13],
                        json.dumps([call_key]),
                        packed_numbers(None if broken else json.loads(parsed)),
                        codes,
                    )
                )
                total += 1
        if len(turn_rows) > 200_000:
            _flush(db, trial_rows, turn_rows)
    _flush(db, trial_rows, turn_rows)
    db.execute("COMMIT")
    db.close()
    resolved_file = target / RESOLVED_CONFIG_FILE
    resolved = json.loads(resolved_file.read_text(encoding="utf-8"))
    resolved["replicates"] = (copies - 1) // BASE_GROUPS + 1
    resolved_file.write_text(json.dumps(resolved, indent=2) + "\n", encoding="utf-8")
    return total


def _flush(db: sqlite3.Connection, trials: list[Any], turns: list[Any]) -> None:
    db.executemany(f"INSERT INTO trials ({TRIAL_COLUMNS}) VALUES ({', '.join('?' * 11)})", trials)
    db.executemany(
        f"INSERT INTO turns ({TURN_COLUMNS}, {PACKED_COLUMNS}) VALUES ({', '.join('?' * 16)})",
        turns,
    )
    trials.clear()
    turns.clear()


PACKAGES = (
    "fairpanel",
    "fairpanel.agents",
    "fairpanel.scenarios",
    "fairpanel.personas",
    "fairpanel.judging",
    "fairpanel.analysis",
    "fairpanel.studies",
    "fairpanel.report",
)


def compile_package() -> None:
    """Byte-compile fairpanel's modules, as installing a package does. Where
    PYTHONDONTWRITEBYTECODE is set (our machines set it) an editable checkout has no bytecode,
    and every report would first compile its few hundred modules from source (about 0.3 s)."""
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        for directory in (spec.submodule_search_locations or []) if spec else []:
            compileall.compile_dir(directory, quiet=1)


def _descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (Linux's /proc/PID/task/TID/children)."""
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        for children in Path(f"/proc/{current}/task").glob("*/children"):
            try:
                pending += [int(child) for child in children.read_text().split()]
            except OSError:
                continue  # the task ended meanwhile
    return found


def _pss_mb(pid: int) -> float:
    """The proportional set size of ``pid`` and its descendants together (MB): pages the
    report's forked workers share with it count once, what they add counts too."""
    total = 0
    for process in _descendants(pid):
        try:
            rollup = Path(f"/proc/{process}/smaps_rollup").read_text()
        except OSError:
            continue
        pss = [line for line in rollup.splitlines() if line.startswith("Pss:")]
        total += sum(int(line.split()[1]) for line in pss)
    return total / 1024


class PssPeak(threading.Thread):
    """Samples the summed PSS of a process tree until the process ends; ``peak`` is the
    largest sum seen. Every 0.2 s: the kernel walks a process's pages for each sample (some
    20 ms for a 1.4 GB process), and sampling faster would slow the report it measures."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.done = pid, 0.0, threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.2):
            self.peak = max(self.peak, _pss_mb(self.pid))


def _report(folder: Path, sample_memory: bool) -> tuple[float, Any, float]:
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "fairpanel", "report", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    sampler = PssPeak(child.pid)
    if sample_memory:
        sampler.start()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if sample_memory:
        sampler.done.set()
        sampler.join()
    if status != 0:
        assert child.stderr is not None
        sys.exit(f"fairpanel report {folder} failed:\n{child.stderr.read().decode()}")
    return seconds, usage, sampler.peak


def time_report(folder: Path) -> tuple[float, float, float, float]:
    """Wall seconds, CPU seconds (user + system, the report's workers included) and peak RSS
    of its largest process (MB) of ``fairpanel report FOLDER`` in a fresh process; then, from a
    second run whose memory is sampled (sampling slows it), the peak summed PSS (MB)."""
    seconds, usage, _ = _report(folder, sample_memory=False)
    cpu = usage.ru_utime + usage.ru_stime
    _, _, pss = _report(folder, sample_memory=True)
    return seconds, cpu, usage.ru_maxrss / 1024, pss  # ru_maxrss is in kilobytes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--sizes", default="10000,100000,1000000", help="judge turns, comma-separated"
    )
    parser.add_argument("--work", type=Path, default=None, help="keep the folders here")
    parser.add_argument("--keep", action="store_true", help="reuse folders already synthesized")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    work = args.work or Path(tempfile.mkdtemp(prefix="analysis-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    template = make_template(work)
    compile_package()
    rows = []
    for size in sizes:
        folder = work / f"turns-{size}"
        start = time.perf_counter()
        if args.keep and (folder / STORE_FILE).is_file():
            with sqlite3.connect(folder / STORE_FILE) as db:
                turns = int(db.execute("SELECT COUNT(*) FROM turns").fetchone()[0])
        else:
            turns = synthesize(template, folder, size)
        made = time.perf_counter() - start
        seconds, cpu, rss, pss = time_report(folder)
        print(
            f"{turns:>9,} turns: synthesized in {made:.1f} s; report {seconds:.2f} s "
            f"({cpu:.2f} s CPU), peak RSS {rss:,.0f} MB, peak PSS of all its processes "
            f"{pss:,.0f} MB, load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
        rows.append((turns, seconds, cpu, rss, pss))
    print(f"\nload: {os.getloadavg()[0]:.2f} (1 min) on {os.cpu_count()} cores; folders in {work}")
    print(
        f"{'turns':>10} {'seconds':>8} {'CPU s':>7} {'RSS MB':>7} {'PSS MB':>7} {'s/100k':>7} "
        f"{'time x':>7} {'CPU x':>6} {'turns x':>8}"
    )
    previous = None
    for turns, seconds, cpu, rss, pss in rows:
        growth = ""
        if previous is not None:
            growth = (
                f"{seconds / previous[1]:>7.2f} {cpu / previous[2]:>6.2f} "
                f"{turns / previous[0]:>8.1f}"
            )
        print(
            f"{turns:>10,} {seconds:>8.2f} {cpu:>7.2f} {rss:>7,.0f} {pss:>7,.0f} "
            f"{seconds / turns * 1e5:>7.2f} {growth}"
        )
        previous = (turns, seconds, cpu)


if __name__ == "__main__":
    main()
