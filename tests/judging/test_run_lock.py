"""Two processes on one run folder: the second is refused with a clear message and its own
exit code, the store stays whole, and a lock left by a killed run does not block the next."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from conftest import read_json
from helpers.experiments import small_fake_judge_run
from helpers.fakes import FakeOpenAIServer
from helpers.judges import SECRET
from helpers.judges import openai_judge_like as judge_like
from helpers.run_process import start_run
from helpers.runs import stored_count
from typer.testing import CliRunner

from fairpanel.cli import app
from fairpanel.judging import EXIT_RUN_FOLDER_BUSY, RunFolderBusyError, RunFolderLock

pytestmark = pytest.mark.timeout(120)

TRIALS = 2 * (2 + 4 + 1 + 6)


def test_a_second_lock_on_a_folder_is_refused_until_the_first_is_released(
    tmp_path: Path,
) -> None:
    first = RunFolderLock(tmp_path).acquire()
    with pytest.raises(RunFolderBusyError) as refused:
        RunFolderLock(tmp_path).acquire()  # a second open file in the same process counts too
    message = str(refused.value)
    assert str(tmp_path) in message and "in use by another fairpanel run" in message
    assert "pid" in message and "--out" in message
    first.release()
    with RunFolderLock(tmp_path) as second:
        assert second.held
    assert not second.held


def _wait_for(condition: object, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_second_run_on_a_busy_folder_is_refused_and_a_killed_holder_blocks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAIRPANEL_TEST_KEY", SECRET)
    with FakeOpenAIServer(judge_like, latency=0.05, api_key=SECRET) as server:
        path = tmp_path / "experiment.yaml"
        path.write_text(small_fake_judge_run(server.base_url), encoding="utf-8")
        out = tmp_path / "run"
        db_path = out / "fairpanel.sqlite"
        env = {"FAIRPANEL_TEST_KEY": SECRET}
        holder = start_run(["run", str(path), "--out", str(out)], env, tmp_path / "first.log")
        _wait_for(lambda: stored_count(db_path, "trials") >= 2, "the first run to store trials")

        # The second run carries its own key, so any request it made would show on the server.
        second_key = "sk-second-run-key-0000"
        refused = CliRunner().invoke(
            app, ["run", str(path), "--out", str(out)], env={"FAIRPANEL_TEST_KEY": second_key}
        )
        assert refused.exit_code == EXIT_RUN_FOLDER_BUSY, refused.output
        assert f"in use by another fairpanel run (pid {holder.pid})" in refused.output
        assert "Traceback" not in refused.output
        assert holder.is_alive(), "the refusal must not disturb the run holding the folder"
        assert all(second_key not in h["authorization"] for h in server.headers)

        holder.kill()  # SIGKILL: no cleanup runs, the lock file stays behind
        holder.join()
        assert (out / ".fairpanel.lock").exists()
        after_kill = stored_count(db_path, "trials")
        assert after_kill < TRIALS, "the first run finished before the test could kill it"

        rerun = CliRunner().invoke(app, ["run", str(path), "--out", str(out)])
        assert rerun.exit_code == 0, rerun.output
    summary = read_json(out / "summary.json")
    assert summary["trials_total"] == summary["trials_ok"] == TRIALS
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert db.execute("SELECT COUNT(*) FROM trials").fetchone()[0] == TRIALS
