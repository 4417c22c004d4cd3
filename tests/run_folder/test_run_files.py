"""A run folder's JSON files (experiment.resolved.json, manifest.json, summary.json) are read
once per report and shared by every step (``RunFiles``); a broken one is named, not a crash."""

from __future__ import annotations

import builtins
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli

import fairpanel
from fairpanel.judging.store import (
    MANIFEST_FILE,
    RESOLVED_CONFIG_FILE,
    SUMMARY_FILE,
    BadRunFolderError,
    RunFiles,
)

RUN_FILES = (RESOLVED_CONFIG_FILE, MANIFEST_FILE, SUMMARY_FILE)

# Two panels, a treatment and a self-preference arm: every step that takes the files runs
# (treatment and panel order, the panels' leaderboard, the self-preference writers, the page).
PANELS = """\
name: run-files
seed: 3
protocols: [single]
models:
  writer:
    id: mock/writer
    mock: {responder_style: 2}
responder:
  model: mock/responder
panels:
  own:
    judges: [domain_expert]
    model: mock/responder
    discussion_rounds: 0
  other:
    judges: [domain_expert]
    model: writer
    discussion_rounds: 0
treatments:
  - {name: none}
  - {name: blind, judge_instruction: Judge the content only.}
scenarios:
  bases: [fitness-coaching, nursing-care-plan]
  derived_per_base: 1
identities:
  categories: [gender]
arms:
  placebo: false
  same_label: false
  manipulations:
    - {kind: self_preference, model: writer}
concurrency: 8
"""

STUDY = """\
study: award-audit
name: run-files-audit
seed: 5
models:
  audited: {id: mock/audited}
responder: {model: audited}
groups:
  names: {Black: [Lakisha, Latoya], White: [Emily, Claire]}
levels: [5]
pairs_per_level: 2
concurrency: 4
"""


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each run folder with its store and summary.json, not yet reported."""
    root = tmp_path_factory.mktemp("run-files")
    folders = {}
    for name, text in (("panels", PANELS), ("study", STUDY)):
        config = root / f"{name}.yaml"
        config.write_text(text, encoding="utf-8")
        folders[name] = fairpanel.run(config, root / name, report=False).run_dir
    return folders


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each of the run folder's JSON files is opened for reading from now on, by
    any reader (``Path.read_text`` and ``Path.open`` go through ``Path.open``)."""
    counted: Counter[str] = Counter()
    path_open, plain_open = Path.open, builtins.open

    def note(file: Any, mode: str) -> None:
        if isinstance(file, str | os.PathLike) and "r" in mode:
            name = os.path.basename(os.fspath(file))
            if name in RUN_FILES:
                counted[name] += 1

    def counting_path_open(self: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        note(self, mode)
        return path_open(self, mode, *args, **kwargs)

    def counting_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        note(file, mode)
        return plain_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "open", counting_path_open)
    monkeypatch.setattr(builtins, "open", counting_open)
    return counted


@pytest.mark.parametrize("kind", ["panels", "study"])
def test_a_report_reads_each_json_file_once(
    stored: dict[str, Path], reads: Counter[str], kind: str
) -> None:
    reported = fairpanel.report_run(stored[kind])
    assert dict(reads) == dict.fromkeys(RUN_FILES, 1)
    assert reported.files.summary is not None and reported.files.manifest is not None
    if kind == "panels":  # the steps that take the files ran
        assert set(reported.results["panels"]) == {"own", "other"}
        assert reported.results["design"]["treatments"] == ["none", "blind"]
        assert reported.results["self_preference"]


def test_loading_a_run_reads_each_json_file_once(
    stored: dict[str, Path], reads: Counter[str], tmp_path: Path
) -> None:
    # Without results.json, load_run analyses the store as the report does.
    folder = shutil.copytree(stored["panels"], tmp_path / "run", ignore=_results)
    reads.clear()
    run = fairpanel.load_run(folder)
    assert dict(reads) == dict.fromkeys(RUN_FILES, 1)
    assert run.config is not None and run.config["name"] == "run-files"


def _results(_folder: str, names: list[str]) -> list[str]:
    return [name for name in names if name in ("results.json", "report.html")]


def test_a_broken_manifest_is_named(stored: dict[str, Path], tmp_path: Path) -> None:
    folder = shutil.copytree(stored["panels"], tmp_path / "run")
    (folder / MANIFEST_FILE).write_text('{"models": ', encoding="utf-8")
    with pytest.raises(BadRunFolderError, match=MANIFEST_FILE):
        RunFiles.read(folder)
    with pytest.raises(BadRunFolderError, match=MANIFEST_FILE):
        fairpanel.report_run(folder)
    result = Cli()("report", str(folder))
    assert result.exit_code == 2 and MANIFEST_FILE in result.output
    (folder / MANIFEST_FILE).write_text("[]", encoding="utf-8")  # JSON, but not an object
    with pytest.raises(BadRunFolderError, match=f"{MANIFEST_FILE} holds a JSON list"):
        RunFiles.read(folder)


def test_what_the_files_say(tmp_path: Path) -> None:
    empty = RunFiles.read(tmp_path)
    assert (empty.experiment, empty.manifest, empty.summary) == (None, None, None)
    assert (empty.run_name, empty.study, empty.treatments, empty.panels) == (
        tmp_path.name,
        None,
        [],
        [],
    )
    assert empty.experiment_config is None
    listed = RunFiles(tmp_path, {"name": "x", "panel_models": ["a", "b"], "treatments": []})
    assert (listed.run_name, listed.panels, listed.treatments) == ("x", ["a", "b"], [])
    study = RunFiles(tmp_path, {"study": "award-audit", "name": "audit"})
    assert study.study == "award-audit" and study.experiment_config is None
    # A config this version does not validate (another version's folder) gives None.
    assert RunFiles(tmp_path, {"protocols": ["neither"]}).experiment_config is None


def test_the_config_is_validated_once(stored: dict[str, Path]) -> None:
    files = RunFiles.read(stored["panels"])
    config = files.experiment_config
    assert config is not None and config.name == "run-files"
    assert files.experiment_config is config
    assert files.treatments == ["none", "blind"] and files.panels == ["own", "other"]
