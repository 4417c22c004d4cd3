"""The label-bias study on the mock with and without planted position and identity bias, and
`fairpanel label-bias` over stored judge-panel, award-audit and B-score runs (its JSON, its
terminal output and its HTML page, read as text and in Chromium)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import Cli, WriteExperiment, read_json
from helpers.chromium import chromium_or_skip, dump_dom
from helpers.html_page import parse_page
from helpers.paths import EXAMPLES

EXAMPLE = EXAMPLES / "label-bias.yaml"


def _run(cli: Cli, path: Path, out: Path) -> dict[str, Any]:
    result = cli("run", str(path), "--out", str(out))
    assert result.exit_code == 0, result.output
    return dict(read_json(out / "results.json"))


def _view(results: dict[str, Any], prefix: str) -> dict[str, Any]:
    return next(v for v in results["views"] if v["name"].startswith(prefix))


def _variant(tmp_path: Path, mock: dict[str, Any], **fields: Any) -> Path:
    data = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    data["models"]["judge"]["mock"] = mock
    data.update(fields)
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_planted_position_and_identity_bias_show_and_calibration_reduces_them(
    cli: Cli, tmp_path: Path
) -> None:
    out = tmp_path / "biased"
    results = _run(cli, EXAMPLE, out)
    assert results["unreadable_verdicts"] == 0 and results["n_failed"] == 0
    position = _view(results, "position")
    before = position["before"]
    # 30% of verdicts go to position A outright, the rest follow the (label-driven) scores.
    assert 0.6 < before["mean_distribution"]["A"] < 0.7
    assert before["bias_score"] > 0.1 and before["rsd"] > 0.2
    for stage in ("contextual", "leave_one_out"):
        assert position[stage]["bias_score"] < before["bias_score"] / 2, stage
        assert position[stage]["rsd"] < before["rsd"] / 2, stage
    identity = _view(results, "identity")
    assert identity["before"]["mean_distribution"]["female"] > 0.65
    assert identity["contextual"]["bias_score"] < identity["before"]["bias_score"] / 2
    levels = _view(results, "score level (female")
    assert levels["before"]["rsd"] is None and levels["before"]["bias_score"] > 0
    titles = [table["title"] for table in results["tables"]]
    assert titles == ["Label bias of the judge's verdicts"]
    summary = read_json(out / "summary.json")
    # 30 scenarios x 5 samples x (4 arrangements + 3 content-free texts x 2 label orders),
    # and 2 responder calls per scenario.
    assert summary["items_total"] == 30 * 5 * 10
    assert summary["calls_made"] == 30 * 5 * 10 + 30 * 2


def test_without_planted_bias_the_labels_are_balanced(cli: Cli, tmp_path: Path) -> None:
    results = _run(cli, _variant(tmp_path, {}), tmp_path / "plain")
    position, identity = _view(results, "position"), _view(results, "identity")
    assert position["before"]["bias_score"] < 0.04 and position["before"]["rsd"] < 0.1
    assert identity["before"]["bias_score"] < 0.07  # planted: 0.23


PANEL = """\
name: small-panel
seed: 11
protocols: [pair]
models:
  judge:
    id: mock/judge
    mock: {score_shift: {female: {creativity: 1.0}}, first_position_bias: 0.2}
responder: {model: mock/responder}
panel: {judges: [domain_expert, clarity_editor, reliability_auditor], model: judge,
        discussion_rounds: 0}
scenarios: {bases: all, derived_per_base: 2}
identities: {categories: [gender]}
concurrency: 16
"""


@pytest.fixture(scope="module")
def panel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A small stored judge-panel run and the output of `fairpanel label-bias` on it."""
    cli, folder = Cli(), tmp_path_factory.mktemp("panel")
    path = folder / "panel.yaml"
    path.write_text(textwrap.dedent(PANEL), encoding="utf-8")
    out = folder / "run"
    result = cli("run", str(path), "--out", str(out))
    assert result.exit_code == 0, result.output
    (out / "report.html").write_text("the run's own report", encoding="utf-8")
    done = cli("label-bias", str(out))
    assert done.exit_code == 0, done.output
    return out, " ".join(done.output.split())


