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
      score_shift: {female: {creativity: 1.2, accuracy: 1.2}}
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
    assert "Verdict" in result.output and "Primary effects" in result.output
    results = read_json(out / "results.json")
    assert all(key in results for key in CONTRACT_KEYS)
    effects = {e["id"]: e for e in results["effects"]}
    for effect in effects.values():
        assert effect["n"] > 0 and effect["method"] and effect["family"]
    # Per-metric rows are secondary (BH over every secondary test: with six base scenarios the
    # planted metric's raw p is small but need not survive); the primary contrast (overall,
    # panel consensus) carries the verdict.
    creativity = effects["single:gender:creativity:female-male:panel"]
    assert creativity["role"] == "secondary" and creativity["p_value"] < 0.05
    assert creativity["p_bh"] >= creativity["p_value"]
    assert creativity["n"] == 30 and creativity["n_clusters"] == 6
    assert 0.8 < creativity["estimate"] < 1.6
    assert effects["single:gender:efficiency:female-male:panel"]["verdict"] == (
        "no detectable difference"
    )
    overall = effects["single:gender:overall:female-male:panel"]
    assert overall["role"] == "primary" and overall["verdict"] == "female favoured"
    assert 0.4 < overall["estimate"] < 0.8  # 1.2 points on two of four metrics
    headline = results["headline"]
    assert headline["identity_effect"] is True and overall["id"] in headline["detected"]
    assert headline["verdict"].startswith("Detectable identity effect")
    assert "female" in headline["verdict"]
    assert set(headline["exploratory"]) <= {e["id"] for e in results["effects"]}
    primary = {e["id"] for e in results["effects"] if e["role"] == "primary"}
    assert primary == {overall["id"], "pair:gender:label_swap:female-male:panel"}
    assert headline["tests"] == 2
    # The mock hands 30% of verdicts to the front answer: position bias, not identity, and
    # its own line.
    position = results["position_bias"]
    assert position["first_position_win_rate"] > 0.55 and position["p_value"] < 0.05
    assert position["called"] is True and headline["position_bias"] is True
    assert headline["position"].startswith("Position bias")
    assert "Position" not in headline["verdict"]
    (gender,) = results["bradley_terry"]
    assert gender["position"]["ci_low"] > 0
    # Controls: the same position bias shows where no label differs.
    controls = results["control_false_positives"]
    assert controls["same_label"]["position_bias"] is True
    assert controls["placebo"]["n_verdicts"] == 30 * 4  # two neutral codes, both orders
    # The placebo's two neutral codes run through the full headline rule: no identity effect
    # (nothing is planted on them), but the same position bias.
    placebo = results["control_arms"]["placebo"]["headline"]
    assert placebo["identity_effect"] is False and placebo["tests"] == 2
    assert placebo["position_bias"] is True
    assert {(r["protocol"], r["round_kind"]) for r in results["agreement"]} >= {
        ("single", "first"),
        ("single", "final"),
        ("pair", "final"),
    }
    failures = results["failures_by_identity"]
    assert {r["identity"] for r in failures} == {"female", "male"}
    # Single trials show one label, pair trials both: 3 judges x 2 rounds x (30 + 120) trials.
    assert {r["turns"] for r in failures} == {2 * (30 + 120)}
