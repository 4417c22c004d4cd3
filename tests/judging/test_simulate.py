"""``fairpanel simulate``: per-base preferences drawn as stated, the calibration tables' exact
intervals and recommendation computed as an independent calculation says, and a tiny run of a
small design producing the tables without calling any model."""

from __future__ import annotations

import math
import socket
import statistics
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import Cli, read_json
from helpers.experiments import ORIGINAL_BASES, offline_design
from scipy.stats import beta, binomtest

from fairpanel.agents import MockBias
from fairpanel.analysis import calibration_tables
from fairpanel.analysis.tools._intervals import clopper_pearson
from fairpanel.judging import load_experiment
from fairpanel.judging.simulate import (
    JudgeEffects,
    SimulationSettings,
    recommendations,
    run_simulation,
)
from fairpanel.judging.simulate._runs import (
    _trial_record,
    mock_config,
    prepare_design,
    scenario_biases,
)

DESIGN = offline_design(
    "simulate-small",
    ORIGINAL_BASES[:6],
    derived_per_base=1,
)


def _independent_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Clopper-Pearson from its definition: beta quantiles."""
    tail = (1 - confidence) / 2
    low = 0.0 if k == 0 else float(beta.ppf(tail, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(1 - tail, k + 1, n - k))
    return low, high


@pytest.mark.parametrize(("k", "n"), [(0, 200), (7, 200), (10, 200), (200, 200), (3, 20)])
def test_clopper_pearson_is_exact(k: int, n: int) -> None:
    low, high = clopper_pearson(k, n)
    expected = _independent_interval(k, n)
    assert low == pytest.approx(expected[0], abs=1e-9)
    assert high == pytest.approx(expected[1], abs=1e-9)
    # 0 of 200 still leaves room for 1.8%: the interval, not the zero, is the result.
    if (k, n) == (0, 200):
        assert high == pytest.approx(1 - 0.025 ** (1 / 200))


def _runs(counts: dict[tuple[str, float, str], tuple[int, int]], n: int) -> pd.DataFrame:
    """Simulated-run rows: for each (scale, size, category), ``k`` of ``n`` runs detected the
    planted identity and ``h`` of them had the headline call an identity effect."""
    rows = []
    for (scale, size, category), (k, h) in counts.items():
        for rep in range(n):
            rows.append(
                {
                    "scale": scale,
                    "size": size,
                    "rep": rep,
                    "category": category,
                    "identity_effect": None if rep == n - 1 else rep < h,
                    "position_bias": rep < 2 * h,
                    "tests": 4,
                    "detected": rep < k,
                }
            )
    return pd.DataFrame(rows)


def test_tables_count_runs_and_use_exact_intervals() -> None:
    n = 40
    counts = {
        ("x1", 0.0, "gender"): (0, 3),
        ("x2", 0.0, "gender"): (0, 1),
        ("x1", 0.25, "gender"): (20, 25),
        ("x1", 0.25, "race"): (35, 25),
        ("x2", 0.25, "gender"): (33, 36),
        ("x2", 0.25, "race"): (38, 36),
    }
    tables = calibration_tables(_runs(counts, n), ["x1", "x2"], 0.05)
    first = tables["false_positives"][0]
    assert first["scale"] == "x1" and first["runs"] == n
    # One run per (scale, size, rep), whatever the number of categories.
    identity = first["identity_effect"]
    assert (identity["k"], identity["n"]) == (3, n)
    assert first["identity_no_verdict"] == 1
    ci = binomtest(3, n).proportion_ci(method="exact")
    assert (identity["ci_low"], identity["ci_high"]) == pytest.approx((ci.low, ci.high))
    assert first["position_bias"]["k"] == 6
    power = {(r["scale"], r["category"]): r["power"] for r in tables["power"]}
    assert power[("x1", "gender")]["rate"] == 0.5
    assert power[("x2", "race")]["k"] == 38
    # x1's weakest category is at 50%; x2's at 33/40 = 82.5%: x2 is the recommendation.
    chosen = tables["recommended"]
    assert (chosen["scale"], chosen["size"]) == ("x2", 0.25)
    assert chosen["power"] == pytest.approx(33 / 40)
    # With a planted position preference, position claims are not false positives.
    planted = calibration_tables(_runs(counts, n), ["x1", "x2"], 0.05, position_planted=True)
    assert planted["false_positives"][0]["position_bias"] is None


def test_no_design_reaching_the_target_says_how_far_to_grow() -> None:
    counts = {("x1", 0.25, "gender"): (10, 10), ("x2", 0.25, "gender"): (20, 20)}
    tables = calibration_tables(_runs(counts, 40), ["x1", "x2"], 0.05)
    chosen = tables["recommended"]
    assert chosen["scale"] is None and chosen["best_scale"] == "x2"
    assert chosen["best_power"] == 0.5 and chosen["extrapolated_factor"] > 1
    sizes = [
        {"scale": s, "bases": 6, "derived_per_base": d, "replicates": 1, "trials": 6 * d * 4}
        for s, d in (("x1", 2), ("x2", 4))
    ]
    (line,) = recommendations({**tables, "design_sizes": sizes})
    assert "No simulated design reached 80%" in line and "EXTRAPOLATED" in line
    assert "(96 trials)" in line
    reached = {**tables, "design_sizes": sizes}
    reached["recommended"] = {**chosen, "scale": "x1", "power": 0.85}
    (line,) = recommendations(reached)
    assert line.startswith("Recommended design: 6 bases x 2 derived (48 trials)")
    assert "0.25-point" in line and "85%" in line


def test_scenario_preferences_have_the_stated_spread_around_the_planted_ones() -> None:
    planted_shift = {"creativity": 1.0}
    planted = MockBias(
        seed=9,
        first_position_bias=0.1,
        score_shift={"female": planted_shift, "Emma": planted_shift},
    )
    cues = {"female": ("female", "Emma"), "male": ("male", "James")}
    effects = JudgeEffects(label_base_sd=0.35, position_base_sd=0.15)
    bases = [f"base-{i}" for i in range(1500)]
    biases = scenario_biases(planted, bases, cues, effects)
    female = [b.score_shift["female"]["accuracy"] for b in biases.values()]
    male = [b.score_shift["male"]["accuracy"] for b in biases.values()]
    position = [b.first_position_bias - 0.1 for b in biases.values()]
    n = len(bases)
    for draws, sd in ((female, 0.35), (male, 0.35), (position, 0.15)):
        assert abs(statistics.mean(draws)) < 4 * sd / math.sqrt(n)
        assert abs(statistics.stdev(draws) - sd) < 4 * sd / math.sqrt(2 * (n - 1))
    # One draw per base and identity: every metric and every cue of the label moves together,
    # on top of the planted shift.
    one = biases["base-0"]
    assert one.score_shift["Emma"] == one.score_shift["female"]
    shifts = one.score_shift["female"]
    assert shifts["creativity"] == pytest.approx(1 + shifts["accuracy"])
    assert len({shifts["accuracy"], shifts["efficiency"], shifts["reliability"]}) == 1
    assert statistics.correlation(female, male) < 0.15
    # Reproducible for a seed, new for another, and nothing drawn at sd 0.
    assert scenario_biases(planted, bases[:5], cues, effects) == {b: biases[b] for b in bases[:5]}
    other = scenario_biases(planted.model_copy(update={"seed": 10}), bases[:5], cues, effects)
    assert other["base-0"] != one
    flat = scenario_biases(planted, bases[:3], cues, JudgeEffects())
    assert all(b.first_position_bias == 0.1 for b in flat.values())
    assert all(b.score_shift["male"]["accuracy"] == 0 for b in flat.values())


def test_simulated_turns_carry_their_request_key(tmp_path: Path) -> None:
    config = tmp_path / "experiment.yaml"
    config.write_text(DESIGN, encoding="utf-8")
    prepared = prepare_design(mock_config(load_experiment(config)))
    spec = prepared.specs[0]
    task, shown = prepared.tasks[spec.scenario_id], prepared.responses[spec.scenario_id]
    record = _trial_record(spec, prepared.design, task, shown, MockBias())
    keys = [key for turn in record.turns for key in turn.call_keys]
    assert len(keys) == len(spec.seats) == len(set(keys))
    assert all(len(key) == 64 for key in keys)
    again = _trial_record(spec, prepared.design, task, shown, MockBias(seed=3))
    assert [k for t in again.turns for k in t.call_keys] == keys  # the request, not the reply


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("simulate")
    config = root / "experiment.yaml"
    config.write_text(DESIGN, encoding="utf-8")
    settings = SimulationSettings(sizes=(0.0, 0.25), reps=2, scales=(1.0, 2.0), jobs=1, seed=3)
    with pytest.MonkeyPatch.context() as patch:

        def no_network(*_args: object, **_kwargs: object) -> None:
            raise AssertionError("simulate opened a network connection")

        patch.setattr(socket.socket, "connect", no_network)
        return run_simulation(load_experiment(config), settings)


def test_a_tiny_simulation_produces_the_tables(simulated: dict[str, Any]) -> None:
    assert [row["scale"] for row in simulated["design_sizes"]] == ["x1", "x2"]
    assert [row["derived_per_base"] for row in simulated["design_sizes"]] == [1, 2]
    for row in simulated["false_positives"]:
        assert row["runs"] == 2
        for claim in ("identity_effect", "position_bias"):
            block = row[claim]
            assert block["n"] == 2 and 0 <= block["k"] <= 2
            assert (block["ci_low"], block["ci_high"]) == pytest.approx(
                _independent_interval(block["k"], 2)
            )
    assert {(r["scale"], r["size"], r["category"]) for r in simulated["power"]} == {
        ("x1", 0.25, "gender"),
        ("x2", 0.25, "gender"),
    }
    assert simulated["recommended"]["size"] == 0.25
    assert simulated["judges"]["label_base_sd"] == 0.2
    assert simulated["engine"] == "panel" and "quality" in simulated["judges"]["what"]
    assert set(simulated["what"]) == {"false_positives", "power", "recommended", "mde_check"}
    assert simulated["recommendations"]
    # Without a pilot, the recommendation says what it assumed of the judges.
    assumed = simulated["recommendations"][-1]
    assert "the defaults" in assumed and "label sd 0.2 points" in assumed
    assert "--pilot RUN_DIR" in assumed


def test_both_engines_give_the_same_tables(tmp_path: Path) -> None:
    """The mock engine asks every judgment of the mock provider; its tables have the panel
    engine's shape, so either can be read the same way."""
    config = tmp_path / "experiment.yaml"
    config.write_text(DESIGN, encoding="utf-8")
    settings = SimulationSettings(sizes=(0.0,), reps=2, scales=(1.0,), jobs=1, engine="mock")
    mocked = run_simulation(load_experiment(config), settings)
    paneled = run_simulation(load_experiment(config), replace(settings, engine="panel"))
    assert mocked["engine"] == "mock" and paneled["engine"] == "panel"
    assert mocked["false_positives"][0].keys() == paneled["false_positives"][0].keys()
    assert mocked["design_sizes"] == paneled["design_sizes"]
    assert "mock" in mocked["simulation"][0] and "panel model" in paneled["simulation"][0]


