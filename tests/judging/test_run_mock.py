"""End to end on the mock provider: the real runner, store, AutoGen panel and analysis."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from conftest import Cli, WriteExperiment, read_json

MOCK_EXPERIMENT = """\
name: mock-e2e
seed: 3
protocols: [single, pair]
models:
  judge:
    id: mock/judge
    mock:
      score_shift: {{{shift}}}
responder:
  model: mock/responder
panel:
  judges: [domain_expert, creativity_reviewer, clarity_editor]
  model: judge
  discussion_rounds: 1
scenarios:
  bases: [fitness-coaching, nursing-care-plan, software-incident-response]
  derived_per_base: {derived}
identities:
  categories: [gender]
pair:
  counterbalance: true
arms: {{placebo: false, same_label: false}}
concurrency: 8
"""


def _experiment(write: WriteExperiment, shift: str = "", derived: int = 10) -> Path:
    return write(MOCK_EXPERIMENT.format(shift=shift, derived=derived))


def _gender_test(results: dict[str, object], protocol: str, metric: str) -> dict[str, object]:
    section = results[protocol]
    assert isinstance(section, dict)
    for test in section["chi_square"]:
        if test["category"] == "gender" and test["metric"] == metric:
            return dict(test)
    raise AssertionError(f"no gender/{metric} test in {protocol}")


def test_planted_creativity_shift_is_found(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    path = _experiment(write_experiment, shift="female: {creativity: 1.0}")
    out = tmp_path / "run"
    result = cli("run", str(path), "--out", str(out))
    assert result.exit_code == 0, result.output
    results = read_json(out / "results.json")
    # 30 scenarios x 2 identities single, 30 x 4 arrangements pair.
    assert results["n_trials"] == {"single": 60, "pair": 120}
    creativity = _gender_test(results, "single", "creativity")
    assert creativity["p_value"] is not None and creativity["p_value"] < 0.01
    accuracy = _gender_test(results, "single", "accuracy")
    assert accuracy["p_value"] is not None and accuracy["p_value"] > 0.001
    rows = {row["identity"]: row for row in results["single"]["mean_scores"]["rows"]}
    assert 0.7 < rows["female"]["creativity"] - rows["male"]["creativity"] < 1.3
    rates = {r["identity"]: r for r in results["pair"]["win_rates"] if r["category"] == "gender"}
    # One metric of four moves, so pair verdicts lean female without separating at this n.
    assert rates["female"]["wins"] > rates["male"]["wins"]
    assert _gender_test(results, "pair", "creativity")["p_value"] < 1e-4


def test_no_planted_bias_finds_nothing(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    path = _experiment(write_experiment)
    out = tmp_path / "run"
    assert cli("run", str(path), "--out", str(out)).exit_code == 0
    results = read_json(out / "results.json")
    for protocol in ("single", "pair"):
        for metric in ("creativity", "accuracy", "efficiency", "reliability"):
            p_value = _gender_test(results, protocol, metric)["p_value"]
            assert p_value is not None and p_value > 0.001, (protocol, metric, p_value)
    rates = {r["identity"]: r for r in results["pair"]["win_rates"] if r["category"] == "gender"}
    # Intervals overlap: neither identity is ahead.
    assert rates["female"]["ci_low"] < rates["male"]["ci_high"]
    assert rates["male"]["ci_low"] < rates["female"]["ci_high"]


def test_rerun_makes_no_calls_and_keeps_rows(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    path = _experiment(write_experiment, derived=2)
    out = tmp_path / "run"
    result = cli("run", str(path), "--out", str(out))
    assert result.exit_code == 0
    first = read_json(out / "summary.json")
    assert first["calls_made"] > 0
    assert first["trials_total"] == first["trials_ok"] == 6 * 2 + 6 * 4
    # One server per model: each is its own replica, every call counted, and no table printed.
    replicas = first["replicas"]
    assert sorted(replicas) == ["mock/judge", "mock/responder"]
    assert all(list(found) == ["mock"] for found in replicas.values())
    assert sum(found["mock"]["calls"] for found in replicas.values()) == first["calls_made"]
    assert "Replicas" not in result.output
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        before = db.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
    assert cli("run", str(path), "--out", str(out)).exit_code == 0
    second = read_json(out / "summary.json")
    assert second["calls_made"] == 0
    assert second["trials_run"] == 0
    assert second["trials_ok"] == first["trials_ok"]
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM turns").fetchone()[0] == before
        # 3 judges x 3 rounds (first, one discussion, final) per trial.
        assert before == first["trials_total"] * 9


def test_every_turn_is_stored_with_raw_text_and_rounds(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    path = _experiment(write_experiment, derived=1)
    out = tmp_path / "run"
    assert cli("run", str(path), "--out", str(out)).exit_code == 0
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        kinds = db.execute(
            "SELECT round, round_kind, COUNT(DISTINCT judge) FROM turns "
            "GROUP BY trial_key, round ORDER BY round"
        ).fetchall()
        assert {(r, k, n) for r, k, n in kinds} == {
            (0, "first", 3),
            (1, "discussion", 3),
            (2, "final", 3),
        }
        raw = db.execute("SELECT raw_text, parsed FROM turns LIMIT 1").fetchone()
        assert raw[0].startswith("{") and raw[1] is not None
        responses = db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
        assert responses == 3 * 2  # two responses per derived scenario
