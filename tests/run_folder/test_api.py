"""The Python API: a run started from Python leaves the folder ``fairpanel run`` leaves, and
``load_run`` reads it back as written."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import Cli, WriteExperiment, read_json

import fairpanel
from fairpanel.judging import ExperimentConfig, StudyItemRecord
from fairpanel.judging.engine import run_workers
from fairpanel.run_folder import BadRunFolderError
from fairpanel.studies import StudyConfig

PANEL = """\
name: api-panel
seed: 3
protocols: [single, pair]
models:
  judge:
    id: mock/judge
    mock:
      score_shift: {female: {creativity: 1.0}}
responder:
  model: mock/responder
panel:
  judges: [domain_expert, clarity_editor]
  model: judge
  discussion_rounds: 1
scenarios:
  bases: [fitness-coaching, nursing-care-plan]
  derived_per_base: 3
identities:
  categories: [gender]
arms: {placebo: false, same_label: false}
concurrency: 4
"""

STUDY = """\
study: award-audit
name: api-audit
seed: 5
models:
  audited: {id: mock/audited}
responder: {model: audited}
groups:
  names: {Black: [Lakisha, Latoya], White: [Emily, Claire]}
levels: [5, 20]
pairs_per_level: 2
concurrency: 4
"""


@pytest.fixture
def panel_run(write_experiment: WriteExperiment, tmp_path: Path) -> fairpanel.RunOutcome:
    return fairpanel.run(write_experiment(PANEL), tmp_path / "run")


def test_run_from_python_writes_the_whole_run_folder(
    panel_run: fairpanel.RunOutcome, cli: Cli
) -> None:
    out = panel_run.run_dir
    for name in ("fairpanel.sqlite", "summary.json", "results.json", "report.html"):
        assert (out / name).is_file(), name
    assert panel_run.report_file == out / "report.html"
    assert "api-panel" in panel_run.report_file.read_text(encoding="utf-8")
    summary = read_json(out / "summary.json")
    # 6 scenarios x 2 identities single, 6 x 4 arrangements pair (one gender pair).
    assert summary["trials_total"] == summary["trials_ok"] == summary["trials_run"] == 36
    assert summary == read_json_of(panel_run.summary.as_dict())
    written = (out / "results.json").read_text(encoding="utf-8")
    assert read_json(out / "results.json") == panel_run.results
    assert panel_run.results is not None and panel_run.results["n_trials"] == {
        "single": 12,
        "pair": 24,
    }
    # What `fairpanel report` rewrites from the store is the same file, byte for byte.
    assert cli("report", str(out)).exit_code == 0
    assert (out / "results.json").read_text(encoding="utf-8") == written


def read_json_of(value: object) -> object:
    """``value`` as it reads back from JSON (tuples become lists)."""
    return json.loads(json.dumps(value))


def test_report_false_stores_the_trials_and_summary_only(
    write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    outcome = fairpanel.run(write_experiment(PANEL), out, report=False)
    assert outcome.results is None and outcome.report_file is None
    assert (out / "summary.json").is_file() and (out / "fairpanel.sqlite").is_file()
    assert not (out / "results.json").exists() and not (out / "report.html").exists()
    reported = fairpanel.report_run(out)
    assert read_json(out / "results.json") == reported.results
    assert reported.report_file.is_file() and reported.study is None


def test_load_run_reads_back_what_the_run_wrote(panel_run: fairpanel.RunOutcome) -> None:
    out = panel_run.run_dir
    run = fairpanel.load_run(out)
    assert run.results == read_json(out / "results.json")
    assert run.summary == read_json(out / "summary.json")
    assert run.config is not None and run.config["name"] == "api-panel"
    assert run.manifest == read_json(out / "manifest.json")
    assert run.study is None and run.frames is not None
    assert run.frames.turns["trial_key"].nunique() == 36
    # Without results.json the same results are computed from the store, and not written.
    (out / "results.json").unlink()
    again = fairpanel.load_run(out)
    assert again.results == run.results
    assert not (out / "results.json").exists()


def test_a_study_file_goes_through_the_same_api(
    write_experiment: WriteExperiment, tmp_path: Path, cli: Cli
) -> None:
    path = write_experiment(STUDY)
    config = fairpanel.load(path)
    assert isinstance(config, StudyConfig) and config.study == "award-audit"
    assert isinstance(fairpanel.load(write_experiment(PANEL, "panel.yaml")), ExperimentConfig)
    out = tmp_path / "study"
    outcome = fairpanel.run(path, out)
    for name in ("summary.json", "results.json", "report.html"):
        assert (out / name).is_file(), name
    # 2 levels x 2 pairs x 4 variants.
    assert read_json(out / "summary.json")["items_total"] == 16
    run = fairpanel.load_run(out)
    assert run.study == "award-audit" and run.frames is None
    assert run.results == read_json(out / "results.json") == outcome.results
    written = (out / "results.json").read_text(encoding="utf-8")
    assert cli("report", str(out)).exit_code == 0
    assert (out / "results.json").read_text(encoding="utf-8") == written


def test_a_folder_that_is_not_a_run_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BadRunFolderError, match="is not a run folder"):
        fairpanel.load_run(tmp_path)
    with pytest.raises(BadRunFolderError, match="is not a run folder"):
        fairpanel.report_run(tmp_path)
    assert not (tmp_path / "fairpanel.sqlite").exists()  # no empty store left behind


def _record(key: str, status: str) -> StudyItemRecord:
    error = f"error of {key}" if status == "failed" else None
    return StudyItemRecord(key, "a study", {}, status, error, None)


def test_the_worker_loop_stops_taking_work_after_max_failures() -> None:
    saved: list[str] = []
    progress: list[tuple[str, int, int]] = []

    async def work(key: str) -> StudyItemRecord:
        return _record(key, "failed" if key in ("b", "d") else "ok")

    outcome = asyncio.run(
        run_workers(
            iter("abcdef"),
            6,
            concurrency=1,
            work=work,
            save=lambda record: saved.append(record.key),
            unit_name="trials",
            progress=lambda *step: progress.append(step),
            max_failures=2,
        )
    )
    assert saved == ["a", "b", "c", "d"]
    assert (outcome.run, outcome.failed) == (4, 2)
    assert outcome.stopped == (
        "stopped after 2 failed trials (--max-failures); last error: error of d"
    )
    assert progress == [("trials", n, 6) for n in range(1, 5)]


def test_importing_a_package_does_not_load_the_whole_library() -> None:
    """Python runs the root package before any subpackage, so the root must not import the
    API that composes every package: a fresh interpreter importing ``fairpanel.inputs`` loads
    neither the report nor matplotlib, while ``fairpanel.run`` still resolves to the API."""
    probe = (
        "import sys, fairpanel.inputs\n"
        "loaded = [m for m in ('matplotlib', 'jinja2', 'fairpanel.report', 'fairpanel.run_folder')"
        " if m in sys.modules]\n"
        "print(loaded)\n"
        "import fairpanel, fairpanel.run_folder\n"
        "missing = sorted(set(fairpanel.__all__) - set(dir(fairpanel)))\n"
        "print(fairpanel.run is fairpanel.run_folder.run, missing)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["[]", "True []"]
    with pytest.raises(AttributeError, match="no attribute 'not_an_api_name'"):
        _ = fairpanel.not_an_api_name  # type: ignore[attr-defined]
