"""The report's figures drawn in a forked process (``FigureWorkers``): the same PNGs as drawn in
process, drawn by two other processes, and drawn here whenever that process fails."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers.experiments import panel_experiment
from helpers.report_samples import full_results, scores_frame

from fairpanel.report import Draw, FigureJob, FigureWorkers, ReportInputs, draw_here, render_report

HERE = __name__


def slow_pid(seconds: float) -> int:
    """The drawing process's id, after a wait long enough for the other one to take a job."""
    time.sleep(seconds)
    return os.getpid()


def _page(draw: Draw) -> str:
    return render_report(ReportInputs(results=full_results(), scores=scores_frame(), draw=draw))


def test_forked_figures_are_the_ones_drawn_in_process() -> None:
    here = _page(draw_here)
    with FigureWorkers() as workers:
        assert workers.forked
        there = _page(workers.draw)
    assert here.count("data:image/png;base64,") >= 8  # every figure, the bias profile's too
    assert there == here  # byte for byte, figures and all


def test_figures_are_drawn_by_two_other_processes() -> None:
    jobs = {f"job{i}": FigureJob(HERE, "slow_pid", (0.2,)) for i in range(6)}
    with FigureWorkers() as workers:
        pids = set(workers.draw(jobs)().values())
    assert os.getpid() not in pids
    assert len(pids) == 2  # the drawing process and its fork share the jobs


def test_a_figure_that_fails_there_raises_its_error_here() -> None:
    not_rows = FigureJob("fairpanel.report._run_figures", "forest_figure", (3, 0.05))
    with FigureWorkers() as workers, pytest.raises(TypeError, match="not iterable"):
        workers.draw({"forest": not_rows})()


def test_a_dead_drawing_process_leaves_the_figures_to_this_one() -> None:
    jobs = {"pid": FigureJob("os", "getpid")}
    with FigureWorkers() as workers:
        workers._process.kill()
        workers._process.join()
        assert workers.draw(jobs)() == {"pid": os.getpid()}
        assert not workers.forked


REPORT_SCRIPT = """
import sys
from fairpanel import report, run_folder
with report.FigureWorkers() as figures:
    reported = run_folder.report_run(sys.argv[1], figures.draw)
html = reported.report_file.read_text(encoding="utf-8")
print(html.count("data:image/png;base64,"), "matplotlib" in sys.modules)
"""


@pytest.mark.parametrize("forked", [True, False])
def test_the_report_process_never_imports_matplotlib(
    run_dir: Path, tmp_path: Path, forked: bool
) -> None:
    """With the figures drawn in the forked process, the report's own process loads no
    plotting library (drawn in process, it must)."""
    script = REPORT_SCRIPT if forked else REPORT_SCRIPT.replace("figures.draw", "report.draw_here")
    folder = shutil.copytree(run_dir, tmp_path / "run")
    done = subprocess.run(
        [sys.executable, "-c", script, str(folder)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    figures, loaded = done.stdout.split()
    assert int(figures) >= 5
    assert loaded == ("False" if forked else "True")


CLI_SCRIPT = """
import sys
from fairpanel.cli import app
loaded = {}
sys.argv = ["fairpanel", "report", sys.argv[1]]
import fairpanel.cli._run
loaded["command"] = sorted({m.partition(".")[0] for m in sys.modules})
try:
    app()
except SystemExit as exc:
    assert not exc.code, exc.code
loaded["after"] = sorted({m.partition(".")[0] for m in sys.modules})
print(repr(loaded))
"""


def test_fairpanel_report_starts_the_figures_before_the_statistics_load(
    run_dir: Path, tmp_path: Path
) -> None:
    """The report command's module loads none of the heavy libraries, so the figures' process
    it forks first imports matplotlib while this one imports pandas and scipy; and the whole
    command leaves matplotlib to that process."""
    folder = shutil.copytree(run_dir, tmp_path / "run")
    done = subprocess.run(
        [sys.executable, "-c", CLI_SCRIPT, str(folder)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    loaded = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    heavy = {"pandas", "scipy", "statsmodels", "matplotlib"}
    assert not heavy & set(loaded["command"])
    assert set(loaded["after"]) & heavy == {"pandas", "scipy", "statsmodels"}


EXPERIMENT = panel_experiment("figure-workers", {"id": "mock/judge"})


def test_no_process_to_spare_leaves_the_figures_to_this_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(self: object) -> None:
        raise BlockingIOError("Resource temporarily unavailable")

    monkeypatch.setattr("multiprocessing.process.BaseProcess.start", refuse)
    with FigureWorkers() as workers:
        assert not workers.forked
        assert workers.draw({"pid": FigureJob("os", "getpid")})() == {"pid": os.getpid()}
