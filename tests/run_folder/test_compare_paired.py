"""``fairpanel compare`` pairs runs that judged the same candidates on the same trials, trial by
trial, and says so; runs whose responders wrote their own answers fall back to the independent
comparison and say why; a model id served as another model between runs is warned about.

The judges are mock judges on the name signal: each first name carries its own pull (+1 or -1
point, averaging to zero over a label's names), shared by every judge, so a scenario's own pull
toward a label varies from scenario to scenario as real judges' do. That pull cancels unit by
unit between two judges of the same trials, and widens each run's own interval. The second
judge adds 0.25 points to every female name (dithered, so the quarter point survives the
integer scale): the paired comparison calls that, the independent one cannot.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import Cli, read_json
from helpers.experiments import ORIGINAL_BASES
from helpers.fakes import FakeOpenAIServer
from helpers.judges import SECRET

from fairpanel.agents import Message, MockBias, ModelRequest, mock_reply
from fairpanel.analysis import RunInputs
from fairpanel.judging import load_experiment, run_experiment
from fairpanel.run_folder import compare, write_results
from fairpanel.run_folder._compare_served import served_warnings

FEMALE = ("Emma", "Olivia", "Sophie", "Hannah", "Laura", "Rachel", "Megan", "Natalie")
MALE = ("James", "Daniel", "Michael", "Thomas", "Andrew", "Ryan", "Matthew", "David")
METRICS = ("creativity", "accuracy", "efficiency", "reliability")
PLANTED = 0.25
KEY_VARIABLE = "COMPARE_PAIRED_KEY"


def _judge(extra: float) -> dict[str, Any]:
    """The mock judge: each name's own pull, plus ``extra`` points on every female name."""
    pulls = {name: (1.0 if i % 2 == 0 else -1.0) + extra for i, name in enumerate(FEMALE)}
    pulls |= {name: -1.0 if i % 2 == 0 else 1.0 for i, name in enumerate(MALE)}
    shift = {name: dict.fromkeys(METRICS, pull) for name, pull in pulls.items()}
    mock = {"seed": 3, "noise": 1, "dither": True, "score_shift": shift}
    return {"id": "mock/judge", "mock": mock}


def _experiment(name: str, **changes: Any) -> dict[str, Any]:
    """15 base scenarios x 2 derived, gender by first name, one judge, no control arms;
    ``changes`` replace top-level sections (None drops one)."""
    experiment: dict[str, Any] = {
        "name": name,
        "seed": 7,
        "protocols": ["single"],
        "models": {"judge": _judge(0.0)},
        "responder": {"model": "mock/responder"},
        "panel": {"judges": ["domain_expert"], "model": "judge", "discussion_rounds": 0},
        "scenarios": {"bases": ORIGINAL_BASES, "derived_per_base": 2},
        "identities": {"categories": ["gender"], "signals": ["name"]},
        "arms": {"placebo": False, "same_label": False},
        "concurrency": 16,
    }
    experiment |= changes
    return {key: value for key, value in experiment.items() if value is not None}


def _run(root: Path, name: str, experiment: dict[str, Any]) -> Path:
    """Run ``experiment`` into root/name with results.json and summary.json (no report page)."""
    config = root / f"{name}.yaml"
    config.write_text(yaml.safe_dump(experiment, sort_keys=False), encoding="utf-8")
    folder = root / name
    summary = asyncio.run(run_experiment(load_experiment(config), folder))
    assert summary.trials_failed == 0
    (folder / "summary.json").write_text(json.dumps(summary.as_dict()), encoding="utf-8")
    write_results(folder)
    return folder


