"""results.json's design block says what the analysis did to the design before testing: how
many base scenarios it generalises over, how many repeated trials it counted once, and which
scenarios' two responses were the same; the report shows it before the figures."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import Cli, WriteExperiment, read_json

import fairpanel.agents.providers._mock_responder as mock_responder
from fairpanel.judging import STORE_FILE, Store, load_frames, response_warnings

EXPERIMENT = """\
name: design-block
seed: 7
protocols: [single, pair]
models:
  judge: {id: mock/judge}
responder: {model: mock/responder}
panel:
  judges: [domain_expert, creativity_reviewer]
  model: judge
  discussion_rounds: 0
scenarios: {bases: [fitness-coaching, nursing-care-plan], derived_per_base: 1}
identities: {categories: [gender]}
arms: {placebo: false, same_label: false}
concurrency: 4
"""


def test_identical_responses_show_as_dropped_duplicates_and_warnings(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without the mock's word swaps, response 2 is response 1 verbatim in every scenario.
    monkeypatch.setattr(mock_responder, "_SYNONYMS", ())
    out = tmp_path / "run"
    result = cli("run", str(write_experiment(EXPERIMENT)), "--out", str(out))
    assert result.exit_code == 0, result.output
    store = Store(out / STORE_FILE)
    try:
        frames = load_frames(store)
        warnings = response_warnings(store)
    finally:
        store.close()
    design = read_json(out / "results.json")["design"]
    assert frames.duplicate_trials and design["duplicates_dropped"] == len(frames.duplicate_trials)
    assert warnings and design["warnings"] == warnings
    assert design["n_bases"] == 2
    page = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", (out / "report.html").read_text()))
    assert f"{design['duplicates_dropped']} trial(s) repeated a judge request" in page
    assert all(re.sub(r"\s+", " ", warning) in page for warning in warnings)
