"""``fairpanel compare`` on real mock runs: the ranking, which differences are real, the design
check, the HTML page and bad input.

These runs' mock responders write the same answers, so compare would pair them trial by trial;
``--independent`` keeps them on the independent comparison tested here (the paired one is in
tests/run_folder/test_compare_paired.py)."""

from __future__ import annotations

import asyncio
import io
import json
import math
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import Cli, read_json
from helpers.chromium import chromium_or_skip, dump_dom
from helpers.report_samples import bias_profile_rows, full_results
from rich.console import Console
from scipy.stats import norm

from fairpanel.analysis import PanelComparisonBlock, RunInputs, compare_runs
from fairpanel.analysis.panels._compare import difference_of_estimates
from fairpanel.cli._compare import leaderboard_table
from fairpanel.cli._panel_tables import panel_tables
from fairpanel.judging import load_experiment, run_experiment
from fairpanel.report import compare_columns, leaderboard_cells, render_compare_html
from fairpanel.run_folder import write_results

DESIGN = """\
name: {name}
seed: 7
protocols: [single, pair]
models:
  judge:
    id: mock/{name}
    mock:
      score_shift: {shift}
      first_position_bias: 0.1
      seed: {seed}
responder:
  model: mock/responder
panel:
  judges: [domain_expert, creativity_reviewer]
  model: judge
  discussion_rounds: 0
scenarios:
  bases: [fitness-coaching, nursing-care-plan, software-incident-response, emergency-triage,
          portfolio-advice, salary-negotiation]
  derived_per_base: {derived}
identities:
  categories: [gender]
concurrency: 16
prices: {{mock/{name}: {{input: 1.0, output: 4.0}}, mock/responder: {{input: 0.5, output: 0.5}}}}
"""

