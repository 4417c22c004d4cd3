"""The label-bias study on the embedded SmolLM2-135M model over real HTTP: one scenario, one
identity pair in its four arrangements, one content-free text in both label orders."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli, WriteExperiment, read_json

pytestmark = pytest.mark.smollm

STUDY = """\
study: label-bias
name: smollm-label-bias
seed: 1
judge:
  model: local/smollm2
  sampling: {temperature: 0.7, max_tokens: 120, seed: 1}
pairs:
  responder:
    model: local/smollm2
    sampling: {temperature: 0.7, max_tokens: 60, seed: 1}
  scenarios: {bases: [salary-negotiation], derived_per_base: 1}
  pairs: [[female, male]]
replicates: 1
content_free: ["N/A"]
concurrency: 2
"""


def test_label_bias_runs_on_the_local_model(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    path = write_experiment(STUDY)
    result = cli("run", str(path), "--out", str(out))
    assert result.exit_code == 0, result.output
    summary = read_json(out / "summary.json")
    assert summary["items_total"] == summary["items_ok"] == 6
    assert summary["calls_made"] == 6 + 2
    results = read_json(out / "results.json")
    # The tiny model's verdicts are often unreadable: they are counted, never scored.
    assert 0 <= results["unreadable_verdicts"] <= 6
    position = next(v for v in results["views"] if v["name"].startswith("position"))
    assert position["before"]["n"] <= 4
    again = cli("run", str(path), "--out", str(out))
    assert again.exit_code == 0 and read_json(out / "summary.json")["calls_made"] == 0
