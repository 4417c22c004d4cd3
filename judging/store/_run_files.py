"""A run folder's three JSON files, read once: ``experiment.resolved.json``,
``manifest.json`` and ``summary.json``.

Reporting a run takes several steps (results.json's treatment and panel order, the panels'
leaderboard rows, the self-preference writers, the page's header), and each used to read the
files again. ``RunFiles.read`` reads them at the start and the steps share what it read: one
reading, the same content in every step, and one place that says what a broken file is. It
lives on the read side of judging, beside the provenance files' names, because the report
(below ``run_folder``) takes it too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fairpanel.judging.experiment import ExperimentConfig
from fairpanel.judging.store._provenance import MANIFEST_FILE, RESOLVED_CONFIG_FILE

__all__ = ["SUMMARY_FILE", "BadRunFolderError", "RunFiles", "read_run_json"]

SUMMARY_FILE = "summary.json"


class BadRunFolderError(ValueError):
    """A folder that is not a run folder, or not the kind of run a command takes."""


def read_run_json(path: Path) -> Any:
    """The JSON in ``path``, or None when there is no such file; ``BadRunFolderError`` when it
    cannot be read."""
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise BadRunFolderError(f"{path} cannot be read as JSON: {exc}") from None


def _read_object(path: Path) -> dict[str, Any] | None:
    """A run folder's file that holds one JSON object (every one fairpanel writes does)."""
    data = read_run_json(path)
    if data is None or isinstance(data, dict):
        return data
    raise BadRunFolderError(f"{path} holds a JSON {type(data).__name__}, not an object")


@dataclass(frozen=True)
class RunFiles:
    """What a run folder's JSON files held when ``read`` read them (None for a missing file),
    and what the steps of a report derive from them.

    Every step of one report shares the same mappings: they are read, never changed."""

    path: Path
    """The run folder as the caller named it (results.json's panel leaderboard shows it)."""
    experiment: dict[str, Any] | None = None
    """experiment.resolved.json: the config as the run understood it."""
    manifest: dict[str, Any] | None = None
    """manifest.json: interpreter, packages, models and what the servers said they ran."""
    summary: dict[str, Any] | None = None
    """summary.json: written when a run finishes, so None before."""

    @classmethod
    def read(cls, run_dir: str | Path) -> RunFiles:
        """Read the three files of ``run_dir``. Raises ``BadRunFolderError``, naming the file,
        for one that is not a JSON object."""
        run_dir = Path(run_dir)
        return cls(
            run_dir,
            experiment=_read_object(run_dir / RESOLVED_CONFIG_FILE),
            manifest=_read_object(run_dir / MANIFEST_FILE),
            summary=_read_object(run_dir / SUMMARY_FILE),
        )

    @property
    def name(self) -> str | None:
        """The name the config gives the run, if it gives one."""
        name = (self.experiment or {}).get("name")
        return str(name) if name else None

    @property
    def run_name(self) -> str:
        """The run's name: the config's, else the folder's."""
        return self.name or self.path.name

    @property
    def study(self) -> str | None:
        """The study the run belongs to, or None for a judge-panel run."""
        study = (self.experiment or {}).get("study")
        return None if study is None else str(study)

    @property
    def treatments(self) -> list[str]:
        """The configured treatments' names in the config's order (the first is the
        baseline); empty without a config."""
        return [str(t["name"]) for t in (self.experiment or {}).get("treatments") or []]

    @property
    def panels(self) -> list[str]:
        """The configured panels' names in the config's order (the first leads results.json
        and is panel a of every comparison); empty without a config."""
        experiment = self.experiment or {}
        named = list(experiment.get("panels") or {}) or list(experiment.get("panel_models") or [])
        return [str(name) for name in named]

    @cached_property
    def experiment_config(self) -> ExperimentConfig | None:
        """The config as an ``ExperimentConfig``, checked once and on first use; None for a study
        run, a folder without the file, or one written by a version whose config this one does
        not validate (an older folder still reports, without what needs the config)."""
        if self.experiment is None or self.study is not None:
            return None
        try:
            return ExperimentConfig.model_validate(self.experiment)
        except ValidationError:
            return None
