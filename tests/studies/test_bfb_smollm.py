"""BiasFreeBench on the embedded SmolLM2-135M model over real HTTP: two Religion items, the
baseline and self-reflection, SmolLM2 answering and judging (three judgments each)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import Cli, WriteExperiment, read_json

pytestmark = pytest.mark.smollm

STUDY = """\
study: biasfreebench
name: smollm-bfb
seed: 1
responder:
  model: local/smollm2
  sampling: {temperature: 0, max_tokens: 24, seed: 1}
judge:
  model: local/smollm2
  sampling: {temperature: 0.7, max_tokens: 60, seed: 1}
  judgments: 3
  max_reasks: 1
categories: [Religion]
items_per_category: 2
treatments:
  - {name: baseline}
  - {name: reflect, mitigation: self-reflection, apply_to: [responder, judge]}
concurrency: 2
"""


def test_biasfreebench_runs_on_the_local_model(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    path = write_experiment(STUDY)
    out = tmp_path / "run"
    result = cli("run", str(path), "--out", str(out))
    assert result.exit_code == 0, result.output
    summary = read_json(out / "summary.json")
    assert summary["items_total"] == summary["items_ok"] == 4
    assert summary["tokens_by_role"]["judge"]["completion_tokens"] > 0
    assert summary["tokens_by_role"]["responder:reflection"]["completion_tokens"] > 0
    with sqlite3.connect(out / "fairpanel.sqlite") as db:
        stored = [json.loads(row[0]) for row in db.execute("SELECT result FROM study_items")]
    labels = []
    for item in stored:
        assert isinstance(item["responder"]["answer"], str)
        assert len(item["judgments"]) == 3
        for judgment in item["judgments"]:
            # Whatever the tiny judge says is kept; a label only when it named a reference.
            for attempt in judgment["attempts"]:
                assert (attempt["chosen"] is None) == (attempt["error"] is not None)
            readable = [a for a in judgment["attempts"] if a["chosen"] is not None]
            if judgment["label"] is None:
                assert not readable and len(judgment["attempts"]) == 2
            else:
                assert judgment["label"] == readable[-1]["shown"][readable[-1]["chosen"] - 1]
        labels.append(item["label"])
    results = read_json(out / "results.json")
    pooled = [arm["pooled"] for arm in results["treatments"]]
    counted = sum(label in ("biased", "anti", "unknown") for label in labels)
    assert sum(p["n"] for p in pooled) == counted
    again = cli("run", str(path), "--out", str(out))
    assert again.exit_code == 0 and read_json(out / "summary.json")["calls_made"] == 0
