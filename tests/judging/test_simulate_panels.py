"""``fairpanel simulate`` on designs that compare panels: the panels share what the trials bring
and nothing else, the paired analysis separates a planted difference that the independent
comparison of the same simulated runs mostly misses, panels with equal bias are rarely called
different, and the command prints the tables and writes them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from conftest import Cli, read_json
from helpers.experiments import ORIGINAL_BASES, offline_design
from scipy.stats import norm

from fairpanel.analysis import panel_calibration_tables, panel_test_outcomes
from fairpanel.analysis.tools._intervals import clopper_pearson
from fairpanel.judging import load_experiment
from fairpanel.judging.simulate import DEFAULT_EFFECTS, SimulationSettings, run_simulation
from fairpanel.judging.simulate._panel_model import PanelModel, TrialTable, trial_table
from fairpanel.judging.simulate._panels import (
    SimulatedPanel,
    panel_frames,
    scenario_draws,
    simulated_panels,
)
from fairpanel.judging.simulate._runs import mock_config, prepare_design

# Twelve bases, four derived scenarios each: enough bases for a paired t test at Holm's alpha / 6
# to have power. The simulations below judge the single protocol only (the pair protocol's
# analysis triples the time a run takes); the pair protocol is read in the tests before them.
PANELS_DESIGN = offline_design(
    "simulate-panels",
    ORIGINAL_BASES[:12],
    derived_per_base=4,
)
SINGLE_DESIGN = PANELS_DESIGN.replace("protocols: [single, pair]", "protocols: [single]")
TWO_PANELS = PANELS_DESIGN.replace("derived_per_base: 4", "derived_per_base: 1").replace(
    """panel:
  judges: [domain_expert, creativity_reviewer]
  model: judge
""",
    """panels:
  gpt:
    judges: [domain_expert, creativity_reviewer]
    model: judge
  haiku:
    judges: [domain_expert]
    model: judge
""",
)
NO_MODEL_NOISE = PanelModel(
    noise_sd=0.0,
    leniency_sd=0.0,
    halo_sd=0.0,
    shared_sd=0.0,
    label_base_sd=0.0,
    position_base_sd=0.0,
)


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "experiment.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> TrialTable:
    config = load_experiment(_config(tmp_path_factory.mktemp("table"), PANELS_DESIGN))
    return trial_table(prepare_design(mock_config(config)).specs)


def _many_bases(n_bases: int) -> TrialTable:
    empty = np.zeros(0, dtype=np.int64)
    return TrialTable([], [], empty, empty, empty, empty, empty, ["a", "b"], [], n_bases, 7)


@pytest.mark.parametrize("correlation", [0.0, 0.5, 0.9])
def test_panels_share_the_answers_and_correlated_scenario_pulls(correlation: float) -> None:
    model = PanelModel(quality_sd=0.7, quality_metric_sd=0.4)
    rng = np.random.default_rng(3)
    draws = scenario_draws(_many_bases(20_000), model, 3, correlation, rng)
    assert all(d.quality is draws[0].quality for d in draws)  # the very same answers
    assert draws[0].quality.shape == (7, 4)
    for first, second in ((0, 1), (0, 2), (1, 2)):
        for kind in ("label", "position"):
            x = getattr(draws[first], kind).reshape(-1)
            y = getattr(draws[second], kind).reshape(-1)
            assert np.std(x) == pytest.approx(1.0, abs=0.02)  # each panel's own sd scales it
            assert np.corrcoef(x, y)[0, 1] == pytest.approx(correlation, abs=0.03)
    with pytest.raises(ValueError, match="correlation"):
        scenario_draws(_many_bases(5), model, 2, 1.2, rng)


def test_panels_judge_the_same_trials_with_their_own_judges(table: TrialTable) -> None:
    """Without judge noise and scenario pulls the two panels' scores differ only by what b
    has planted: the answers' quality is the same for both."""
    planted = replace(NO_MODEL_NOISE, planted={"female": dict.fromkeys(("creativity",), 1.0)})
    panels = [SimulatedPanel("a", ("x", "y")), SimulatedPanel("b", ("z",))]
    frames = panel_frames(table, panels, [NO_MODEL_NOISE, planted], 0.5, seed=1)
    a, b = frames["a"].scores, frames["b"].scores
    assert set(a["judge"]) == {"x", "y"} and set(b["judge"]) == {"z"}
    assert set(a["panel"]) == {"a"} and set(frames["b"].verdicts["panel"]) == {"b"}
    assert set(a["trial_key"]) == set(b["trial_key"]) == set(table.keys)
    keys = ["trial_key", "position", "metric"]
    merged = a.loc[a["judge"] == "x"].merge(b, on=keys, suffixes=("_a", "_b"))
    shift = merged["score_b"] - merged["score_a"]
    boosted = (merged["identity_a"] == "female") & (merged["metric"] == "creativity")
    assert (shift[~boosted] == 0).all()
    assert (shift[boosted & (merged["score_a"] < 10)] == 1).all()


