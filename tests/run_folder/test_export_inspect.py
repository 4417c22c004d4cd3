"""`fairpanel export --format inspect`: a mock run written as an Inspect AI eval log and read
back with Inspect's own reader matches the store, read independently with sqlite3."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import Cli

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

SECRET = "sk-test-inspect-export-do-not-leak-5c1f"

# Malformed answers with one re-ask: some turns are re-asked, a few still fail to parse.
EXPERIMENT = """\
name: inspect-export
seed: 7
protocols: [single, pair]
models:
  judge:
    id: mock/judge
    api_key_env: FAIRPANEL_TEST_SECRET
    mock:
      malformed_rate: 0.3
responder:
  model: mock/responder
panel:
  judges: [domain_expert, clarity_editor]
  model: judge
  discussion_rounds: 1
  max_reasks: 1
scenarios:
  bases: [fitness-coaching]
  derived_per_base: 1
identities:
  categories: [gender]
concurrency: 4
"""


@pytest.fixture(scope="module")
def secret_env() -> Iterator[None]:
    """The judge's API key variable holds a secret while the run and the exports happen."""
    before = os.environ.get("FAIRPANEL_TEST_SECRET")
    os.environ["FAIRPANEL_TEST_SECRET"] = SECRET
    yield
    if before is None:
        del os.environ["FAIRPANEL_TEST_SECRET"]
    else:
        os.environ["FAIRPANEL_TEST_SECRET"] = before


