"""``fairpanel simulate --pilot``: a finished mock pilot run's variance components become a
recommended design with its calls and cost; noisier judges within a base call for more units per
base; a folder that is not a finished run is refused."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, read_json
from helpers.experiments import ORIGINAL_BASES
from helpers.runs import mock_run

from fairpanel.judging.simulate import PILOT_PLAN_FILE
from fairpanel.scenarios import load_scenarios


def _pilot(noise: int) -> str:
    """Six bases, two derived each, gender, two judges without discussion: the mock judge's
    integer noise per score is +-``noise`` (no preference varies between bases)."""
    return f"""\
name: pilot-noise-{noise}
seed: 3
protocols: [single, pair]
models:
  judge: {{id: mock/judge, mock: {{noise: {noise}}}}}
responder: {{model: mock/responder}}
panel:
  judges: [domain_expert, creativity_reviewer]
  model: judge
  discussion_rounds: 0
scenarios:
  bases: [{", ".join(ORIGINAL_BASES[:6])}]
  derived_per_base: 2
identities: {{categories: [gender]}}
arms: {{placebo: false, same_label: false}}
"""


@pytest.fixture(scope="module")
def pilots(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    """A quiet and a noisy finished pilot run (their folders; the config beside each)."""
    return {
        noise: mock_run(Cli(), tmp_path_factory.mktemp(f"noise{noise}"), _pilot(noise)).out
        for noise in (1, 5)
    }


def _plan(cli: Cli, pilot: Path, out: Path) -> tuple[str, dict[str, Any]]:
    config = pilot.parent / "experiment.yaml"
    result = cli("simulate", str(config), "--pilot", str(pilot), "--out", str(out))
    assert result.exit_code == 0, result.output
    return result.output, read_json(out / PILOT_PLAN_FILE)


def test_a_pilot_gives_a_design_with_its_calls_and_cost(
    cli: Cli, pilots: dict[int, Path], tmp_path: Path
) -> None:
    output, plan = _plan(cli, pilots[1], tmp_path)
    assert "Recommended design:" in output and "calls total" in output and "cost" in output
    assert plan["pilot"] == {
        "path": str(pilots[1]),
        "name": "pilot-noise-1",
        "bases": 6,
        "derived_per_base": 2.0,
        "replicates": 1,
    }
    # One label pair, two protocols: Holm's first step tests at alpha / 2.
    assert plan["family_size"] == 2 and plan["alpha_per_test"] == pytest.approx(0.025)
    single = next(
        row
        for row in plan["components"]
        if row["protocol"] == "single" and row["contrast"] == "pooled"
    )
    assert single["bases"] == 6 and single["units_per_base"] == 2
    assert single["within_sd"] > 0
    chosen = plan["recommended"]
    assert chosen["fits_library"] and 5 <= chosen["bases"] <= plan["library_bases"]
    assert plan["library_bases"] == len(load_scenarios())
    units = chosen["units_per_base"]["single"]
    assert units == chosen["derived_per_base"] * chosen["replicates"]  # one response per cell
    expected = (single["between_sd"] ** 2 + single["within_sd"] ** 2 / units) ** 0.5
    assert chosen["spread"]["single"] == pytest.approx(expected)
    # The estimate is of the recommended design: its bases x derived x replicates.
    assert plan["estimate_bases"] == chosen["bases"]
    trials_per_cell = 6  # single: 2 labels of response 1; pair: 4 arrangements
    cells = chosen["bases"] * chosen["derived_per_base"] * chosen["replicates"]
    assert plan["estimate"]["trials_total"] == trials_per_cell * cells
    assert plan["estimate"]["calls_total"] > plan["estimate"]["trials_total"]
    # Six bases give the between-base sd five degrees of freedom: the plan says so.
    assert any("rests on 5 degrees of freedom" in line for line in plan["lines"])


def test_noisier_judges_within_a_base_call_for_more_units_per_base(
    cli: Cli, pilots: dict[int, Path], tmp_path: Path
) -> None:
    _, quiet = _plan(cli, pilots[1], tmp_path / "quiet")
    _, noisy = _plan(cli, pilots[5], tmp_path / "noisy")

    def pooled_within(plan: dict[str, Any]) -> float:
        return next(
            float(r["within_sd"])
            for r in plan["components"]
            if r["protocol"] == "single" and r["contrast"] == "pooled"
        )

    assert pooled_within(noisy) > 2 * pooled_within(quiet)
    quiet_design, noisy_design = quiet["recommended"], noisy["recommended"]
    assert noisy_design["derived_per_base"] > quiet_design["derived_per_base"]
    assert (
        noisy_design["derived_per_base"] * noisy_design["replicates"]
        > quiet_design["derived_per_base"] * quiet_design["replicates"]
    )


def test_estimate_takes_a_pilot_too(cli: Cli, pilots: dict[int, Path]) -> None:
    result = cli("estimate", str(pilots[1].parent / "experiment.yaml"), "--pilot", str(pilots[1]))
    assert result.exit_code == 0, result.output
    assert "Recommended design:" in result.output and "calls total" in result.output


def test_a_folder_that_is_not_a_finished_run_is_refused(
    cli: Cli, pilots: dict[int, Path], tmp_path: Path
) -> None:
    config = str(pilots[1].parent / "experiment.yaml")
    empty = tmp_path / "empty"
    empty.mkdir()
    result = cli("simulate", config, "--pilot", str(empty))
    assert result.exit_code == 2
    assert "is not a run folder" in result.output
    unfinished = tmp_path / "unfinished"
    shutil.copytree(pilots[1], unfinished)
    (unfinished / "summary.json").unlink()
    result = cli("simulate", config, "--pilot", str(unfinished))
    assert result.exit_code == 2
    assert "is not a finished run" in result.output
    assert not (Path.cwd() / PILOT_PLAN_FILE).exists()
