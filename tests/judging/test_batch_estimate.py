"""``fairpanel estimate`` beside batch mode: the batch price and the batches in sequence."""

from __future__ import annotations

import json

import pytest
from conftest import Cli, WriteExperiment

from fairpanel.judging import estimate, load_experiment

EXPERIMENT = """\
name: plan
{execution}
models:
  judge:
    id: openai-compatible/judge
    base_url: http://127.0.0.1:9/v1
    {own}
panel:
  judges: [domain_expert, clarity_editor]
  model: judge
  discussion_rounds: {rounds}
responder:
  model: {responder}
scenarios:
  bases: [fitness-coaching]
  derived_per_base: 2
identities:
  categories: [gender]
pair: {{counterbalance: false}}
arms: {{placebo: false, same_label: false}}
prices:
  openai-compatible/judge: {{input: 2.0, output: 8.0}}
  mock/responder: {{input: 1.0, output: 1.0}}
"""


def _plan(write: WriteExperiment, **fields: object) -> dict[str, object]:
    values = {"execution": "", "own": "", "rounds": 1, "responder": "judge", **fields}
    return estimate(load_experiment(write(EXPERIMENT.format(**values)))).as_dict()


def test_batch_mode_halves_the_price_and_counts_batches_one_after_another(
    write_experiment: WriteExperiment,
) -> None:
    plan = _plan(write_experiment)
    batch = plan["batch"]
    assert isinstance(batch, dict)
    online = plan["cost"]["total_usd"]  # type: ignore[index]
    assert online > 0 and batch["cost"]["total_usd"] == pytest.approx(online / 2)
    # Two response steps, then per trial: first judge, the other, one discussion round of
    # two speakers, a final round of two (as the batched run in test_batch_run sends them).
    assert batch["batches_in_sequence"] == 8
    assert batch["wall_seconds"] == 8 * 3600.0
    longer = _plan(write_experiment, rounds=3)["batch"]
    assert isinstance(longer, dict) and longer["batches_in_sequence"] == 12


def test_only_models_with_a_batch_api_are_discounted(write_experiment: WriteExperiment) -> None:
    plan = _plan(write_experiment, responder="mock/responder")
    batch = plan["batch"]
    assert isinstance(batch, dict) and batch["models"] == ["openai-compatible/judge"]
    by_model, online = batch["cost"]["by_model"], plan["cost"]["by_model"]  # type: ignore[index]
    assert by_model["mock/responder"] == online["mock/responder"] > 0
    assert by_model["openai-compatible/judge"] == pytest.approx(
        online["openai-compatible/judge"] / 2
    )
    kept_online = _plan(write_experiment, own="execution: online")
    assert "batch" not in kept_online


def test_the_cli_prints_both_prices_and_times(write_experiment: WriteExperiment, cli: Cli) -> None:
    path = write_experiment(
        EXPERIMENT.format(execution="", own="", rounds=1, responder="judge"), "p.yaml"
    )
    printed = cli("estimate", str(path))
    assert printed.exit_code == 0
    assert "cost in batch mode" in printed.output and "8.0 h (8 batches" in printed.output
    as_json = json.loads(cli("estimate", str(path), "--json").output)
    assert as_json["batch"]["batches_in_sequence"] == 8