def test_a_difference_counts_only_for_the_planted_pair_and_direction(table: TrialTable) -> None:
    targets = {"gender": ("female", "male")}
    names = [SimulatedPanel(name, ("x", "y")) for name in ("a", "b", "c")]

    def outcome(planted_on: int, label: str) -> dict[str, Any]:
        shift = replace(NO_MODEL_NOISE, noise_sd=1.0, planted={label: {"accuracy": 3.0}})
        plain = replace(NO_MODEL_NOISE, noise_sd=1.0)
        models = [shift if i == planted_on else plain for i in range(3)]
        frames = panel_frames(table, names, models, 0.5, seed=2)
        return panel_test_outcomes(frames, targets, pair=("a", "b"), bootstrap_reps=200)

    found = outcome(1, "female")
    assert found["paired"]["detected"] == {"gender": True}
    assert found["independent"]["detected"] == {"gender": True}
    assert found["paired"]["tests"] > found["independent"]["tests"] >= 3 * 3
    # b favours the reference: a difference, called, but not the planted one.
    reversed_ = outcome(1, "male")
    assert reversed_["paired"]["called"] and reversed_["independent"]["called"]
    assert not reversed_["paired"]["detected"]["gender"]
    assert not reversed_["independent"]["detected"]["gender"]
    # Only c differs: a and b are not told apart, though the run calls c's differences.
    elsewhere = outcome(2, "female")
    assert elsewhere["paired"]["called"]
    assert not elsewhere["paired"]["detected"]["gender"]
    assert not elsewhere["independent"]["detected"]["gender"]


def _rows(counts: dict[tuple[str, float], tuple[int, int, int]], n: int) -> pd.DataFrame:
    """Simulated-run rows: for each (scale, size), the paired analysis called (size 0) or
    detected (size > 0) in the first ``k`` runs, the independent one in the first ``j``, an
    agreement difference was called in the first ``g``; families of 6 and 3 tests."""
    rows = []
    for (scale, size), (k, j, g) in counts.items():
        for rep in range(n):
            rows.append(
                {
                    "scale": scale,
                    "size": size,
                    "rep": rep,
                    "category": "gender" if size else None,
                    "paired_called": size == 0 and rep < k,
                    "independent_called": size == 0 and rep < j,
                    "agreement_called": rep < g,
                    "paired_detected": bool(size) and rep < k,
                    "independent_detected": bool(size) and rep < j,
                    "paired_tests": 6,
                    "independent_tests": 3,
                }
            )
    return pd.DataFrame(rows)


def test_tables_count_runs_and_extrapolate_as_an_independent_calculation_says() -> None:
    counts = {
        ("x1", 0.0): (7, 12, 30),
        ("x2", 0.0): (9, 4, 0),
        ("x1", 0.25): (5, 1, 0),
        ("x2", 0.25): (9, 2, 0),
        ("x1", 0.5): (120, 40, 0),
        ("x2", 0.5): (170, 60, 0),
    }
    tables = panel_calibration_tables(_rows(counts, 200), ["x1", "x2"], 0.05)
    first = tables["false_positives"][0]
    assert (first["paired"]["k"], first["independent"]["k"]) == (7, 12)
    assert first["agreement_called"]["k"] == 30
    assert first["tests"] == {"paired": 6, "independent": 3}
    _exact(first["paired"])
    power = {(r["scale"], r["size"]): r for r in tables["power"]}
    assert power[("x2", 0.5)]["paired"]["k"] == 170 and power[("x2", 0.5)]["independent"]["k"] == 60
    # At x2, 0.25 points is called in 4.5% (paired) and 1% of runs, too little to extrapolate
    # from; 0.5 points in 85% and 30%: the extrapolation starts there.
    for analysis, rate, tests in (("paired", 170 / 200, 6), ("independent", 60 / 200, 3)):
        chosen = tables["recommended"][analysis]
        critical = norm.ppf(1 - 0.05 / (2 * tests))
        needed = ((critical + norm.ppf(0.8)) / (critical + norm.ppf(rate))) ** 2 * 4
        assert chosen["scale"] is None and chosen["best_scale"] == "x2"
        assert chosen["extrapolated_from_size"] == 0.5
        assert chosen["extrapolated_factor"] == pytest.approx(needed)
    # Where both sizes can be extrapolated from, the power nearer 50% decides: 30% at 0.25
    # points rather than 95% at 0.5.
    counts |= {("x2", 0.25): (60, 60, 0), ("x2", 0.5): (190, 190, 0)}
    chosen = panel_calibration_tables(_rows(counts, 200), ["x1", "x2"], 0.05)["recommended"]
    critical = norm.ppf(1 - 0.05 / 12)
    needed = ((critical + norm.ppf(0.8)) / (critical + norm.ppf(0.3))) ** 2
    assert "extrapolated_from_size" not in chosen["paired"]
    assert chosen["paired"]["extrapolated_factor"] == pytest.approx(needed)