def test_label_bias_of_a_stored_panel_run(panel: tuple[Path, str]) -> None:
    out, _ = panel
    report = read_json(out / "label_bias.json")
    assert report["source"] == "judge panel"
    gender = next(v for v in report["views"] if v["name"] == "position (gender)")
    # first_position_bias 0.2: position A takes 0.5 + 0.2 / 2 = 0.6 of the final verdicts.
    assert 0.55 < gender["before"]["mean_distribution"]["A"] < 0.65
    assert gender["leave_one_out"]["bias_score"] < gender["before"]["bias_score"] / 2
    assert "contextual" not in gender  # needs content-free prompts: the study does that
    female = next(v for v in report["views"] if v["name"] == "identity (female vs male)")
    assert female["before"]["mean_distribution"]["female"] > 0.53  # creativity +1 planted


def test_label_bias_writes_its_page_beside_the_run_report(
    panel: tuple[Path, str], tmp_path: Path
) -> None:
    out, output = panel
    page = out / "label_bias.html"
    assert f"Report: {page}" in output
    # The run's own report.html is left alone.
    assert (out / "report.html").read_text(encoding="utf-8") == "the run's own report"
    report = read_json(out / "label_bias.json")
    document = parse_page(page.read_text(encoding="utf-8"))
    assert document.sections == ["label-bias", "cost", "provenance"]
    assert all(link.startswith("#") for link in document.links), document.links
    assert [image["alt"] for image in document.images] == [
        "RSD and BiasScore per label view before and after calibration"
    ]
    assert report["tables"][0]["title"] in document.text
    worst = max(report["views"], key=lambda v: v["before"]["bias_score"])
    before, loo = worst["before"]["bias_score"], worst["leave_one_out"]["bias_score"]
    # A stored run has no contextual calibration: the verdict names only the stages it has.
    assert (
        f"Largest label bias before calibration: {worst['name']}: BiasScore "
        f"{before:.3f} → {loo:.3f}" in document.text
    )
    assert "(none → leave-one-out)" in document.text and "contextual →" not in document.text
    assert "Verdicts stored in a judge panel run" in document.text
    assert "from the run folder's label_bias.json, summary.json" in document.text
    summary = read_json(out / "summary.json")
    assert "trials stored" in document.text  # a panel run counts trials, not items
    assert f"{summary['trials_ok']:,} ok · {summary['trials_failed']:,} failed" in document.text
    dom = dump_dom(chromium_or_skip(), page, tmp_path)
    assert 'data-probed="yes"' in dom
    images = re.findall(r"<img [^>]*>", dom)
    assert len(images) == 1 and 'data-complete="true"' in images[0]
    width = re.search(r'data-natural-width="(\d+)"', images[0])
    assert width is not None and int(width.group(1)) > 300
    heights = dict(re.findall(r'<section id="([^"]+)"[^>]*data-rendered-height="(\d+)"', dom))
    assert set(heights) >= {"verdict", "label-bias", "cost", "provenance"}
    assert all(int(h) > 40 for h in heights.values()), heights


def test_label_bias_of_stored_study_runs(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    award = write_experiment(
        """\
        study: award-audit
        models: {m: {id: mock/m, mock: {first_position_bias: 0}}}
        responder: {model: m}
        groups: {names: {Black: [Latoya], White: [Emily]}}
        levels: [10]
        pairs_per_level: 40
        """,
        name="award.yaml",
    )
    _run(cli, award, tmp_path / "award")
    assert cli("label-bias", str(tmp_path / "award")).exit_code == 0
    views = {v["name"]: v for v in read_json(tmp_path / "award" / "label_bias.json")["views"]}
    assert set(views) == {"group", "position"} and views["position"]["before"]["n"] == 160
    bscore = write_experiment(
        """\
        study: bscore
        models: {m: {id: mock/m, mock: {choice_bias: {Trump: 0.5}}}}
        model: {model: m}
        questions: {topics: [2-choice_politics], categories: [objective, hard]}
        replicates: 2
        single_turn_queries: 20
        multi_turn_turns: 4
        confidence: false
        """,
        name="bscore.yaml",
    )
    _run(cli, bscore, tmp_path / "bscore")
    assert cli("label-bias", str(tmp_path / "bscore")).exit_code == 0
    report = read_json(tmp_path / "bscore" / "label_bias.json")
    view = report["views"][0]
    assert view["name"] == "option position (2 options)" and view["before"]["n"] == 80
    # Trump is favoured whatever its position, and it is right in one question of two:
    # accuracy by where the right answer was shown stays even, near (0.75 + 0.25) / 2.
    assert 0.35 < view["before"]["accuracy"] < 0.65 and view["before"]["rsd"] < 0.25
    refused = cli("label-bias", str(tmp_path / "nothing"))
    assert refused.exit_code == 2
