"""A judge with a planted length preference, run with every template manipulation: the bias
profile calls verbosity and nothing else, and the terminal and report say so."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Cli, read_json
from helpers.runs import Run

EXPERIMENT = """\
name: length-bias
seed: 3
protocols: [single, pair]
models:
  long-mock:
    id: mock/judge
    mock:
      length_preference: 2.0
      length_reference_words: 110
responder:
  model: mock/responder
panel:
  judges: [domain_expert, clarity_editor]
  model: long-mock
  discussion_rounds: 0
scenarios:
  sample: 15
  derived_per_base: 1
identities:
  categories: [gender]
pair:
  counterbalance: false
arms:
  placebo: false
  same_label: false
  manipulations:
    - {kind: verbosity, ratio: 2}
    - authority
    - bandwagon
    - {kind: assertiveness, tone: confident}
concurrency: 16
"""
BASES = 15


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, str]:
    root = tmp_path_factory.mktemp("length-bias")
    config = root / "experiment.yaml"
    config.write_text(EXPERIMENT, encoding="utf-8")
    result = Cli()("run", str(config), "--out", str(root / "run"))
    assert result.exit_code == 0, result.output
    return Run(config, root / "run"), result.output


def _profile(run: Run) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = read_json(run.out / "results.json")["bias_profile"]
    return rows


def test_verbosity_is_called_and_no_other_manipulation_is(finished: tuple[Run, str]) -> None:
    rows = _profile(finished[0])
    assert [(r["manipulation"], r["protocol"]) for r in rows] == [
        (label, protocol)
        for label in ("verbosity-2x", "authority", "bandwagon-80", "assertiveness-confident",
                      "same-text-control")
        for protocol in ("single", "pair")
    ]  # fmt: skip
    called = {(r["manipulation"], r["protocol"]) for r in rows if r["called"]}
    assert ("verbosity-2x", "single") in called
    assert {label for label, _ in called} == {"verbosity-2x"}
    single = next(
        r for r in rows if r["manipulation"] == "verbosity-2x" and r["protocol"] == "single"
    )
    assert single["estimate"] > 0.4 and single["ci_low"] > 0 and single["p_holm"] < 0.05
    for row in rows:
        assert row["n_bases"] == BASES
        # Every main trial has its twin: two labels per single scenario, one pair per scenario.
        assert row["n_pairs"] == BASES * (2 if row["protocol"] == "single" else 1)
        assert row["control"] == (row["manipulation"] == "same-text-control")


def test_the_terminal_and_the_report_show_the_profile(finished: tuple[Run, str]) -> None:
    run, answer = finished
    assert "Bias profile  1 of 4 manipulations move the panel" in answer
    assert "* verbosity-2x (single)" in answer
    page = (run.out / "report.html").read_text(encoding="utf-8")
    assert "Bias profile" in page and "verbosity-2x" in page and "same-text-control" in page