RUNS = {
    # name: (planted shift, mock noise seed, derived scenarios per base)
    "biased": ("{female: {creativity: 3.0}}", 1, 2),
    "fair": ("{}", 1, 2),
    "fair-again": ("{}", 2, 2),
    "fair-smaller": ("{}", 1, 1),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real mock runs (runner, store, results.json, summary.json; no report page, which
    compare does not read)."""
    root = tmp_path_factory.mktemp("compare-runs")
    folders = {}
    for name, (shift, seed, derived) in RUNS.items():
        config = root / f"{name}.yaml"
        config.write_text(
            DESIGN.format(name=name, shift=shift, seed=seed, derived=derived), encoding="utf-8"
        )
        folder = root / name
        summary = asyncio.run(run_experiment(load_experiment(config), folder))
        assert summary.trials_failed == 0
        (folder / "summary.json").write_text(json.dumps(summary.as_dict()), encoding="utf-8")
        write_results(folder)
        folders[name] = folder
    return folders


def test_planted_bias_ranks_last_and_its_difference_is_real(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    result = Cli()(
        "compare", str(runs["fair"]), str(runs["biased"]), "--out", str(tmp_path), "--independent"
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    comparison = read_json(tmp_path / "compare.json")
    assert comparison["same_design"] is True
    assert comparison["pairing"] == "independent" and comparison["paired"] is None
    assert "--independent" in comparison["pairing_reason"]
    assert "Independent comparison" in result.output
    board = comparison["leaderboard"]
    assert [row["run"] for row in board] == ["fair", "biased"]  # least biased first
    biased = board[1]
    # The identity effect is the largest primary contrast (panel consensus, overall score), not
    # the largest of every per-metric or per-judge row: 3 points on one metric of four.
    assert biased["identity_effect"]["id"] == "single:gender:overall:female-male:panel"
    assert biased["identity_effect"]["role"] == "primary"
    assert 0.5 < biased["identity_effect"]["estimate"] < 1.0
    primary = [
        e
        for e in read_json(runs["biased"] / "results.json")["effects"]
        if e["role"] == "primary" and e["scale"] == "score points" and e["ci_low"] is not None
    ]
    largest = max(primary, key=lambda e: abs(e["estimate"]))
    assert biased["identity_effect"]["estimate"] == largest["estimate"]
    # Detected and tests count the primary family only.
    assert biased["detected"] > 0 and board[0]["detected"] == 0
    headline = read_json(runs["biased"] / "results.json")["headline"]
    assert biased["tests"] == headline["tests"] and biased["detected"] == len(headline["detected"])
    # False positives are the control arms' own identity verdicts.
    controls = read_json(runs["fair"] / "results.json")["control_false_positives"]
    verdicts = {k: v for k, v in controls.items() if k != "note"}
    fair = board[0]["false_positives"]
    assert fair["arms"] == sorted(verdicts)
    assert fair["called"] == sum(v["identity_effect"] is True for v in verdicts.values())
    assert fair["arms_tested"] == sum(v["identity_effect"] is not None for v in verdicts.values())
    assert biased["judge"] == "mock/biased x2 panel"
    summary = read_json(runs["biased"] / "summary.json")
    assert biased["cost"]["usd_per_1000"] == pytest.approx(
        1000 * summary["cost"]["total_usd"] / summary["trials_ok"]
    )
    assert biased["cost"]["usd_per_1000"] > 0
    real = {row["effect"]: row for row in comparison["comparisons"] if row["real"]}
    creativity = real["single:gender:creativity:female-male:panel"]
    # Pairs keep the order given: fair - biased, clearly below zero.
    assert (creativity["run_a"], creativity["run_b"]) == ("fair", "biased")
    assert creativity["ci_high"] < -1.0
    assert "single:gender:accuracy:female-male:panel" not in real
    assert any(
        line.startswith("biased's gender creativity effect") and "is larger than fair's" in line
        for line in comparison["summary"]
    )
    assert "biased's gender creativity effect" in result.output
    # --sort reverses the order for a column where larger is better, and works on any column.
    by_detected = Cli()(
        "compare", str(runs["biased"]), str(runs["fair"]), "--sort", "detected", "--out",
        str(tmp_path), "--independent",
    )  # fmt: skip
    assert by_detected.exit_code == 0
    assert [r["run"] for r in read_json(tmp_path / "compare.json")["leaderboard"]] == [
        "fair",
        "biased",
    ]


def test_same_mock_with_other_noise_is_within_noise(runs: dict[str, Path], tmp_path: Path) -> None:
    result = Cli()(
        "compare", str(runs["fair"]), str(runs["fair-again"]), "--out", str(tmp_path),
        "--independent",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    comparison = read_json(tmp_path / "compare.json")
    assert comparison["same_design"] is True
    assert comparison["comparisons"], "the runs share effects to compare"
    assert not any(row["real"] for row in comparison["comparisons"])
    # The two runs did draw different noise: their estimates are not copies of each other.
    assert any(row["difference"] != 0 for row in comparison["comparisons"])
    assert comparison["summary"][0].startswith("No difference between fair and fair-again")


def test_design_mismatch_is_flagged(runs: dict[str, Path], tmp_path: Path) -> None:
    result = Cli()("compare", str(runs["fair"]), str(runs["fair-smaller"]), "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    comparison = read_json(tmp_path / "compare.json")
    assert comparison["same_design"] is False
    # Other trials cannot be paired: the comparison falls back to independent and says why.
    assert comparison["pairing"] == "independent"
    assert comparison["pairing_reason"].startswith("the runs do not share one trial design")
    fields = {d["field"] for d in comparison["design_differences"]}
    assert {"scenarios", "trials"} <= fields
    assert comparison["summary"][0].startswith("WARNING: the runs do not share one design")
    assert "not like for like" in result.output
    html = (tmp_path / "compare.html").read_text(encoding="utf-8")
    assert 'id="design-warning"' in html


class _Cells(HTMLParser):
    """Text of every table cell by section id, and every external reference."""

    def __init__(self) -> None:
        super().__init__()
        self.section = ""
        self.cells: dict[str, list[str]] = {}
        self.external: list[str] = []
        self._in_cell = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "section":
            self.section = values.get("id") or ""
        if tag == "td":
            self._in_cell = True
        for name in ("src", "href"):
            if values.get(name):
                self.external.append(str(values[name]))
        if tag == "script":
            self.external.append("script")

    def handle_data(self, data: str) -> None:
        if self._in_cell and data.strip():
            self.cells.setdefault(self.section, []).append(data.strip())

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._in_cell = False


def test_compare_html_is_self_contained_and_holds_the_leaderboard(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    result = Cli()(
        "compare", str(runs["fair"]), str(runs["biased"]), "--out", str(tmp_path), "--independent"
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    page = tmp_path / "compare.html"
    parser = _Cells()
    parser.feed(page.read_text(encoding="utf-8"))
    assert parser.external == []
    board = parser.cells["leaderboard"]
    assert board.index("fair") < board.index("biased")
    assert "mock/biased x2 panel" in board
    assert "real" in parser.cells["differences"] and "within noise" in parser.cells["differences"]
    binary = chromium_or_skip()
    dom = dump_dom(binary, page, tmp_path)
    assert 'data-probed="yes"' in dom and "mock/biased x2 panel" in dom


def test_bad_folders_exit_2(runs: dict[str, Path], tmp_path: Path) -> None:
    cli = Cli()
    empty = tmp_path / "empty"
    empty.mkdir()
    result = cli("compare", str(runs["fair"]), str(empty), "--out", str(tmp_path))
    assert result.exit_code == 2
    assert "is not a run folder" in result.output and "compare.json" not in result.output
    assert not (tmp_path / "compare.json").exists()
    missing = cli("compare", str(tmp_path / "nowhere"), "--out", str(tmp_path))
    assert missing.exit_code == 2 and "is not a folder" in missing.output
    twice = cli("compare", str(runs["fair"]), str(runs["fair"]), "--out", str(tmp_path))
    assert twice.exit_code == 2 and "run names must differ" in twice.output
    bad_sort = cli("compare", str(runs["fair"]), "--sort", "speed", "--out", str(tmp_path))
    assert bad_sort.exit_code == 2 and "--sort must be one of" in bad_sort.output


def test_missing_results_are_recomputed_as_report_does(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    results = runs["fair-again"] / "results.json"
    before = read_json(results)
    results.unlink()
    result = Cli()("compare", str(runs["fair-again"]), "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert read_json(results)["effects"] == before["effects"]


def test_difference_of_independent_estimates_matches_a_z_test() -> None:
    # Symmetric 95% intervals of half-widths 0.3 and 0.4 -> se 0.3/z and 0.4/z.
    z = norm.ppf(0.975)
    difference, low, high, p_value = difference_of_estimates((1.0, 0.7, 1.3), (0.2, -0.2, 0.6))
    se = math.sqrt((0.3 / z) ** 2 + (0.4 / z) ** 2)
    assert difference == pytest.approx(0.8)
    assert (low, high) == pytest.approx((0.8 - 0.5, 0.8 + 0.5))  # 0.3-0.4-0.5 triangle
    assert p_value == pytest.approx(math.erfc(0.8 / se / math.sqrt(2)))
    assert difference_of_estimates((1.0, 1.0, 1.0), (0.0, 0.0, 0.0))[3] is None


def test_the_leaderboard_counts_the_manipulations_that_move_each_run() -> None:
    """Distinct manipulations called (either protocol; the same-text control apart), sorted
    by their share of the tested ones, and shown where the leaderboard is: compare's terminal
    table and page, and a multi-panel run's own leaderboard; runs without manipulation arms
    keep their columns as they were."""
    one = full_results()  # verbosity called, authority not, bandwagon untested, control clear
    both = full_results()
    both["bias_profile"] = [
        {**row, "called": row["manipulation"] != "bandwagon" and not row.get("control")}
        for row in [*bias_profile_rows(), {**bias_profile_rows()[0], "protocol": "pair"}]
    ]
    none = {key: value for key, value in full_results().items() if key != "bias_profile"}
    runs = [
        RunInputs("both", "/b", both),
        RunInputs("none", "/n", none),
        RunInputs("one", "/o", one),
    ]
    comparison = compare_runs(runs, sort="bias_profile")
    board = {row["run"]: row for row in comparison["leaderboard"]}
    assert board["one"]["bias_profile"] == {
        "manipulations": 3,
        "tested": 2,
        "called": 1,
        "labels": ["verbosity-2x"],
        "untested": ["bandwagon"],
        "control_called": False,
    }
    # verbosity-2x called in both protocols counts once.
    assert board["both"]["bias_profile"]["called"] == 2
    assert board["both"]["bias_profile"]["labels"] == ["verbosity-2x", "authority"]
    assert board["none"]["bias_profile"]["manipulations"] == 0
    assert [row["run"] for row in comparison["leaderboard"]] == ["one", "both", "none"]
    assert leaderboard_cells(board["one"])["bias_profile"] == (
        "1 / 2 called: verbosity-2x; not tested: bandwagon"
    )
    terminal = Console(file=io.StringIO(), width=300)
    terminal.print(leaderboard_table(comparison))
    printed = terminal.file.getvalue()  # type: ignore[attr-defined]
    assert "biases called" in printed and "2 / 2 called: verbosity-2x, authority" in printed
    page = render_compare_html(comparison)
    assert "manipulations that move the panel (called / tested)" in page
    assert "no manipulation arms" in page
    plain = compare_runs([RunInputs("none", "/n", none)])
    assert "bias_profile" not in dict(compare_columns(plain))
    # A multi-panel run's own leaderboard (results.json's panel_comparison) in the terminal.
    rows = [{**row, "panel": row["run"]} for row in comparison["leaderboard"]]
    terminal = Console(file=io.StringIO(), width=200)
    terminal.print(panel_tables(PanelComparisonBlock(leaderboard=rows))[0])
    printed = terminal.file.getvalue()  # type: ignore[attr-defined]
    assert "biases called" in printed and "1/2: verbosity-2x" in printed
    terminal = Console(file=io.StringIO(), width=200)
    terminal.print(panel_tables(PanelComparisonBlock(leaderboard=[board["none"]]))[0])
    assert "biases called" not in terminal.file.getvalue()  # type: ignore[attr-defined]
