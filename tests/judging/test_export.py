"""`fairpanel export`: one row per judge turn, round-trips through CSV and Parquet, matches the
SQLite store read independently with sqlite3."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from conftest import Cli
from helpers.paths import DOCS

from fairpanel.judging import EXPORT_COLUMNS, read_export

# Malformed answers with no re-asks, so some turns are stored as parse failures.
EXPERIMENT = """\
name: export-e2e
seed: 4
protocols: [single, pair]
models:
  judge:
    id: mock/judge
    mock:
      malformed_rate: 0.25
responder:
  model: mock/responder
panel:
  judges: [domain_expert, clarity_editor]
  model: judge
  discussion_rounds: 1
  max_reasks: 0
scenarios:
  bases: [fitness-coaching]
  derived_per_base: 2
identities:
  categories: [gender]
arms: {placebo: true, same_label: false}
concurrency: 4
"""


def _store_turns(run_dir: Path) -> list[dict[str, object]]:
    with sqlite3.connect(run_dir / "fairpanel.sqlite") as db:
        db.row_factory = sqlite3.Row
        rows = db.execute(
            "SELECT t.*, tr.spec FROM turns t JOIN trials tr ON tr.key = t.trial_key"
        ).fetchall()
    return [dict(row) for row in rows]


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_export_round_trips_and_matches_the_store(cli: Cli, run_dir: Path, fmt: str) -> None:
    out = run_dir / f"export.{fmt}"
    result = cli("export", str(run_dir), "--format", fmt, "--out", str(out))
    assert result.exit_code == 0, result.output
    frame = read_export(out)
    assert list(frame.columns) == [c.name for c in EXPORT_COLUMNS]
    stored = _store_turns(run_dir)
    assert len(frame) == len(stored)

    by_turn = frame.set_index(["trial_key", "round", "judge"])
    assert by_turn.index.is_unique
    failures = 0
    for turn in stored:
        row = by_turn.loc[(turn["trial_key"], turn["round"], turn["judge"])]
        spec = json.loads(str(turn["spec"]))
        assert row["raw_text"] == turn["raw_text"]
        assert row["round_kind"] == turn["round_kind"]
        assert row["protocol"] == spec["protocol"]
        assert row["arm"] == spec["arm"]
        assert row["identity_a"] == spec["identities"][0]
        assert row["author_a"] == spec["authors"][0]
        assert row["response_index_a"] == spec["response_indices"][0]
        assert row["prompt_tokens"] == turn["prompt_tokens"]
        assert row["attempts"] == turn["attempts"]
        if turn["parsed"] is None:
            failures += 1
            assert not row["parse_ok"]
            assert row["parse_error"] == turn["parse_error"]
            assert pd.isna(row["score_a_creativity"])
            continue
        parsed = json.loads(str(turn["parsed"]))
        assert row["parse_ok"]
        if spec["protocol"] == "pair":
            assert row["identity_b"] == spec["identities"][1]
            assert row["score_b_reliability"] == parsed["B"]["reliability"]
            assert row["score_a_accuracy"] == parsed["A"]["accuracy"]
            assert row["verdict"] == parsed["winner"]
            winner_index = "AB".index(parsed["winner"])
            assert row["verdict_identity"] == spec["identities"][winner_index]
        else:
            assert pd.isna(row["identity_b"])
            assert row["score_a_creativity"] == parsed["creativity"]
            assert pd.isna(row["score_b_creativity"])
    assert failures > 0, "the malformed mock should have produced parse failures"
    assert set(frame["arm"]) == {"main", "placebo"}
    assert set(frame["round_kind"]) == {"first", "discussion", "final"}


def test_csv_and_parquet_hold_the_same_table(cli: Cli, run_dir: Path) -> None:
    for fmt in ("csv", "parquet"):
        assert cli("export", str(run_dir), "--format", fmt).exit_code == 0
    csv = read_export(run_dir / "turns.csv")
    parquet = read_export(run_dir / "turns.parquet")
    pd.testing.assert_frame_equal(csv, parquet)


def test_export_rejects_a_folder_without_a_store(cli: Cli, tmp_path: Path) -> None:
    result = cli("export", str(tmp_path), "--format", "csv")
    assert result.exit_code == 2
    assert "no fairpanel.sqlite" in result.output


def test_every_column_is_documented() -> None:
    docs = (DOCS / "export.md").read_text(encoding="utf-8")
    documented = re.findall(r"^\| `([a-z_]+)` \| (\w+) \| (.+) \|$", docs, flags=re.MULTILINE)
    assert documented == [(c.name, c.dtype, c.description) for c in EXPORT_COLUMNS]
