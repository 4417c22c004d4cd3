"""Study runs write a self-contained report.html: each study's verdict, sections and figures.

Every example study runs shrunk on the mock, through the CLI in-process; the checks read the
report's DOM (and Chromium's, for the award audit) against the run's own results.json.
Runtime: four small study runs (about 2-4 s each) and one Chromium launch.
"""

from __future__ import annotations

import base64
import re
import struct
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import Cli, read_json
from helpers.chromium import chromium_or_skip, dump_dom
from helpers.html_page import parse_page as _parse
from helpers.paths import EXAMPLES

from fairpanel.report import StudyReportInputs, render_study_report
from fairpanel.studies import build_study, load_study
from fairpanel.studies.bscore import mean_of_means_interval

SHRINK: dict[str, dict[str, Any]] = {
    "award-audit": {"levels": [5, 10], "pairs_per_level": 24},
    "bscore": {"replicates": 2, "single_turn_queries": 4, "multi_turn_turns": 4},
    "label-bias": {"replicates": 2},
    "biasfreebench": {"items_per_category": 12},
    "judge-bias": {"categories": ["Religion", "SES"], "items_per_category": 12},
}
SECTIONS = {
    "award-audit": ["award-choices", "award-followup"],
    "bscore": ["bscore-questions", "bscore-judge", "bscore-verification"],
    "label-bias": ["label-bias"],
    "biasfreebench": ["bfs"],
    "judge-bias": ["judge-bias"],
}
FIGURES = {
    "award-audit": ["Share of answers choosing Black", "Answers per level", "Follow-up"],
    "bscore": ["each question's top", "Judge verdict B-score", "Answer verification"],
    "label-bias": ["RSD and BiasScore"],
    "biasfreebench": ["Bias-Free Score per treatment", "Change in Bias-Free Score"],
    "judge-bias": ["Bias-sensitive rate per manipulation"],
}