def test_simulate_command_writes_json_and_rejects_bad_options(tmp_path: Path) -> None:
    config = tmp_path / "experiment.yaml"
    config.write_text(DESIGN, encoding="utf-8")
    cli = Cli()
    args = ["simulate", str(config), "--reps", "2", "--sizes", "0,1", "--scales", "1"]
    options = ["--halo-sd", "0.2", "--label-base-sd", "0", "--first-position", "-0.3"]
    result = cli(*args, *options, "--jobs", "1", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    written = read_json(tmp_path / "simulate.json")
    assert written["repetitions"] == 2 and written["sizes"] == [0.0, 1.0]
    assert written["judges"]["halo_sd"] == 0.2 and written["judges"]["label_base_sd"] == 0
    assert written["planted"]["first_position_bias"] == -0.3
    assert written["false_positives"][0]["position_bias"] is None  # planted: not a false call
    assert "Headline with nothing planted" in result.output and "Power" in result.output
    tables = [line for line in result.output.splitlines() if line[:1] in "┏┃┡│└"]
    assert tables and all(len(line) <= 80 for line in tables)
    bad = cli("simulate", str(config), "--sizes", "0,big", "--out", str(tmp_path))
    assert bad.exit_code == 2 and "--sizes must be comma-separated numbers" in bad.output
    assert cli("simulate", str(config), "--first-position", "1.5").exit_code == 2
    typo = tmp_path / "typo.yaml"
    typo.write_text(DESIGN.replace("derived_per_base", "derived_per_bas"), encoding="utf-8")
    assert cli("simulate", str(typo)).exit_code == 2
