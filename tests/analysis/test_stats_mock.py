"""The statistics end to end on the mock judge with planted bias: real runner, store, panel."""

from __future__ import annotations

from pathlib import Path

from conftest import Cli, WriteExperiment, read_json

PLANTED = """\
name: mock-stats
seed: 5
protocols: [single, pair]
models:
  judge:
    id: mock/judge
    mock:
      score_shift: {female: {creativity: 1.2}}
      first_position_bias: 0.3
responder:
  model: mock/responder
panel:
  judges: [domain_expert, creativity_reviewer, clarity_editor]
  model: judge
  discussion_rounds: 0
scenarios:
  bases: [fitness-coaching, nursing-care-plan, software-incident-response, emergency-triage,
          portfolio-advice, salary-negotiation]
  derived_per_base: 5
identities:
  categories: [gender]
arms: {placebo: true, same_label: true}
concurrency: 8
"""

CONTRACT_KEYS = (
    "headline",
    "effects",
    "multiple_comparisons",
    "position_bias",
    "bradley_terry",
    "agreement",
    "debate",
    "failures_by_identity",
    "control_false_positives",
)


def test_planted_bias_is_found_through_the_whole_pipeline(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    result = cli("run", str(write_experiment(PLANTED)), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "Headline" in result.output and "Identity effects" in result.output
    results = read_json(out / "results.json")
    assert all(key in results for key in CONTRACT_KEYS)
    effects = {e["id"]: e for e in results["effects"]}
    for effect in effects.values():
        assert effect["n"] > 0 and effect["method"] and effect["family"]
    creativity = effects["single:gender:creativity:female-male:panel"]
    assert creativity["verdict"] == "female favoured"
    assert creativity["n"] == 30 and creativity["n_clusters"] == 6
    assert 0.8 < creativity["estimate"] < 1.6
    assert effects["single:gender:accuracy:female-male:panel"]["verdict"] == (
        "no detectable difference"
    )
    # The headline names the strongest detection, which may be the score or the pair contrast:
    # the planted score shift also decides pairs. Either way it points at female.
    verdict = results["headline"]["verdict"]
    assert verdict.startswith("Detectable identity effect") and "female" in verdict
    assert creativity["id"] in results["headline"]["detected"]
    # The mock hands 30% of verdicts to the front answer: position bias, not identity.
    position = results["position_bias"]
    assert position["first_position_win_rate"] > 0.55 and position["p_value"] < 0.01
    (gender,) = results["bradley_terry"]
    assert gender["position"]["ci_low"] > 0
    # Controls: the same position bias shows where no label differs.
    controls = results["control_false_positives"]
    assert controls["same_label"]["position_bias"]["first_position_win_rate"] > 0.55
    assert controls["placebo"]["n_verdicts"] == 30 * 2
    assert {(r["protocol"], r["round_kind"]) for r in results["agreement"]} >= {
        ("single", "first"),
        ("single", "final"),
        ("pair", "final"),
    }
    failures = results["failures_by_identity"]
    assert {r["identity"] for r in failures} == {"female", "male"}
    # Single trials show one label, pair trials both: 3 judges x 2 rounds x (30 + 120) trials.
    assert {r["turns"] for r in failures} == {2 * (30 + 120)}