def _png_size(uri: str) -> tuple[int, int]:
    assert uri.startswith("data:image/png;base64,")
    data = base64.b64decode(uri.split(",", 1)[1])
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each example study, shrunk, run to completion through ``fairpanel run``."""
    cli = Cli()
    folder = tmp_path_factory.mktemp("studies")
    found = {}
    for study, changes in SHRINK.items():
        config = yaml.safe_load((EXAMPLES / f"{study}.yaml").read_text(encoding="utf-8"))
        config.update(changes)
        if study == "biasfreebench":
            config["treatments"] = config["treatments"][:3]
        path = folder / f"{study}.yaml"
        path.write_text(yaml.safe_dump(config), encoding="utf-8")
        result = cli("run", str(path), "--out", str(folder / study))
        assert result.exit_code == 0, result.output
        found[study] = folder / study
    return found


@pytest.mark.parametrize("study", list(SHRINK))
def test_study_run_writes_its_report(runs: dict[str, Path], study: str) -> None:
    html = (runs[study] / "report.html").read_text(encoding="utf-8")
    document = _parse(html)
    assert document.sections == [*SECTIONS[study], "cost", "provenance"]
    alts = " | ".join(image["alt"] for image in document.images)
    for figure in FIGURES[study]:
        assert figure in alts, figure
    for image in document.images:
        width, height = _png_size(image["src"])
        assert width > 300 and height > 150, image["alt"]
    # Self-contained: nothing to fetch, only in-page anchors.
    assert all(link.startswith("#") for link in document.links), document.links
    results = read_json(runs[study] / "results.json")
    for table in results["tables"]:  # every display table the terminal shows is in the page
        assert table["title"] in document.text, table["title"]
    summary = read_json(runs[study] / "summary.json")
    assert f"{summary['items_ok']:,} ok · {summary['items_failed']:,} failed" in document.text
    assert "experiment.resolved.json" in document.text and "python" in document.text


def test_award_verdict_states_the_pooled_share_and_test(runs: dict[str, Path]) -> None:
    results = read_json(runs["award-audit"] / "results.json")
    pooled = next(c for c in results["choices"] if c["level"] == "all")
    document = _parse((runs["award-audit"] / "report.html").read_text(encoding="utf-8"))
    # The example plants a preference for the Black names: detected on the pooled test.
    assert pooled["p_exact"] < 0.05
    assert "detected" in document.verdict_class
    assert (
        f"Black students were chosen in {pooled['share']:.1%} of {pooled['n']:,} decided answers"
        in document.text
    )
    equivocal = pooled["counts"]["equivocal"] / sum(pooled["counts"].values())
    assert f"{equivocal:.1%} of answers were equivocal" in document.text


def test_bfb_verdict_names_the_baseline_and_best_mitigation(runs: dict[str, Path]) -> None:
    results = read_json(runs["biasfreebench"] / "results.json")
    baseline = results["treatments"][0]
    best = max(results["treatments"][1:], key=lambda t: t["vs_baseline"]["difference"])
    text = _parse((runs["biasfreebench"] / "report.html").read_text(encoding="utf-8")).text
    assert f"Baseline Bias-Free Score {baseline['pooled']['bfs']:.1%}" in text
    assert f"Best mitigation: {best['name']} {best['vs_baseline']['difference']:+.1%}" in text


def test_label_bias_and_bscore_verdicts_quote_their_figures(runs: dict[str, Path]) -> None:
    label = read_json(runs["label-bias"] / "results.json")
    worst = max(label["views"], key=lambda v: v["before"]["bias_score"])
    text = _parse((runs["label-bias"] / "report.html").read_text(encoding="utf-8")).text
    assert f"Largest label bias before calibration: {worst['name']}: BiasScore" in text
    assert f"{worst['before']['bias_score']:.3f} → {worst['contextual']['bias_score']:.3f}" in text
    bscore = read_json(runs["bscore"] / "results.json")
    counted = [c["top_b"] for c in bscore["categories"] if c["top_b"] is not None]
    text = _parse((runs["bscore"] / "report.html").read_text(encoding="utf-8")).text
    assert f"mean B of {sum(counted) / len(counted):+.3f} over {len(counted)} categories" in text
    assert "Verification: adding B" in text


def test_report_command_rewrites_a_study_report(cli: Cli, runs: dict[str, Path]) -> None:
    target = runs["label-bias"] / "report.html"
    target.unlink()
    result = cli("report", str(runs["label-bias"]))
    assert result.exit_code == 0, result.output
    assert "report.html" in " ".join(result.output.split())
    assert "label-bias" in _parse(target.read_text(encoding="utf-8")).sections


def test_judge_bias_verdict_names_the_manipulations_called(runs: dict[str, Path]) -> None:
    results = read_json(runs["judge-bias"] / "results.json")
    rows = {row["label"]: row for row in results["manipulations"]}
    document = _parse((runs["judge-bias"] / "report.html").read_text(encoding="utf-8"))
    # The example's judge prefers length: padding, the citation and the confident register
    # lengthen the wrong answer and are called; the bandwagon note is not.
    called = [label for label, row in rows.items() if row["called"]]
    assert called == ["verbosity-2x", "authority", "assertiveness-confident"]
    assert "detected" in document.verdict_class
    assert "3 of 4 manipulations of the wrong answer" in document.text
    verbosity = rows["verbosity-2x"]
    assert f"verbosity-2x: {verbosity['rate']:.1%} bias-sensitive" in document.text


@pytest.mark.parametrize("study", list(SHRINK))
def test_a_study_without_results_says_so(study: str) -> None:
    results = {"study": study}
    page = build_study(load_study(EXAMPLES / f"{study}.yaml")).report(results)
    document = _parse(render_study_report(StudyReportInputs(results=results, page=page)))
    assert document.sections == [*SECTIONS[study], "cost", "provenance"]
    assert not document.images
    assert "nodata" in document.verdict_class and "No verdict yet" in document.text
    assert "No summary.json in the run folder." in document.text


def test_chromium_renders_the_award_report(runs: dict[str, Path], tmp_path: Path) -> None:
    binary = chromium_or_skip()
    dom = dump_dom(binary, runs["award-audit"] / "report.html", tmp_path)
    assert 'data-probed="yes"' in dom
    images = re.findall(r"<img [^>]*>", dom)
    assert len(images) >= 3
    for image in images:
        assert 'data-complete="true"' in image
        width = re.search(r'data-natural-width="(\d+)"', image)
        assert width is not None and int(width.group(1)) > 300
    heights = dict(re.findall(r'<section id="([^"]+)"[^>]*data-rendered-height="(\d+)"', dom))
    assert set(heights) >= {"verdict", *SECTIONS["award-audit"], "cost", "provenance"}
    assert all(int(h) > 40 for h in heights.values()), heights


def test_bscore_without_verification_samples_says_so(runs: dict[str, Path]) -> None:
    """The analysis writes ``verification: null`` when no question has a known answer; the
    page keeps its other sections and says why the verification one is empty."""
    results = read_json(runs["bscore"] / "results.json")
    results["verification"] = None
    page = build_study(load_study(EXAMPLES / "bscore.yaml")).report(results)
    document = _parse(render_study_report(StudyReportInputs(results=results, page=page)))
    assert document.sections == [*SECTIONS["bscore"], "cost", "provenance"]
    assert "No verification samples (no questions with a known answer" in document.text
    assert "Verification: adding B" not in document.text
    assert "mean B of" in document.text  # the verdict still stands on the categories


def test_bscore_reports_its_interval_in_results_tables_and_page(runs: dict[str, Path]) -> None:
    """The B interval over questions as the run wrote it equals one recomputed from its
    questions, and the terminal table and the page show it."""
    run = runs["bscore"]
    results = read_json(run / "results.json")
    by_category: dict[str, list[float]] = {}
    for question in results["questions"]:
        top = question["top_choice"]
        if top["runs_counted"]:
            by_category.setdefault(question["category"], []).append(top["b"])
    seed = read_json(run / "experiment.resolved.json")["seed"]
    overall = results["top_b"]
    expected = mean_of_means_interval(list(by_category.values()), seed=seed, name="top_b")
    assert (overall["mean"], overall["ci_low"], overall["ci_high"]) == (
        expected["mean"],
        expected["ci_low"],
        expected["ci_high"],
    )
    assert overall["ci_low"] < overall["mean"] < overall["ci_high"]
    for row in results["categories"]:
        if len(by_category.get(row["category"], [])) > 1:
            assert row["top_b_ci_low"] <= row["top_b"] <= row["top_b_ci_high"], row
    table = next(t for t in results["tables"] if t["title"].startswith("Top single-turn"))
    assert table["columns"][5:8] == ["B", "B low", "B high"]
    assert table["rows"][-1][0] == "all (mean)"
    assert table["rows"][-1][5:8] == [round(overall[k], 3) for k in ("mean", "ci_low", "ci_high")]
    text = _parse((run / "report.html").read_text(encoding="utf-8")).text
    assert (
        f"over {len(by_category)} categories (bootstrap over questions, 95% CI "
        f"{overall['ci_low']:+.3f} to {overall['ci_high']:+.3f})" in text
    )
