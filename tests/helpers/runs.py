"""Running an experiment or study through the CLI and reading back its run folder."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sized
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "Run",
    "kill_once_stored",
    "mock_run",
    "nowhere_in_run_folder",
    "rerun_makes_no_calls",
    "rerun_sends_no_requests",
    "run",
    "start_cli_run",
    "stored_count",
    "stored_rows",
]

Invoke = Callable[..., Any]


@dataclass(frozen=True)
class Run:
    """A finished run folder."""

    config: Path
    out: Path
    output: str = field(default="", compare=False)
    """What the run printed."""

    def json(self, name: str) -> Any:
        return json.loads((self.out / name).read_text(encoding="utf-8"))

    @property
    def summary(self) -> Any:
        return self.json("summary.json")

    @property
    def results(self) -> Any:
        return self.json("results.json")

    def rows(self, query: str) -> list[tuple[Any, ...]]:
        with sqlite3.connect(self.out / "fairpanel.sqlite") as db:
            return db.execute(query).fetchall()

    def study_items(self) -> list[tuple[dict[str, Any], str, dict[str, Any] | None]]:
        """Every stored study item: its spec, its status and its result."""
        return [
            (json.loads(spec), status, json.loads(result) if result else None)
            for spec, status, result in self.rows("SELECT spec, status, result FROM study_items")
        ]


def run(cli: Invoke, config: Path, out: Path) -> Run:
    """``fairpanel run config --out out``, which must succeed."""
    result = cli("run", str(config), "--out", str(out))
    assert result.exit_code == 0, result.output
    return Run(config, out, result.output)


def rerun_makes_no_calls(cli: Invoke, finished: Run) -> None:
    """Running the same config into the same folder again answers everything from the store."""
    again = cli("run", str(finished.config), "--out", str(finished.out))
    assert again.exit_code == 0, again.output
    assert finished.summary["calls_made"] == 0


def rerun_sends_no_requests(cli: Invoke, finished: Run, requests: Sized) -> None:
    """Running the same config into the same folder again sends no request to the server
    whose ``requests`` log is given: the store answers everything."""
    before = len(requests)
    again = cli("run", str(finished.config), "--out", str(finished.out))
    assert again.exit_code == 0, again.output
    assert len(requests) == before


def nowhere_in_run_folder(out: Path, secret: str) -> None:
    """No file the run wrote carries ``secret`` (an API key)."""
    for file in out.rglob("*"):
        if file.is_file():
            assert secret.encode() not in file.read_bytes(), file


def mock_run(cli: Invoke, root: Path, experiment: str) -> Run:
    """Write ``experiment`` (YAML text) under ``root`` and run it (a module-scoped fixture's
    shared run folder)."""
    config = root / "experiment.yaml"
    config.write_text(experiment, encoding="utf-8")
    return run(cli, config, root / "run")


def stored_rows(db_path: Path, query: str) -> list[tuple[Any, ...]]:
    """``query``'s rows on a store another process may be writing, opened read-only; none
    while the store or its tables do not exist yet."""
    if not db_path.exists():
        return []
    try:
        with sqlite3.connect(f"file:{db_path}?mode=ro", uri=True) as db:
            return list(db.execute(query).fetchall())
    except sqlite3.OperationalError:
        return []


def stored_count(db_path: Path, table: str) -> int:
    """How many rows ``table`` holds in a store another process may be writing (0 before)."""
    rows = stored_rows(db_path, f"SELECT COUNT(*) FROM {table}")
    return int(rows[0][0]) if rows else 0


def start_cli_run(path: Path, out: Path, env: Mapping[str, str]) -> subprocess.Popen[bytes]:
    """``fairpanel run PATH --out OUT --no-report`` in a fresh interpreter that a test can kill,
    with ``env`` added to this process's environment; stderr is kept for the test to read."""
    return subprocess.Popen(
        [sys.executable, "-m", "fairpanel", "run", str(path), "--out", str(out), "--no-report"],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def kill_once_stored(
    process: subprocess.Popen[bytes],
    db_path: Path,
    rows: int,
    *,
    table: str = "trials",
    timeout: float = 60.0,
) -> None:
    """SIGKILL ``process`` as soon as its store holds ``rows`` rows of ``table`` (a study's
    items are in ``study_items``); fails the test when the run dies first (with its stderr) or
    stores nothing for ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while stored_count(db_path, table) < rows:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert time.monotonic() < deadline, "run made no progress"
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait()
