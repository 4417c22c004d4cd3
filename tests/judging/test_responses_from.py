"""Frozen candidates: a later experiment judges an earlier run's responses (``responses_from``,
a run folder or its JSON Lines export) without calling the responder, and a source that cannot
stand in for its responder fails at load with the field's line."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from conftest import Cli
from helpers.runs import Run, mock_run, run

from fairpanel.judging.engine import RunFolderLock
from fairpanel.judging.experiment import Candidate, candidates_digest, read_candidate_source
from fairpanel.judging.experiment._candidates import SOURCE_RESOLVED_FILE, SOURCE_STORE_FILE
from fairpanel.judging.store import RESOLVED_CONFIG_FILE, STORE_FILE

SOURCE = """\
name: frozen-source
protocols: [single, pair]
responder:
  model: mock/responder
panel:
  judges: [domain_expert, clarity_editor]
  model: mock/judge
  discussion_rounds: 0
scenarios:
  bases: [fitness-coaching, nursing-care-plan]
  derived_per_base: 2
identities:
  categories: [gender]
arms: {placebo: false, same_label: false}
"""

# Another panel (one judge, another model) on the same responder: what "a judge added next
# month" looks like. The responses_from line is line 2 in every file written from this.
LATER = """\
name: frozen-later
responses_from: {source}
protocols: [single, pair]
responder:
  model: {responder}
  sampling: {{temperature: {temperature}, max_tokens: 220, seed: 1}}
panel:
  judges: [creativity_reviewer]
  model: mock/judge-b
  discussion_rounds: 0
scenarios:
  bases: [fitness-coaching, nursing-care-plan]
  derived_per_base: {derived}
identities:
  categories: [gender]
arms: {{placebo: false, same_label: false}}
"""

EDIT = " [frozen candidate]"
"""Appended to every source response after the source ran: a responder called again would
write the text without it, so only responses read from the source carry it."""


def _later(
    source: str,
    responder: str = "mock/responder",
    temperature: float = 0.7,
    derived: int = 2,
) -> str:
    return LATER.format(
        source=source, responder=responder, temperature=temperature, derived=derived
    )


def _responses(folder: Path) -> list[tuple[object, ...]]:
    """Every stored response, its text as bytes."""
    with sqlite3.connect(folder / STORE_FILE) as db:
        return db.execute(
            "SELECT scenario_id, response_index, model, CAST(text AS BLOB), call_key "
            "FROM responses ORDER BY scenario_id, response_index, model"
        ).fetchall()


def _calls_by_role(folder: Path) -> dict[str, int]:
    with sqlite3.connect(folder / STORE_FILE) as db:
        rows = db.execute("SELECT role, COUNT(*) FROM calls GROUP BY role").fetchall()
    return {str(role): int(count) for role, count in rows}


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The earlier run, its responses edited afterwards (see ``EDIT``)."""
    finished = mock_run(Cli(), tmp_path_factory.mktemp("source"), SOURCE)
    assert _calls_by_role(finished.out)["responder"] == 2 * 4  # two responses, 4 scenarios
    with sqlite3.connect(finished.out / STORE_FILE) as db:
        db.execute("UPDATE responses SET text = text || ?", (EDIT,))
    return finished