@pytest.fixture(scope="module")
def run_dir(secret_env: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The experiment run once on the mock, without its report (not needed here)."""
    root = tmp_path_factory.mktemp("inspect_export")
    (root / "experiment.yaml").write_text(EXPERIMENT, encoding="utf-8")
    result = Cli()("run", str(root / "experiment.yaml"), "--out", str(root / "run"), "--no-report")
    assert result.exit_code == 0, result.output
    return root / "run"


@pytest.fixture(scope="module")
def log(run_dir: Path) -> EvalLog:
    """The default export (RUN_DIR/inspect.eval), read back by Inspect."""
    inspect_log = pytest.importorskip("inspect_ai.log")
    result = Cli()("export", str(run_dir), "--format", "inspect")
    assert result.exit_code == 0, result.output
    assert "Wrote 16 trials" in result.output
    read: EvalLog = inspect_log.read_eval_log(
        str(run_dir / "inspect.eval"), resolve_attachments=True
    )
    return read


def _store(run_dir: Path, query: str) -> list[sqlite3.Row]:
    with sqlite3.connect(run_dir / "fairpanel.sqlite") as db:
        db.row_factory = sqlite3.Row
        return db.execute(query).fetchall()


def _trials(run_dir: Path) -> dict[str, dict[str, Any]]:
    return {
        row["key"]: {
            "spec": json.loads(row["spec"]),
            "consensus": json.loads(row["consensus"]) if row["consensus"] else None,
        }
        for row in _store(run_dir, "SELECT key, spec, consensus FROM trials")
    }


def test_one_sample_per_trial_with_the_runs_metadata(run_dir: Path, log: EvalLog) -> None:
    trials = _trials(run_dir)
    assert log.status == "success"
    assert log.samples is not None
    assert sorted(str(s.id) for s in log.samples) == sorted(trials)
    assert log.results is not None
    assert log.results.total_samples == len(trials) == 16
    assert log.eval.task == "fairpanel/inspect-export"
    assert log.eval.model == "mock/judge"
    assert log.eval.model_roles is not None
    assert set(log.eval.model_roles) == {"domain_expert", "clarity_editor", "responder"}
    resolved = json.loads((run_dir / "experiment.resolved.json").read_text(encoding="utf-8"))
    canonical = json.dumps(resolved, sort_keys=True, separators=(",", ":")).encode()
    meta = log.eval.metadata or {}
    assert meta["config_digest"] == hashlib.sha256(canonical).hexdigest()
    assert meta["experiment"] == "inspect-export"
    assert meta["fairpanel_version"]
    judges = dict.fromkeys(["domain_expert", "clarity_editor"], "mock/judge")
    assert meta["models"]["judges"] == judges
    assert "total_usd" in meta["cost"]
    judge_tokens = _store(run_dir, "SELECT SUM(prompt_tokens) FROM calls WHERE model='mock/judge'")
    assert log.stats.model_usage["mock/judge"].input_tokens == judge_tokens[0][0]
    for sample in log.samples:
        spec = trials[str(sample.id)]["spec"]
        assert {k: sample.metadata[k] for k in ("arm", "treatment", "category", "protocol")} == {
            k: spec[k] for k in ("arm", "treatment", "category", "protocol")
        }
        assert sample.metadata["identities"] == spec["identities"]
        # The input is what the judges saw: the task and every candidate with its label.
        assert isinstance(sample.input, str)
        for author in spec["authors"]:
            assert f'author="{author}"' in sample.input


def test_messages_are_the_turns_in_order(run_dir: Path, log: EvalLog) -> None:
    assert log.samples is not None
    turns = _store(run_dir, "SELECT * FROM turns ORDER BY trial_key, round, speaker_index")
    failures = rejected = 0
    for sample in log.samples:
        stored = [t for t in turns if t["trial_key"] == sample.id]
        answers = [
            m
            for m in sample.messages
            if m.role == "assistant" and not (m.metadata or {}).get("rejected")
        ]
        assert [(m.metadata or {})["judge"] for m in answers] == [t["judge"] for t in stored]
        assert [(m.metadata or {})["round"] for m in answers] == [t["round"] for t in stored]
        assert [m.text for m in answers] == [t["raw_text"] for t in stored]
        for message, turn in zip(answers, stored, strict=True):
            meta = message.metadata or {}
            assert meta["parse_ok"] == (turn["parsed"] is not None)
            assert meta["parse_error"] == turn["parse_error"]
            failures += not meta["parse_ok"]
        # A re-asked turn shows its rejected answer and the re-ask before the accepted one.
        rejected += sum(1 for m in sample.messages if (m.metadata or {}).get("rejected"))
        assert sample.metadata["reasks"] == sum(t["attempts"] - 1 for t in stored)
        assert len(sample.metadata["parse_failures"]) == sum(t["parsed"] is None for t in stored)
        first = sample.messages[0]
        assert first.role == "system"
        assert first.text == sample.input
    assert failures > 0, "the malformed mock should have left parse failures"
    assert rejected == sum(t["attempts"] - 1 for t in turns) > 0


@pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside Inspect's messages_df
def test_every_call_is_a_model_event_and_messages_df_reads_them(
    run_dir: Path, log: EvalLog
) -> None:
    assert log.samples is not None
    calls = {row["key"]: row for row in _store(run_dir, "SELECT key, request, reply FROM calls")}
    turns = _store(run_dir, "SELECT trial_key, judge, call_keys FROM turns")
    for sample in log.samples:
        keys = [
            (t["judge"], key)
            for t in turns
            if t["trial_key"] == sample.id
            for key in json.loads(t["call_keys"])
        ]
        events = [e for e in sample.events if e.event == "model"]
        assert len(events) == len(keys)
        for event, (judge, key) in zip(events, keys, strict=True):
            assert event.role == judge
            assert event.output.completion == calls[key]["reply"]
            sent = json.loads(calls[key]["request"])["messages"]
            assert [m.text for m in event.input] == [m["content"] for m in sent]
    from inspect_ai.analysis import messages_df

    frame = messages_df(str(run_dir / "inspect.eval"), quiet=True)
    assert set(frame["sample_id"]) == {s.uuid for s in log.samples}
    assert set(frame["role"]) == {"system", "user", "assistant"}


def test_scores_are_the_consensus_and_pairs_have_a_verdict(run_dir: Path, log: EvalLog) -> None:
    assert log.samples is not None
    trials = _trials(run_dir)
    pairs = decided = 0
    for sample in log.samples:
        trial = trials[str(sample.id)]
        consensus, spec = trial["consensus"], trial["spec"]
        assert sample.scores is not None
        for metric in ("creativity", "accuracy", "efficiency", "reliability"):
            expected = {
                position: scores[metric] for position, scores in consensus["scores"].items()
            }
            assert sample.scores[metric].value == expected
        if spec["protocol"] == "pair":
            pairs += 1
            verdict, winner = sample.scores["verdict"], consensus.get("winner")
            if winner is None:  # the votes tied
                assert (verdict.value, verdict.answer) == ("tie", None)
                continue
            decided += 1
            assert verdict.value == winner
            assert verdict.answer == spec["identities"]["AB".index(winner)]
        else:
            assert "verdict" not in sample.scores
    assert pairs == 12
    assert decided > 0
    assert log.results is not None
    assert {s.name for s in log.results.scores} >= {"creativity", "verdict"}


def test_json_output_and_no_secret_in_either_file(
    cli: Cli, run_dir: Path, log: EvalLog, tmp_path: Path
) -> None:
    out = tmp_path / "log.json"
    result = cli("export", str(run_dir), "--format", "inspect", "--out", str(out))
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert json.loads(text)["eval"]["task"] == "fairpanel/inspect-export"
    from inspect_ai.log import read_eval_log

    assert len(read_eval_log(str(out)).samples or []) == 16
    assert SECRET not in text
    with zipfile.ZipFile(run_dir / "inspect.eval") as archive:
        for name in archive.namelist():
            assert SECRET.encode() not in archive.read(name), name
    bad = cli("export", str(run_dir), "--format", "inspect", "--out", str(tmp_path / "x.txt"))
    assert bad.exit_code == 2
    assert ".eval or .json" in bad.output


def test_without_the_extra_it_says_what_to_install(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Runs with or without inspect_ai installed: the check comes before anything is read."""
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # as if it were not installed
    result = cli("export", str(tmp_path), "--format", "inspect", "--out", str(tmp_path / "x.eval"))
    assert result.exit_code == 2
    assert "install fairpanel[inspect]" in result.output
    assert not (tmp_path / "x.eval").exists()


def test_a_failed_trial_is_a_sample_with_its_error() -> None:
    pytest.importorskip("inspect_ai")
    from fairpanel.run_folder._inspect_log import _sample, _Totals
    from fairpanel.run_folder._inspect_trials import TrialTranscript

    spec = {"protocol": "pair", "category": "gender", "base_id": "b", "scenario_id": "b/01"}
    spec |= {"identities": ["female", "male"], "authors": ["a female", "a male"]}
    trial = TrialTranscript(
        key="f" * 64, spec=spec, status="failed", error="judge timed out", consensus=None,
        context=None, messages=[], turns=[], usage={},
    )  # fmt: skip
    totals = _Totals()
    sample = _sample(trial, totals)
    assert sample.error is not None
    assert sample.error.message == "judge timed out"
    assert sample.scores is None
    assert sample.metadata["status"] == "failed"
    assert not totals.sums  # a failed trial adds nothing to the log's means
