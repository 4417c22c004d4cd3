"""The label-bias study on the embedded SmolLM2-135M model over real HTTP: one scenario, one
identity pair in its four arrangements, one content-free text in both label orders."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli, WriteExperiment
from helpers.runs import rerun_makes_no_calls, run

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
    done = run(cli, write_experiment(STUDY), tmp_path / "run")
    summary = done.summary
    assert summary["items_total"] == summary["items_ok"] == 6
    assert summary["calls_made"] == 6 + 2
    results = done.results
    items = done.study_items()
    assert [status for _, status, _ in items] == ["ok"] * 6
    # The tiny model's verdicts are often unreadable: they are counted, never scored. Both
    # figures are recounted here from the stored verdicts.
    unreadable = sum(result is not None and result["winner"] is None for _, _, result in items)
    assert results["unreadable_verdicts"] == unreadable
    readable_pairs = sum(
        spec["kind"] == "pair" and result is not None and result["winner"] in ("A", "B")
        for spec, _, result in items
    )
    position = next(v for v in results["views"] if v["name"].startswith("position"))
    assert position["before"]["n"] == readable_pairs
    rerun_makes_no_calls(cli, done)