def _simulated(root: Path, settings: SimulationSettings, design: str) -> dict[str, Any]:
    return run_simulation(load_experiment(_config(root, design)), settings)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A one-panel design compared with a copy of itself (--panels 2), panel b's scores of
    female shifted 1.5 points on all four metrics; scenario pulls large (sd 1.5 points per
    label) and shared closely (correlation 0.95), which the paired analysis cancels and the
    independent one cannot (paired about 90% of runs, independent about 20%)."""
    settings = SimulationSettings(
        sizes=(1.5,),
        reps=30,
        scales=(1.0,),
        seed=7,
        panels=2,
        panel_correlation=0.95,
        effects=replace(DEFAULT_EFFECTS, label_base_sd=1.5),
    )
    return _simulated(tmp_path_factory.mktemp("planted"), settings, SINGLE_DESIGN)


def _exact(block: dict[str, Any]) -> None:
    assert (block["ci_low"], block["ci_high"]) == pytest.approx(
        clopper_pearson(block["k"], block["n"])
    )
    assert block["ci_low"] <= block["rate"] <= block["ci_high"]


def test_the_paired_analysis_separates_what_the_independent_one_misses(
    planted: dict[str, Any],
) -> None:
    block = planted["panel_comparison"]
    assert (block["a"], block["b"], block["correlation"]) == ("panel-a", "panel-b", 0.95)
    assert [p["planted"] for p in block["panels"]] == [False, True]
    [row] = block["power"]
    assert (row["scale"], row["size"], row["category"]) == ("x1", 1.5, "gender")
    paired, independent = row["paired"], row["independent"]
    assert paired["n"] == independent["n"] == 30
    _exact(paired)
    _exact(independent)
    assert paired["rate"] >= 0.7
    assert independent["rate"] <= 0.4
    assert paired["k"] - independent["k"] >= 10
    assert block["recommended"]["paired"]["size"] == 1.5
    assert set(block["what"]) == {"false_positives", "power", "recommended"}
    assert len(block["recommendations"]) == 2
    assert "paired analysis" in block["recommendations"][0]
    assert planted["power"]  # the single-panel tables are computed besides


def test_panels_with_equal_bias_are_rarely_called_different(tmp_path: Path) -> None:
    """Twelve bases with one derived scenario each, and scenario pulls three times the
    default's (sd 0.6 points per label, correlation 0.5 between the panels): a comparison
    that did not test over base scenarios would call them."""
    effects = replace(DEFAULT_EFFECTS, label_base_sd=0.6)
    settings = SimulationSettings(
        sizes=(0.0,), reps=60, scales=(1.0,), seed=11, panels=2, effects=effects
    )
    design = SINGLE_DESIGN.replace("derived_per_base: 4", "derived_per_base: 1")
    block = _simulated(tmp_path, settings, design)["panel_comparison"]
    [row] = block["false_positives"]
    assert row["runs"] == 60
    for analysis in ("paired", "independent"):
        rate = row[analysis]
        _exact(rate)
        assert rate["n"] == 60
        assert rate["ci_low"] <= settings.alpha  # consistent with alpha or below
        assert rate["rate"] < 0.15
    _exact(row["agreement_called"])
    # paired: the contrast, parse failures, agreement; independent: the contrast
    assert row["tests"] == {"paired": 3, "independent": 1}
    assert block["power"] == []
    assert block["recommended"] == {"paired": None, "independent": None}
    assert "No difference was planted" in block["recommendations"][0]


def test_simulate_compares_an_experiments_panels(tmp_path: Path) -> None:
    config = _config(tmp_path, TWO_PANELS)
    assert [p.name for p in simulated_panels(load_experiment(config), 2)] == ["gpt", "haiku"]
    cli = Cli()
    args = ["simulate", str(config), "--reps", "2", "--sizes", "0,0.5", "--scales", "1"]
    result = cli(*args, "--jobs", "1", "--panel-correlation", "0.3", "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    block = read_json(tmp_path / "simulate.json")["panel_comparison"]
    assert (block["a"], block["b"], block["correlation"]) == ("gpt", "haiku", 0.3)
    assert [p["judges"] for p in block["panels"]] == [
        ["domain_expert", "creativity_reviewer"],
        ["domain_expert"],
    ]
    assert block["false_positives"][0]["paired"]["n"] == 2
    assert {row["size"] for row in block["power"]} == {0.5}
    assert "Panels with equal bias" in result.output
    assert "Separating haiku from gpt" in result.output
    assert "Separating two panels" in result.output
    tables = [line for line in result.output.splitlines() if line[:1] in "┏┃┡│└"]
    assert tables and all(len(line) <= 80 for line in tables)
    one = cli(*args, "--jobs", "1", "--panels", "1", "--out", str(tmp_path / "one"))
    assert one.exit_code == 0, one.output
    assert "panel_comparison" not in read_json(tmp_path / "one" / "simulate.json")
    assert cli(*args, "--panel-correlation", "1.5").exit_code == 2
