"""simulate checks the minimum detectable effect a run states: the median stated ``mde`` of the
planted contrast against the planted shift that contrast's own test finds in 80% of simulated
runs. The interpolation is checked against an independent probit computation, the agreement on
a real simulation, and the check itself is shown able to fire: an mde stated at the wrong level
(alpha instead of alpha / m) is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from scipy.stats import norm
from statsmodels.stats.power import TTestPower

from fairpanel.analysis.calibration._mde_check import mde_check, planted_contrast
from fairpanel.analysis.verdict import PRIMARY
from fairpanel.judging import load_experiment
from fairpanel.judging.simulate import SimulationSettings, run_simulation

THREE_CATEGORIES_SINGLE = """\
name: mde-check
seed: 11
protocols: [single]
models:
  j:
    id: mock/judge
responder:
  model: mock/responder
panel:
  judges: [domain_expert, creativity_reviewer, clarity_editor, reliability_auditor]
  model: j
  discussion_rounds: 0
scenarios:
  sample: 24
  derived_per_base: 2
identities:
  categories: [gender, race, religion]
"""


def _rows(curve: dict[float, tuple[int, int]], mde: float) -> pd.DataFrame:
    """Simulated-run rows: at each planted size, ``k`` of ``n`` runs found the contrast."""
    rows = []
    for size, (k, n) in curve.items():
        for rep in range(n):
            rows.append(
                {
                    "scale": "x1",
                    "size": size,
                    "rep": rep,
                    "category": "gender",
                    "mde": mde,
                    "contrast_found": rep < k,
                }
            )
    return pd.DataFrame(rows)


def test_the_crossing_is_the_probit_interpolation_between_bracketing_sizes() -> None:
    curve = {0.0: (2, 100), 0.2: (40, 100), 0.3: (70, 100), 0.4: (95, 100)}
    (row,) = mde_check(_rows(curve, mde=0.33), ["x1"], target=0.8)
    z_low, z_high, z_target = norm.ppf(0.7), norm.ppf(0.95), norm.ppf(0.8)
    expected = 0.3 + (z_target - z_low) / (z_high - z_low) * 0.1
    assert row["simulated_shift"] == pytest.approx(expected)
    assert row["ratio"] == pytest.approx(0.33 / expected)
    assert row["agrees"] is True
    assert [p["k"] for p in row["contrast_power"]] == [2, 40, 70, 95]
    (far,) = mde_check(_rows(curve, mde=0.5), ["x1"], target=0.8)
    assert far["agrees"] is False  # 0.5 is 46% above the simulated 0.34


def test_sizes_that_do_not_bracket_80_percent_leave_it_unchecked() -> None:
    (low,) = mde_check(_rows({0.1: (10, 50), 0.2: (30, 50)}, mde=0.3), ["x1"], target=0.8)
    assert low["simulated_shift"] is None and low["agrees"] is None
    assert "largest planted size (0.2) is 60%" in low["note"]
    (high,) = mde_check(_rows({0.5: (45, 50), 1.0: (50, 50)}, mde=0.3), ["x1"], target=0.8)
    assert high["agrees"] is None and "smallest planted size (0.5) is already 90%" in high["note"]


def _effect(identity: str, versus: str, estimate: float, p_value: float, **more: Any) -> dict:
    return {
        "role": PRIMARY,
        "category": "gender",
        "scale": "score points",
        "identity": identity,
        "versus": versus,
        "estimate": estimate,
        "p_value": p_value,
        "mde": 0.4,
        **more,
    }


def test_the_planted_contrast_is_found_only_in_its_direction_and_at_alpha_over_m() -> None:
    def found(*effects: dict) -> tuple[float | None, bool | None]:
        return planted_contrast(effects, "gender", "female", "male", alpha=0.05, family_size=5)

    assert found(_effect("female", "male", 0.3, 0.005)) == (0.4, True)
    assert found(_effect("male", "female", -0.3, 0.005)) == (0.4, True)  # told from male's side
    assert found(_effect("female", "male", -0.3, 0.005)) == (0.4, False)  # against the plant
    assert found(_effect("female", "male", 0.3, 0.02)) == (0.4, False)  # p >= 0.05 / 5
    assert found(_effect("female", "male", 0.3, 0.005, scale="win share")) == (None, None)
    assert found(_effect("female", "non-binary", 0.3, 0.001)) == (None, None)


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A three-category, single-protocol design over 24 library bases, 60 runs per planted
    size: its family holds several primary tests, so alpha / m and alpha differ by a third."""
    config = tmp_path_factory.mktemp("mde") / "experiment.yaml"
    config.write_text(THREE_CATEGORIES_SINGLE, encoding="utf-8")
    settings = SimulationSettings(
        sizes=(0.45, 0.6, 0.75, 0.9), reps=60, scales=(1.0,), jobs=1, seed=5
    )
    return run_simulation(load_experiment(Path(config)), settings)


def test_the_stated_mde_matches_the_simulated_80_percent_shift(simulated: dict[str, Any]) -> None:
    rows = simulated["mde_check"]
    assert {row["category"] for row in rows} == {"gender", "race", "religion"}
    for row in rows:
        assert row["simulated_shift"] is not None, row
        assert abs(row["ratio"] - 1.0) <= 0.2, row
        assert row["agrees"] is True
    assert "mde_check" in simulated["what"]


def test_an_mde_stated_at_alpha_instead_of_alpha_over_m_is_refused(
    simulated: dict[str, Any],
) -> None:
    """The check can fire: the same runs' power curves, with each stated mde replaced by the
    one a test at alpha (ignoring the family of m tests) would state, disagree with it."""
    solver, bases, alpha = TTestPower(), 24, simulated["alpha"]
    runs = []
    for row in simulated["mde_check"]:
        m = row["family_size"]
        assert m > 1
        at_level = solver.solve_power(nobs=bases, alpha=alpha / m, power=0.8)
        at_alpha = solver.solve_power(nobs=bases, alpha=alpha, power=0.8)
        wrong_mde = row["stated_mde"] * float(at_alpha) / float(at_level)
        for point in row["contrast_power"]:
            runs.extend(
                {
                    "scale": row["scale"],
                    "size": point["size"],
                    "rep": rep,
                    "category": row["category"],
                    "mde": wrong_mde,
                    "contrast_found": rep < point["k"],
                }
                for rep in range(point["n"])
            )
    wrong = mde_check(pd.DataFrame(runs), ["x1"], target=0.8)
    assert len(wrong) == 3
    assert all(row["agrees"] is False and row["ratio"] < 0.8 for row in wrong), wrong