def _second_draft(body: dict[str, Any]) -> str:
    """A responder asked again on another day: the mock's answer, worded a little otherwise."""
    messages = tuple(Message(role=m["role"], content=m["content"]) for m in body["messages"])
    text = mock_reply(ModelRequest(model=body["model"], messages=messages), MockBias())
    return text.replace("Step", "Part")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare-paired")
    folders = {"fair": _run(root, "fair", _experiment("fair"))}
    frozen = str(folders["fair"])
    folders["shifted"] = _run(
        root,
        "shifted",
        _experiment("shifted", models={"judge": _judge(PLANTED)}, responses_from=frozen),
    )
    panels = {
        name: {"judges": ["domain_expert"], "model": name, "discussion_rounds": 0}
        for name in ("same", "plus")
    }
    plus = _judge(PLANTED) | {"id": "mock/judge-plus"}
    folders["panels"] = _run(
        root,
        "panels",
        _experiment(
            "panels",
            models={"same": _judge(0.0), "plus": plus},
            panel=None,
            panels=panels,
            responses_from=frozen,
        ),
    )
    server = FakeOpenAIServer(_second_draft, api_key=SECRET)
    with pytest.MonkeyPatch.context() as patch, server:
        patch.setenv(KEY_VARIABLE, SECRET)
        responder = {
            "id": "openai-compatible/responder",
            "base_url": server.base_url,
            "api_key_env": KEY_VARIABLE,
        }
        own = _experiment("own", models={"judge": _judge(0.0), "responder": responder})
        own["responder"] = {"model": "responder"}
        folders["own"] = _run(root, "own", own)
    assert KEY_VARIABLE not in os.environ
    return folders


def _row(comparison: dict[str, Any], kind: str, a: str, b: str) -> dict[str, Any]:
    found = [
        row
        for row in comparison["paired"]["differences"]
        if (row["kind"], row["panel_a"], row["panel_b"]) == (kind, a, b)
    ]
    assert len(found) == 1, comparison["paired"]["differences"]
    return found[0]


