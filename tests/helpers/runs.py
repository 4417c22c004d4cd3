"""Running an experiment or study through the CLI and reading back its run folder."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sized
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "Run",
    "mock_run",
    "nowhere_in_run_folder",
    "rerun_makes_no_calls",
    "rerun_sends_no_requests",
    "run",
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
