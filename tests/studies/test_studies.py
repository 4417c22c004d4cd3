"""The study framework end to end, on the award audit: `fairpanel run/estimate/report` with a
`study:` file, the store, resume, failures and config errors."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, WriteExperiment, read_json
from helpers.fakes import FakeOpenAIServer, Fault

from fairpanel.judging import STORE_SCHEMA_VERSION, Store

SMALL = """\
study: award-audit
name: small-audit
seed: 5
models:
  audited: {{id: mock/audited{mock}}}
responder: {{model: audited}}
groups:
  names: {{Black: [Lakisha, Latoya], White: [Emily, Claire]}}
levels: [5, 20]
pairs_per_level: 4
{extra}concurrency: 4
"""


def _small(write: WriteExperiment, mock: str = "", extra: str = "") -> Path:
    return write(SMALL.format(mock=mock, extra=extra))


def _rows(db: Path, query: str) -> list[Any]:
    with sqlite3.connect(db) as connection:
        return connection.execute(query).fetchall()


def test_a_study_file_runs_resumes_and_reports(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    path = _small(write_experiment)
    out = tmp_path / "run"
    result = cli("run", str(path), "--out", str(out))
    assert result.exit_code == 0, result.output
    summary = read_json(out / "summary.json")
    # 2 levels x 4 pairs x 4 variants; one call each (no follow-up).
    assert summary["items_total"] == summary["items_ok"] == summary["items_run"] == 32
    assert summary["calls_made"] == 32 and summary["calls_cached"] == 0
    assert summary["tokens_by_role"]["responder"]["prompt_tokens"] > 0
    stored = _rows(out / "fairpanel.sqlite", "SELECT study, status, call_keys FROM study_items")
    assert len(stored) == 32 and {row[:2] for row in stored} == {("award-audit", "ok")}
    call_keys = {key for row in stored for key in json.loads(row[2])}
    assert call_keys == {row[0] for row in _rows(out / "fairpanel.sqlite", "SELECT key FROM calls")}
    results = read_json(out / "results.json")
    assert results["study"] == "award-audit" and results["n_items"] == 32
    assert sum(sum(row["counts"].values()) for row in results["choices"][:-1]) == 32
    manifest = read_json(out / "manifest.json")
    assert manifest["study"] == "award-audit" and manifest["item_bank"]["items"] == 20
    assert read_json(out / "experiment.resolved.json")["pairs_per_level"] == 4

    again = cli("run", str(path), "--out", str(out))
    assert again.exit_code == 0
    assert read_json(out / "summary.json")["calls_made"] == 0
    assert read_json(out / "summary.json")["items_run"] == 0

    # A run that lost items (killed midway) redoes only those, from the stored calls.
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        db.execute("DELETE FROM study_items WHERE rowid % 3 = 0")
    resumed = cli("run", str(path), "--out", str(out))
    assert resumed.exit_code == 0
    summary = read_json(out / "summary.json")
    assert 0 < summary["items_run"] < 32 and summary["calls_made"] == 0
    assert summary["calls_cached"] == summary["items_run"]

    (out / "results.json").unlink()
    assert cli("report", str(out)).exit_code == 0
    assert read_json(out / "results.json") == results


def test_estimate_counts_items_and_calls_without_calling(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    extra = "followup:\n  enabled: true\n  coder: {model: mock/coder}\n"
    path = _small(write_experiment, extra=extra)
    result = cli("estimate", str(path), "--json")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)
    assert plan["items"] == 32
    assert plan["calls"] == {"coder": 32, "responder": 32, "responder:followup": 32}
    assert plan["conditional_calls"] == {"coder": 32, "responder:followup": 32}
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("study: award-audt\n", "experiment.yaml:1: study: unknown study 'award-audt'"),
        ("study: award-audit\npairs_per_levle: 3\n", "experiment.yaml:2: pairs_per_levle: unknown"),
        (
            "study: award-audit\ngroups:\n  names: {Black: [Lakisha, Emily]}\n",
            "experiment.yaml:3: groups.names.Black[1]: 'Emily' is not a name cue of 'Black'",
        ),
        (
            "study: award-audit\ngroups:\n  compare: [Black, Martian]\n",
            "experiment.yaml:3: groups.compare[1]: 'Martian' is not in category 'race'",
        ),
        ("study: award-audit\nlevels: [5, 25]\n", "experiment.yaml:2: levels[1]: 25 is outside"),
        (
            "study: award-audit\nresponder: {model: nowhere/model}\n",
            "experiment.yaml:2: responder.model: 'nowhere/model' is neither",
        ),
        (
            "study: award-audit\nfollowup: {enabled: true}\n",
            "followup.coder is required",
        ),
    ],
)
def test_bad_study_files_fail_before_any_call_with_file_and_line(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path, text: str, expected: str
) -> None:
    path = write_experiment(text)
    for command in (["run", str(path), "--out", str(tmp_path / "run")], ["estimate", str(path)]):
        result = cli(*command)
        assert result.exit_code == 2, result.output
        assert expected in " ".join(result.output.split()), result.output
    assert not (tmp_path / "run").exists()


def _name_picker(body: dict[str, Any]) -> str | Fault:
    """A server that answers the award question with the first student it names, and fails
    every prompt at the perfect-score level."""
    prompt = body["messages"][-1]["content"]
    if "total score of 20" in prompt:
        return Fault("server_error", status=400)
    return prompt.rsplit("award, ", 1)[1].split(" or ")[0]


def test_over_the_openai_wire_with_failures_and_max_failures(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AUDIT_KEY", "sk-audit-0000")
    with FakeOpenAIServer(_name_picker, api_key="sk-audit-0000") as server:
        model = (
            f"{{id: openai-compatible/audited, base_url: '{server.base_url}', "
            "api_key_env: AUDIT_KEY, limits: {max_retries: 0}}"
        )
        text = SMALL.format(mock="", extra="").replace("{id: mock/audited}", model)
        path = write_experiment(text.replace("concurrency: 4", "concurrency: 1"))
        stopped = cli("run", str(path), "--out", str(tmp_path / "stopped"), "--max-failures", "2")
        assert stopped.exit_code == 1 and "--max-failures" in stopped.output
        summary = read_json(tmp_path / "stopped" / "summary.json")
        assert summary["items_failed"] == 2 and "HTTP 400" in summary["stopped"]
        assert summary["items_ok"] == 16  # level 5 ran first, in full

        full = cli("run", str(path), "--out", str(tmp_path / "full"))
        assert full.exit_code == 0, full.output
        assert all(body["temperature"] == 0.7 for body in server.requests)
        assert all(body["top_p"] == 0.95 for body in server.requests)
    summary = read_json(tmp_path / "full" / "summary.json")
    assert summary["items_ok"] == 16 and summary["items_failed"] == 16
    assert summary["failures"] == {"model_call": 16}
    results = read_json(tmp_path / "full" / "results.json")
    level5 = results["choices"][0]
    # The server always picks the student listed first: all choices, no group preference.
    assert level5["counts"]["equivocal"] == 0 and level5["n"] == 16
    assert results["position"]["first_listed"]["k"] == 16
    assert level5["k"] == 8 and results["n_failed"] == 16
    with sqlite3.connect(tmp_path / "full" / "fairpanel.sqlite") as db:
        errors = db.execute("SELECT error FROM study_items WHERE status='failed'").fetchall()
    assert len(errors) == 16 and all("sk-audit" not in str(e) for e in errors)


def _version_1_store(path: Path) -> None:
    """A run folder's database as fairpanel wrote it before studies existed."""
    store = Store(path)
    store.close()
    with sqlite3.connect(path) as db:
        db.execute("DROP TABLE study_items")
        db.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
        db.execute(
            "INSERT INTO trials (key, protocol, spec, status, error, consensus, schema_version, "
            "created_at) VALUES ('k1', 'single', '{}', 'ok', NULL, NULL, 3, 'then')"
        )


def test_store_migrates_version_1_files_and_refuses_newer_ones(tmp_path: Path) -> None:
    path = tmp_path / "fairpanel.sqlite"
    _version_1_store(path)
    store = Store(path)
    try:
        assert store.finished_keys() == {"k1"}
        assert store.study_item_statuses("award-audit") == {}
    finally:
        store.close()
    assert _rows(path, "SELECT value FROM meta WHERE key='schema_version'") == [
        (str(STORE_SCHEMA_VERSION),)
    ]
    with sqlite3.connect(path) as db:
        db.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
    with pytest.raises(RuntimeError, match="store schema 99"):
        Store(path)


def test_schema_of_a_study(cli: Cli) -> None:
    result = cli("schema", "--study", "award-audit")
    assert result.exit_code == 0
    assert "pairs_per_level" in json.loads(result.output)["properties"]
    assert cli("schema", "--study", "nope").exit_code == 2
