"""A killed run, run again, finishes the rest without repeating a finished call."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from conftest import WriteExperiment, read_json
from helpers.experiments import FAKE_JUDGE, panel_experiment
from helpers.fakes import FakeOpenAIServer
from helpers.judges import SECRET
from helpers.judges import openai_judge_like as judge_like
from helpers.runs import kill_once_stored, start_cli_run, stored_count


def _manipulated(base_url: str) -> str:
    return panel_experiment(
        "resume-manipulations",
        {**FAKE_JUDGE, "base_url": base_url},
        panel={"judges": ["domain_expert", "clarity_editor"], "discussion_rounds": 0},
        scenarios={"bases": ["fitness-coaching", "nursing-care-plan"]},
        arms={
            "placebo": False,
            "same_label": False,
            "manipulations": [{"kind": "verbosity", "ratio": 2, "by": "responder"}, "bandwagon"],
        },
        concurrency=4,
    )


MANIPULATED_TRIALS = 2 * (2 + 1) * (1 + 2 + 1)  # main, two manipulations and the control


def test_a_killed_run_with_manipulation_arms_resumes_without_repeating_a_rewrite_or_call(
    write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    with FakeOpenAIServer(judge_like, latency=0.05, api_key=SECRET) as server:
        path = write_experiment(_manipulated(server.base_url))
        out = tmp_path / "run"
        db_path = out / "fairpanel.sqlite"
        process = start_cli_run(path, out, {"FAIRPANEL_TEST_KEY": SECRET})
        kill_once_stored(process, db_path, 1)
        calls_at_kill, requests_at_kill = stored_count(db_path, "calls"), len(server.requests)
        assert stored_count(db_path, "trials") < MANIPULATED_TRIALS, (
            "killed too late to test anything"
        )
        # Only calls in flight when the process died are lost (4 trials x 2 judges at most).
        assert 0 <= requests_at_kill - calls_at_kill <= 8
        rerun = start_cli_run(path, out, {"FAIRPANEL_TEST_KEY": SECRET})
        _, stderr = rerun.communicate(timeout=120)
        assert rerun.returncode == 0, stderr.decode()
        summary = read_json(out / "summary.json")
        assert summary["trials_total"] == summary["trials_ok"] == MANIPULATED_TRIALS
        final_calls = stored_count(db_path, "calls")
        assert len(server.requests) - requests_at_kill == final_calls - calls_at_kill
        assert summary["calls_made"] == final_calls - calls_at_kill
    with sqlite3.connect(db_path) as db:
        duplicates = db.execute(
            "SELECT COUNT(*) FROM (SELECT trial_key, round, judge FROM turns "
            "GROUP BY 1, 2, 3 HAVING COUNT(*) > 1)"
        ).fetchone()[0]
        assert duplicates == 0
        query = "SELECT json_extract(spec, '$.arm'), COUNT(*) FROM trials GROUP BY 1"
        arms = dict(db.execute(query))
        assert arms == {"main": 6, "manipulation": 18}
        # The control's calls are its own (a fresh sample), not the untouched trial's, so every
        # trial made its calls: 2 judges x 2 rounds, with no call shared between trials.
        rewrites = db.execute(
            "SELECT COUNT(*) FROM calls WHERE role = 'responder' "
            "AND request LIKE '%times its length%'"
        ).fetchone()[0]
        assert rewrites == 2  # one padding rewrite per scenario, whatever was killed
        shared = db.execute(
            "SELECT COUNT(*) FROM (SELECT value FROM turns, json_each(turns.call_keys) "
            "GROUP BY value HAVING COUNT(DISTINCT trial_key) > 1)"
        ).fetchone()[0]
        assert shared == 0
