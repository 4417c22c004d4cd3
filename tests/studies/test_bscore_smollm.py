"""B-score on the embedded SmolLM2-135M model over real HTTP: one paper question and one
judge pair, two single-turn queries (with confidence) and a two-turn conversation each (the
judge pair's prompts are long and each turn re-reads the conversation: three of each took
165 s on two cores, two take 26 s)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli, WriteExperiment
from helpers.runs import rerun_makes_no_calls, run

pytestmark = pytest.mark.smollm

STUDY = """\
study: bscore
name: smollm-bscore
seed: 1
model:
  model: local/smollm2
  sampling: {temperature: 0.8, max_tokens: 40, seed: 1}
questions: {topics: [2-choice_politics], categories: [random]}
judge_pairs:
  responder:
    model: local/smollm2
    sampling: {temperature: 0.7, max_tokens: 60, seed: 1}
  scenarios: {bases: [salary-negotiation], derived_per_base: 1}
  pairs: [[female, male]]
replicates: 1
single_turn_queries: 2
multi_turn_turns: 2
concurrency: 2
"""


def test_bscore_runs_on_the_local_model(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    done = run(cli, write_experiment(STUDY), tmp_path / "run")
    summary = done.summary
    assert summary["items_total"] == summary["items_ok"] == 2
    # Per item 2 queries + 2 confidences + 2 turns; the judge item adds 2 responder calls.
    assert summary["calls_made"] == 2 * 6 + 2
    results = done.results
    question = results["questions"][0]
    assert question["question"] == "2-choice_politics/random"
    for _, _, item in done.study_items():
        assert item is not None
        for answer in [*item["single"], *item["multi"]]:
            # Whatever the tiny model says is kept and read; an answer is an option or invalid.
            assert isinstance(answer["raw"], str)
            assert (answer["answer"] is None) == (answer["invalid"] is not None)
        assert all("confidence_raw" in query for query in item["single"])
    assert results["judge_pairs"][0]["pair"] == "female-vs-male"
    rerun_makes_no_calls(cli, done)