def test_runs_on_the_same_candidates_are_paired_and_the_planted_quarter_point_is_called(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    result = Cli()("compare", str(runs["fair"]), str(runs["shifted"]), "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert "Paired trial by trial" in result.output
    comparison = read_json(tmp_path / "compare.json")
    assert comparison["pairing"] == "paired"
    assert "same 60 candidate responses of 30 scenarios" in comparison["pairing_reason"]
    assert comparison["comparisons"] == []
    row = _row(comparison, "single", "fair", "shifted")
    # Matched on the design, not the trial keys (which differ between the runs): every unit,
    # one response of each of the 30 scenarios under both labels.
    trials = read_json(runs["fair"] / "results.json")["n_trials"]["single"]
    assert (row["n_units"], row["n_bases"]) == (trials // 2, 15) == (30, 15)
    assert row["called"] is True and row["p_adjusted"] < 0.05
    assert 0.0 < row["ci_low"] < PLANTED < row["ci_high"]
    assert comparison["summary"][0] == row["sentence"]
    assert row["sentence"].startswith("shifted's gender effect (female - male) is")
    assert "larger than fair's" in row["sentence"]
    assert "shifted's gender effect" in result.output
    # The leaderboard ranks with rank intervals from the paired bootstrap.
    board = {r["run"]: r for r in comparison["leaderboard"]}
    assert board["fair"]["rank_interval"]["rank"] == 1
    assert board["shifted"]["rank_interval"]["rank"] == 2
    assert board["shifted"]["rank_interval"]["reps"] > 0
    html = (tmp_path / "compare.html").read_text(encoding="utf-8")
    assert 'id="pairing">paired trial by trial<' in html
    assert "rank of the largest effect" in html and ">called<" in html

    # The same two folders compared as independent samples: each run's interval carries the
    # names' pulls, and the quarter point is lost in them.
    independent = compare([runs["fair"], runs["shifted"]], independent=True)
    assert independent["pairing"] == "independent" and independent["paired"] is None
    rows = {r["effect"]: r for r in independent["comparisons"]}
    overall = rows["single:gender:overall:female-male:panel"]
    assert overall["ci_low"] < 0.0 < overall["ci_high"]
    assert overall["ci_high"] - overall["ci_low"] > 3 * (row["ci_high"] - row["ci_low"])
    assert not any(r["real"] for r in independent["comparisons"])


def test_runs_whose_responders_wrote_their_own_answers_are_compared_independently(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    result = Cli()("compare", str(runs["fair"]), str(runs["own"]), "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    comparison = read_json(tmp_path / "compare.json")
    assert comparison["same_design"] is True
    assert comparison["pairing"] == "independent" and comparison["paired"] is None
    reason = comparison["pairing_reason"]
    assert reason.startswith("the runs' candidate responses differ: 60 of the 60 responses")
    assert "own wrote its own" in reason and f"responses_from: {runs['fair']}" in reason
    assert comparison["comparisons"], "today's independent comparison"
    assert "Independent comparison" in result.output and "wrote its own" in result.output
    assert "rank_interval" not in comparison["leaderboard"][0]
    html = (tmp_path / "compare.html").read_text(encoding="utf-8")
    assert 'id="pairing">independent samples<' in html and "Compared as independent" in html
    # The same judge, served as the same model in both runs: nothing to warn about.
    assert comparison["warnings"] == []
    assert "served-warning" not in html


def test_each_panel_of_a_multi_panel_run_is_paired_under_its_own_name(
    runs: dict[str, Path],
) -> None:
    comparison = compare([runs["fair"], runs["panels"]])
    assert comparison["pairing"] == "paired"
    assert comparison["paired"]["panels"] == ["fair", "panels/same", "panels/plus"]
    assert {r["run"] for r in comparison["leaderboard"]} == {"fair", "panels/same", "panels/plus"}
    board = {r["run"]: r for r in comparison["leaderboard"]}
    assert board["panels/plus"]["judge"] == "mock/judge-plus"
    plus = _row(comparison, "single", "fair", "panels/plus")
    assert plus["called"] is True and plus["n_units"] == 30
    # The panel judging like fair gave fair's very answers on every matched unit, and the one
    # judging like shifted differs from fair exactly as the run shifted does.
    same = _row(comparison, "single", "fair", "panels/same")
    assert same["difference"] == 0.0 and not same["called"]
    shifted = _row(compare([runs["fair"], runs["shifted"]]), "single", "fair", "shifted")
    assert plus["difference"] == pytest.approx(shifted["difference"])


def test_a_judge_served_as_another_model_between_runs_is_warned_about(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    result = Cli()("compare", str(runs["fair"]), str(runs["shifted"]), "--out", str(tmp_path))
    comparison = read_json(tmp_path / "compare.json")
    fingerprints = [
        read_json(runs[name] / "manifest.json")["served"]["mock/judge"]["fingerprints"][0]["value"]
        for name in ("fair", "shifted")
    ]
    assert fingerprints[0] != fingerprints[1]
    assert comparison["warnings"] == [
        f"mock/judge: run fair was served mock/judge ({fingerprints[0]}), run shifted was "
        f"served mock/judge ({fingerprints[1]}): the judge changed between runs, so the same "
        "model id names two models here"
    ]
    assert comparison["served_changes"] == {"fair": [], "shifted": []}
    assert "warning: mock/judge: run fair was served" in result.output
    assert 'id="served-warning"' in (tmp_path / "compare.html").read_text(encoding="utf-8")


def _served(names: list[str], fingerprints: list[str]) -> dict[str, Any]:
    def values(found: list[str]) -> list[dict[str, Any]]:
        return [{"value": v, "calls": 1, "first_seen": "", "last_seen": ""} for v in found]

    return {"calls": 1, "names": values(names), "fingerprints": values(fingerprints)}


def _inputs(name: str, served: dict[str, Any], changes: list[str] = []) -> RunInputs:  # noqa: B006
    manifest = {
        "models": {
            "responder": "mock/responder",
            "judges": {"domain_expert": "openai/gpt-4o-mini"},
        },
        "served": served,
        "served_changes": changes,
    }
    return RunInputs(name, name, {}, manifest=manifest)


def test_served_warnings_name_both_runs_and_repeat_each_runs_own_changes() -> None:
    a = _inputs("A", {"openai/gpt-4o-mini": _served(["gpt-4o-mini-2024-07-18"], ["fp_x"])})
    b = _inputs(
        "B",
        {"openai/gpt-4o-mini": _served(["gpt-4o-mini-2024-07-18"], ["fp_y"])},
        ["openai/gpt-4o-mini: the server reported 2 fingerprints during the run (...)"],
    )
    silent = _inputs("C", {"openai/gpt-4o-mini": _served([], [])})
    assert served_warnings([a, b, silent]) == [
        "openai/gpt-4o-mini: run A was served gpt-4o-mini-2024-07-18 (fp_x), run B was served "
        "gpt-4o-mini-2024-07-18 (fp_y): the judge changed between runs, so the same model id "
        "names two models here",
        "run B: openai/gpt-4o-mini: the server reported 2 fingerprints during the run (...)",
    ]
    # The same served model, or a server that reported nothing, is no change.
    assert served_warnings([a, a.__class__("A2", "A2", {}, manifest=a.manifest), silent]) == []
