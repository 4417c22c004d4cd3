"""``fairpanel simulate`` on a small design: the headline tests' false-positive rate with
nothing planted stays near alpha, power grows with the planted size, and no model is called."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, read_json
from scipy.stats import binomtest

from fairpanel.judging import load_experiment
from fairpanel.judging.simulate import (
    JudgeEffects,
    SimulationSettings,
    recommendations,
    run_simulation,
)

# The models named here would need a key and a network; simulate must never touch them.
DESIGN = """\
name: simulate-small
seed: 4
protocols: [single]
models:
  judge:
    id: openai/gpt-4o-mini
    base_url: http://127.0.0.1:9/v1
responder:
  model: judge
panel:
  judges: [domain_expert, creativity_reviewer]
  model: judge
scenarios:
  bases: [fitness-coaching, nursing-care-plan, software-incident-response, emergency-triage,
          portfolio-advice, salary-negotiation]
  derived_per_base: 2
identities:
  categories: [gender]
"""

SINGLE = "single score differences"


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("simulate")
    config = root / "experiment.yaml"
    config.write_text(DESIGN, encoding="utf-8")
    settings = SimulationSettings(
        sizes=(0.0, 0.5, 2.0),
        reps=20,
        scales=(1.0,),
        jobs=2,
        n_boot=200,
        seed=3,
        noise=2,
        effects=JudgeEffects(),
    )
    with pytest.MonkeyPatch.context() as patch:

        def no_network(*_args: object, **_kwargs: object) -> None:
            raise AssertionError("simulate opened a network connection")

        patch.setattr(socket.socket, "connect", no_network)
        return run_simulation(load_experiment(config), settings)


def _row(rows: list[dict[str, Any]], **match: object) -> dict[str, Any]:
    (found,) = [r for r in rows if all(r[k] == v for k, v in match.items())]
    return found


def test_false_positive_rate_is_within_the_binomial_band_of_alpha(
    simulated: dict[str, Any],
) -> None:
    row = _row(simulated["false_positives"], scale="x1", family=SINGLE)
    target = row["target_contrasts"]  # one test per simulated run: independent trials
    assert target["n"] == 20
    assert binomtest(target["k"], target["n"], 0.05).pvalue > 0.01, target
    # Pooled over all 15 tests of a run (correlated, so only a loose check) and family-wise
    # after Holm: never grossly above alpha.
    assert row["per_test"]["n"] == 20 * 15
    assert binomtest(row["per_test"]["k"], row["per_test"]["n"], 0.05).pvalue > 0.001, row
    assert row["family_wise"]["rate"] <= 0.15, row


def test_power_grows_with_the_planted_size(simulated: dict[str, Any]) -> None:
    power = {r["size"]: r["power"] for r in simulated["power"] if r["family"] == SINGLE}
    assert power[2.0]["rate"] >= 0.9
    # Clearly below: the two intervals do not overlap.
    assert power[0.5]["ci_high"] < power[2.0]["ci_low"], power
    (size,) = simulated["design_sizes"]
    assert size["trials"] == 6 * 2 * 2 and size["bases"] == 6
    needed = _row(simulated["needed"], size=2.0, family=SINGLE, category="gender")
    assert needed["smallest_scale"] == "x1"


def test_simulate_command_writes_json_and_rejects_bad_options(tmp_path: Path) -> None:
    config = tmp_path / "experiment.yaml"
    config.write_text(DESIGN, encoding="utf-8")
    cli = Cli()
    args = ["simulate", str(config), "--reps", "3", "--sizes", "0,3", "--scales", "1"]
    result = cli(*args, "--jobs", "1", "--n-boot", "100", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    written = read_json(tmp_path / "simulate.json")
    assert written["repetitions"] == 3 and written["sizes"] == [0.0, 3.0]
    assert "False positives" in result.output and "Power" in result.output
    assert written["recommendations"] and "3 points" in written["recommendations"][0]
    bad = cli("simulate", str(config), "--sizes", "0,big", "--out", str(tmp_path))
    assert bad.exit_code == 2 and "--sizes must be comma-separated numbers" in bad.output
    typo = tmp_path / "typo.yaml"
    typo.write_text(DESIGN.replace("derived_per_base", "derived_per_bas"), encoding="utf-8")
    assert cli("simulate", str(typo)).exit_code == 2


def test_recommendation_names_the_family_that_gets_there_soonest() -> None:
    """A family whose Holm correction spans hundreds of tests must not hide one that detects
    the planted size in a smaller design."""
    sizes = [
        {"scale": s, "bases": b, "derived_per_base": 2, "replicates": 1, "trials": b * 8}
        for s, b in (("x1", 6), ("x2", 12))
    ]

    def need(family: str, scale: str | None, power: float | None, factor: float | None) -> Any:
        return {
            "size": 0.5,
            "family": family,
            "category": "gender",
            "smallest_scale": scale,
            "power_there": power,
            "extrapolated_from": None if scale else "x2",
            "extrapolated_factor": factor,
        }

    result = {
        "design_sizes": sizes,
        "needed": [
            need("single score differences", None, None, None),
            need("pair label swaps", "x2", 0.85, None),
            need("pair win rates", "x1", 0.8, None),
        ],
    }
    (line,) = recommendations(result)
    assert line.startswith("With 6 bases x 2 derived") and "pair win rates" in line
    result["needed"] = [
        need("single score differences", None, None, 3.0),
        need("pair label swaps", None, None, 1.5),
    ]
    (line,) = recommendations(result)
    assert "1.5x" in line and "EXTRAPOLATED" in line and "pair label swaps" in line
    result["needed"] = [need("single score differences", None, None, None)]
    (line,) = recommendations(result)
    assert "too low to extrapolate" in line
