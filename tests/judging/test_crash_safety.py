"""Crash safety: SIGKILL at random moments loses nothing that was finished.

The run process is killed at seeded random moments at least 10 times (during start-up,
response writing, trials, the summary and results), restarted each time, and finally let
finish. The store must then hold exactly the trials of an uninterrupted run of the same
experiment (same keys, statuses and consensus), with every turn once, and the server must
never have received a call again after it had been stored. After every kill the database
passes ``PRAGMA integrity_check``. A second test kills a process in the middle of large
writes and checks that each trial is all there or not there at all.

``FAIRPANEL_KILL_SEED`` and ``FAIRPANEL_KILLS`` rerun the loop with other seeds and counts.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import time
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import pytest
from helpers.experiments import small_fake_judge_run
from helpers.fakes import FakeOpenAIServer
from helpers.judges import SECRET
from helpers.judges import openai_judge_like as judge_like
from helpers.run_process import start_run, start_store_hammer

pytestmark = pytest.mark.timeout(900)

SEED = int(os.environ.get("FAIRPANEL_KILL_SEED", "20"))
KILLS = int(os.environ.get("FAIRPANEL_KILLS", "10"))  # 10 keeps CI in its budget
# The kill loop stops after this long, or after KILLS * KILL_BUDGET_RUNS uninterrupted run
# times where that is longer (a loaded machine makes every run, and so every episode, slower).
LOOP_BUDGET_S = 90.0
KILL_BUDGET_RUNS = 4
JUDGES, ROUNDS = 2, 2
TRIALS = 2 * (2 + 4 + 1 + 6)


def _messages_signature(messages: list[Any]) -> str:
    return json.dumps([(m["role"], m["content"]) for m in messages], ensure_ascii=False)


def _store_state(db_path: Path) -> dict[str, Any]:
    """Integrity, stored call signatures, trials and turns; opened as the next run would."""
    if not db_path.exists():
        return {"integrity": "ok", "calls": set(), "trials": {}, "turns": 0, "torn": 0}
    with sqlite3.connect(db_path) as db:
        integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
        try:
            calls = {
                _messages_signature(json.loads(request)["messages"])
                for (request,) in db.execute("SELECT request FROM calls")
            }
            trials = {
                key: (status, consensus)
                for key, status, consensus in db.execute(
                    "SELECT key, status, consensus FROM trials"
                )
            }
            turns = db.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
            torn = db.execute(
                "SELECT COUNT(*) FROM trials t WHERE t.status = 'ok' AND "
                "(SELECT COUNT(*) FROM turns u WHERE u.trial_key = t.key) != ?",
                (JUDGES * ROUNDS,),
            ).fetchone()[0]
        except sqlite3.OperationalError:  # killed before the schema was created
            calls, trials, turns, torn = set(), {}, 0, 0
    return {"integrity": integrity, "calls": calls, "trials": trials, "turns": turns, "torn": torn}


def _start(path: Path, out: Path, log: Path) -> BaseProcess:
    # --no-report: kills are aimed at the trials and the store, not at the analysis afterwards.
    argv = ["run", str(path), "--out", str(out), "--no-report"]
    return start_run(argv, {"FAIRPANEL_TEST_KEY": SECRET}, log)


def _finish(process: BaseProcess, log: Path) -> None:
    process.join(120)
    assert process.exitcode == 0, log.read_text(encoding="utf-8", errors="replace")[-3000:]


def _signatures(server: FakeOpenAIServer) -> list[str]:
    # A request cut off by a kill arrives as a body that is not JSON: it was never a call.
    return [_messages_signature(b["messages"]) for b in server.requests if "messages" in b]


def test_random_sigkills_then_resume_equal_an_uninterrupted_run(tmp_path: Path) -> None:
    """Episodes: a fresh run folder, runs killed after a random share of a whole run's time
    until one finishes by itself, then compared with the uninterrupted reference."""
    rng = random.Random(SEED)
    log = tmp_path / "runs.log"
    with FakeOpenAIServer(judge_like, latency=0.005, api_key=SECRET) as server:
        path = tmp_path / "experiment.yaml"
        path.write_text(small_fake_judge_run(server.base_url), encoding="utf-8")
        warm_up = start_run(["--help"], {}, log)  # starts the fork server outside the timing
        warm_up.join(120)

        reference_dir = tmp_path / "reference"
        started = time.monotonic()
        _finish(_start(path, reference_dir, log), log)
        whole_run_s = time.monotonic() - started
        reference_requests = _signatures(server)
        # Uninterrupted, every call is sent exactly once.
        assert len(reference_requests) == len(set(reference_requests))
        reference = _store_state(reference_dir / "fairpanel.sqlite")
        total = len(reference["trials"])
        assert total == TRIALS

        trials_at_kill: list[int] = []
        episodes = 0
        budget_s = max(LOOP_BUDGET_S, KILLS * KILL_BUDGET_RUNS * whole_run_s)
        deadline = time.monotonic() + budget_s
        while len(trials_at_kill) < KILLS and time.monotonic() < deadline:
            episodes += 1
            out = tmp_path / f"killed-{episodes}"
            db_path = out / "fairpanel.sqlite"
            server.reset_log()
            kills: list[tuple[int, set[str]]] = []  # (calls sent before the kill, calls stored)
            while True:
                process = _start(path, out, log)
                process.join(rng.uniform(0.0, whole_run_s))
                if not process.is_alive():
                    _finish(process, log)
                    break
                process.kill()
                process.join()
                state = _store_state(db_path)
                assert state["integrity"] == "ok", f"after a kill: {state['integrity']}"
                assert state["torn"] == 0, "a trial was stored without all of its turns"
                kills.append((len(_signatures(server)), state["calls"]))
                trials_at_kill.append(len(state["trials"]))
            requests = _signatures(server)
            final = _store_state(db_path)
            assert final["integrity"] == "ok"
            assert final["trials"] == reference["trials"]  # same keys, statuses and consensus
            assert final["turns"] == reference["turns"] == total * JUDGES * ROUNDS
            assert final["calls"] == reference["calls"] == set(reference_requests)
            for sent_before, stored in kills:
                repeated = stored.intersection(requests[sent_before:])
                assert not repeated, f"{len(repeated)} finished calls were made again"
            summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
            assert summary["trials_ok"] == summary["trials_total"] == total

    print(
        f"{len(trials_at_kill)} kills in {episodes} episodes; whole run {whole_run_s:.2f} s; "
        f"trials stored at each kill: {trials_at_kill}"
    )
    assert len(trials_at_kill) >= KILLS, f"only {len(trials_at_kill)} kills in {budget_s:.0f} s"
    # Kills fell while trials were being run, not only at start-up or after the last trial.
    assert sum(0 < stored < total for stored in trials_at_kill) >= KILLS // 4


def test_a_kill_in_the_middle_of_writes_leaves_whole_trials_and_a_sound_database(
    tmp_path: Path,
) -> None:
    rng = random.Random(SEED)
    db_path = tmp_path / "fairpanel.sqlite"
    turns_per_trial = 40
    stored_before = 0
    for _ in range(8):
        process = start_store_hammer(db_path, turns_per_trial)
        time.sleep(rng.uniform(0.2, 0.6))
        assert process.is_alive()
        process.kill()
        process.join()
        with sqlite3.connect(db_path) as db:
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            per_trial = db.execute(
                "SELECT t.key, COUNT(u.trial_key) FROM trials t "
                "LEFT JOIN turns u ON u.trial_key = t.key GROUP BY t.key"
            ).fetchall()
            orphans = db.execute(
                "SELECT COUNT(*) FROM turns WHERE trial_key NOT IN (SELECT key FROM trials)"
            ).fetchone()[0]
        assert all(count == turns_per_trial for _, count in per_trial)
        assert orphans == 0
        assert len(per_trial) > stored_before, "the writer made no progress before the kill"
        stored_before = len(per_trial)