@pytest.fixture(scope="module")
def later(source: Run, tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The later experiment on the source's folder (a relative path), run while another
    process would hold the source's lock."""
    root = source.out.parent
    config = root / "later.yaml"
    config.write_text(_later(source.out.name), encoding="utf-8")
    with RunFolderLock(source.out):
        return run(Cli(), config, tmp_path_factory.mktemp("later") / "run")


def test_the_candidate_source_names_the_engines_files() -> None:
    assert (SOURCE_STORE_FILE, SOURCE_RESOLVED_FILE) == (STORE_FILE, RESOLVED_CONFIG_FILE)


def test_the_responder_is_never_called(later: Run) -> None:
    roles = _calls_by_role(later.out)
    # One judge, no discussion: a first and a final call per trial, and nothing else.
    assert roles == {"judge:first": 24, "judge:final": 24}
    assert "responder" not in later.summary["tokens_by_role"]
    assert later.summary["trials_ok"] == later.summary["trials_total"] == 4 * 2 + 4 * 4


def test_stored_responses_equal_the_sources_byte_for_byte(source: Run, later: Run) -> None:
    theirs = _responses(source.out)
    assert len(theirs) == 8
    assert all(text.endswith(EDIT.encode()) for _, _, _, text, _ in theirs)
    assert _responses(later.out) == theirs


def test_the_judges_were_shown_the_frozen_candidates(later: Run) -> None:
    requests = later.rows("SELECT request FROM calls WHERE role LIKE '%judge%'")
    assert requests
    assert all(EDIT in request for (request,) in requests)


def test_the_manifest_records_where_the_candidates_came_from(source: Run, later: Run) -> None:
    entry = later.json("manifest.json")["responses_from"]
    stored = read_candidate_source(source.out).candidates
    assert entry == {
        "path": str(source.out.resolve()),
        "digest": candidates_digest(stored),
        "responses": 8,
        "scenarios": 4,
    }
    assert later.json(RESOLVED_CONFIG_FILE)["responses_from"] == str(source.out.resolve())


def test_reading_the_source_leaves_it_unchanged(source: Run, tmp_path: Path) -> None:
    store = source.out / STORE_FILE
    before = hashlib.sha256(store.read_bytes()).hexdigest()
    config = source.out.parent / "again.yaml"
    config.write_text(_later(source.out.name), encoding="utf-8")
    with RunFolderLock(source.out):
        run(Cli(), config, tmp_path / "again")
    assert hashlib.sha256(store.read_bytes()).hexdigest() == before


def test_a_rerun_makes_no_calls(later: Run) -> None:
    again = Cli()("run", str(later.config), "--out", str(later.out))
    assert again.exit_code == 0, again.output
    assert later.summary["calls_made"] == 0
    assert later.summary["trials_run"] == 0


def test_the_estimate_counts_no_responder_calls(source: Run, cli: Cli) -> None:
    config = source.out.parent / "estimate.yaml"
    config.write_text(_later(source.out.name), encoding="utf-8")
    plan = json.loads(cli("estimate", str(config), "--json").output)
    assert plan["calls"] and not any("responder" in name for name in plan["calls"])
    plain = json.loads(cli("estimate", str(source.config), "--json").output)
    assert plain["calls"]["responder"] == 8


@pytest.mark.parametrize(
    ("later_text", "expected"),
    [
        (
            _later("{source}", responder="mock/other-responder"),
            ["mock/other-responder", "mock/responder", "responder"],
        ),
        (_later("{source}", temperature=0.2), ["temperature 0.2", "temperature 0.7"]),
        (_later("no-such-run"), ["no-such-run", "does not exist"]),
        (
            _later("{source}", derived=4),
            [
                "4 scenarios this experiment needs have no stored response pair",
                "fitness-coaching/03, fitness-coaching/04, nursing-care-plan/03 and 1 more",
            ],
        ),
    ],
    ids=["responder-model", "responder-sampling", "missing-folder", "missing-scenarios"],
)
def test_a_source_that_cannot_stand_in_fails_at_load(
    source: Run, cli: Cli, tmp_path: Path, later_text: str, expected: list[str]
) -> None:
    config = tmp_path / "later.yaml"
    config.write_text(later_text.replace("{source}", str(source.out)), encoding="utf-8")
    out = tmp_path / "run"
    result = cli("run", str(config), "--out", str(out))
    assert result.exit_code == 2, result.output
    assert f"{config}:2: responses_from: " in result.output, result.output
    for text in expected:
        assert text in result.output, (text, result.output)
    assert "Traceback" not in result.output
    assert not out.exists()


def test_a_folder_without_a_store_fails_at_load(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    config = tmp_path / "later.yaml"
    config.write_text(_later("empty"), encoding="utf-8")
    result = cli("run", str(config), "--out", str(tmp_path / "run"))
    assert result.exit_code == 2
    assert f"{config}:2: responses_from: " in result.output
    assert f"no {STORE_FILE}" in result.output


def test_the_export_round_trips(source: Run, cli: Cli, tmp_path: Path) -> None:
    exported = tmp_path / "candidates.jsonl"
    result = cli("responses", "export", str(source.out), "--out", str(exported))
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 8
    assert {"scenario_id", "index", "text", "responder_model"} <= set(lines[0])
    stored = read_candidate_source(source.out).candidates
    assert tuple(Candidate(**line) for line in lines) == stored
    digest = candidates_digest(stored)
    assert digest in result.output.replace("\n", "")
    assert read_candidate_source(exported).candidates == stored

    config = tmp_path / "later.yaml"
    config.write_text(_later(exported.name), encoding="utf-8")
    frozen = run(cli, config, tmp_path / "run")
    assert "responder" not in _calls_by_role(frozen.out)
    assert _responses(frozen.out) == _responses(source.out)
    assert frozen.json("manifest.json")["responses_from"]["digest"] == digest


def test_a_bad_export_line_fails_at_load_with_its_line(
    source: Run, cli: Cli, tmp_path: Path
) -> None:
    exported = tmp_path / "candidates.jsonl"
    assert cli("responses", "export", str(source.out), "--out", str(exported)).exit_code == 0
    lines = exported.read_text(encoding="utf-8").splitlines()
    lines[2] = json.dumps({**json.loads(lines[2]), "index": 3})
    exported.write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = tmp_path / "later.yaml"
    config.write_text(_later(exported.name), encoding="utf-8")
    result = cli("run", str(config), "--out", str(tmp_path / "run"))
    assert result.exit_code == 2
    assert f"{config}:2: responses_from: {exported}:3: " in result.output
    assert "index must be 1 or 2" in result.output


def test_exporting_a_folder_that_is_not_a_run_exits_2(cli: Cli, tmp_path: Path) -> None:
    result = cli("responses", "export", str(tmp_path), "--out", str(tmp_path / "x.jsonl"))
    assert result.exit_code == 2
    assert not (tmp_path / "x.jsonl").exists()


def test_a_run_folder_holding_other_responses_is_not_overwritten(
    source: Run, cli: Cli, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    run(cli, source.config, out)  # the responder's own (unedited) responses
    before = _responses(out)
    config = tmp_path / "later.yaml"
    config.write_text(_later(str(source.out)), encoding="utf-8")
    result = cli("run", str(config), "--out", str(out))
    assert result.exit_code == 2
    assert "already holds other responses" in result.output
    assert _responses(out) == before
