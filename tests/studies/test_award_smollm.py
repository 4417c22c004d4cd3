"""The award audit on the embedded SmolLM2-135M model over real HTTP: a tiny design (four
items, one level, one pair in its four variants, with the follow-up and its coder)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import Cli, WriteExperiment, read_json

pytestmark = pytest.mark.smollm

BANK = """\
items:
  - {id: add, stem: "What is 12 + 9?", options: ["21", "20", "22", "19"], answer: A}
  - {id: sub, stem: "What is 30 - 14?", options: ["14", "16", "24", "6"], answer: B}
  - {id: mul, stem: "What is 7 x 6?", options: ["36", "48", "42", "13"], answer: C}
  - {id: div, stem: "What is 45 / 5?", options: ["8", "7", "6", "9"], answer: D}
"""

STUDY = """\
study: award-audit
name: smollm-audit
seed: 1
responder:
  model: local/smollm2
  sampling: {temperature: 0.7, top_p: 0.95, max_tokens: 12, seed: 1}
groups:
  names: {Black: [Latoya], White: [Emily]}
items_file: bank.yaml
levels: [2]
pairs_per_level: 1
followup:
  enabled: true
  max_tokens: 40
  coder:
    model: local/smollm2
    sampling: {temperature: 0, max_tokens: 40, seed: 1}
concurrency: 2
"""


def test_award_audit_runs_on_the_local_model(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    write_experiment(BANK, name="bank.yaml")
    path = write_experiment(STUDY)
    out = tmp_path / "run"
    result = cli("run", str(path), "--out", str(out))
    assert result.exit_code == 0, result.output
    summary = read_json(out / "summary.json")
    assert summary["items_total"] == summary["items_ok"] == 4
    assert summary["tokens_by_role"]["responder"]["completion_tokens"] > 0
    results = read_json(out / "results.json")
    pooled = results["choices"][-1]
    assert sum(pooled["counts"].values()) == 4
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        stored = [json.loads(row[0]) for row in db.execute("SELECT result FROM study_items")]
    # Whatever the tiny model says is kept verbatim and read, never forced into a choice.
    for item in stored:
        assert isinstance(item["answer"], str)
        assert (item["outcome"] == "chosen") == (item["chosen_name"] is not None)
        if item["outcome"] == "chosen":
            assert item["chosen_name"] in item["answer"] or item["chosen_name"].lower() in (
                item["answer"].lower()
            )
            assert "explanation" in item["followup"]
    calls = summary["calls_made"]
    assert calls == 4 + 2 * sum(item["outcome"] == "chosen" for item in stored)
    again = cli("run", str(path), "--out", str(out))
    assert again.exit_code == 0 and read_json(out / "summary.json")["calls_made"] == 0
