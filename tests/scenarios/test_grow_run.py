"""``scenarios grow`` through the engine: the mock end to end from the command line, and a
fake OpenAI-format server whose replies the screening sorts, resumed without repeating a call."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers.experiments import FAKE_JUDGE
from helpers.fakes import FakeOpenAIServer
from helpers.judges import SECRET
from helpers.runs import kill_once_stored, stored_rows
from typer.testing import CliRunner

from fairpanel.agents import ModelSpec
from fairpanel.cli import app
from fairpanel.run_folder import grow_scenarios
from fairpanel.scenarios import load_scenarios
from fairpanel.studies.scenario_grow import ScenarioGrowConfig

_GOOD = (
    "You are the {profession} on call {setting}. {role}. Explain which valves you would close, "
    "how you would decide whether to dig tonight, and what you would tell affected customers."
)


def _variations() -> list[dict[str, str]]:
    return [
        {
            "profession": f"engineer grade {i}",
            "role": f"A leak on street {i}",
            "setting": f"zone {i}",
        }
        for i in range(10)
    ]


def _writer(body: dict[str, Any]) -> str:
    prompt = body["messages"][-1]["content"]
    number = int(prompt.rsplit("(candidate ", 1)[1].rstrip(")"))
    replies = {
        1: {"id": "leak-triage", "template": _GOOD},
        2: {"id": "copy", "template": load_scenarios()[0].template},
        3: {"id": "broken", "template": _GOOD.replace("{setting}", "{place}")},
        4: "not json at all",
    }
    reply = replies[number]
    if isinstance(reply, str):
        return reply
    return json.dumps({**reply, "title": "t", "stereotype": "s", "variations": _variations()})


def test_the_engine_stores_every_call_and_a_rerun_repeats_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAIRPANEL_TEST_KEY", SECRET)
    with FakeOpenAIServer(_writer, api_key=SECRET) as server:
        spec = ModelSpec.model_validate(
            {**FAKE_JUDGE, "structured_output": False, "base_url": server.base_url}
        )
        config = ScenarioGrowConfig(
            domain="municipal water utilities",
            count=2,
            models={"writer": spec},
            writer={"model": "writer"},
        )
        first = asyncio.run(grow_scenarios(config, tmp_path / "run", tmp_path / "out"))
        asked = len(server.requests)
        again = asyncio.run(grow_scenarios(config, tmp_path / "run", tmp_path / "out2"))
        assert len(server.requests) == asked == 4
    assert [b.id for b in first.screen.accepted] == ["leak-triage"]
    assert [(r.candidate, r.reason) for r in first.screen.rejected] == [
        (2, "near-duplicate"),
        (3, "placeholders"),
        (4, "malformed"),
    ]
    assert (tmp_path / "out" / "leak-triage.yaml").read_bytes() == (
        tmp_path / "out2" / "leak-triage.yaml"
    ).read_bytes()
    assert again.rejected_file.read_bytes() == first.rejected_file.read_bytes()


def test_mock_grow_from_the_command_line_writes_loadable_files(tmp_path: Path) -> None:
    args = [
        "scenarios",
        "grow",
        "--domain",
        "municipal water utilities",
        "--count",
        "2",
        "--critic",
        "mock/critic",
        "--out",
        str(tmp_path / "grown"),
    ]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    grown = load_scenarios([tmp_path / "grown"])
    assert len(grown) == 2
    assert all(b.provenance is not None and b.provenance.source == "grown" for b in grown)
    assert (tmp_path / "grown.run" / "grow.yaml").is_file()


_TASKS = [
    "Explain which valves you would close and how you would decide whether to dig tonight.",
    "Draft the quarterly meter-reading schedule and say how you would handle missed reads.",
    "Recommend whether the pumping station needs a second standby generator, with costs.",
    "Write the reservoir drawdown plan for a dry summer and the triggers for restrictions.",
    "Review a disputed bill that doubled in one month and decide what refund to offer.",
    "Prioritise which cast-iron mains to replace first from a list of break histories.",
    "Prepare the storm-overflow response checklist for a night of heavy rainfall.",
    "Design the sampling audit that proves the lead-testing results were not cherry-picked.",
]


def _numbered_writer(body: dict[str, Any]) -> str:
    """Every candidate a good base of its own, none a near-duplicate of another."""
    prompt = body["messages"][-1]["content"]
    number = int(prompt.rsplit("(candidate ", 1)[1].rstrip(")"))
    template = f"You are the {{profession}} {{setting}}. {{role}}. {_TASKS[number - 1]}"
    return json.dumps(
        {
            "id": f"utility-{number}",
            "template": template,
            "title": "t",
            "stereotype": "s",
            "variations": _variations(),
        }
    )


def _grow_file(path: Path, base_url: str) -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "study": "scenario-grow",
                "domain": "municipal water utilities",
                "count": 4,
                "overgenerate": 2,
                "concurrency": 2,
                "models": {
                    "writer": {**FAKE_JUDGE, "structured_output": False, "base_url": base_url}
                },
                "writer": {"model": "writer"},
            }
        ),
        encoding="utf-8",
    )
    return path


def _grow_process(config: Path, out: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "fairpanel",
            "scenarios",
            "grow",
            "--config",
            str(config),
            "--out",
            str(out),
        ],
        env={**os.environ, "FAIRPANEL_TEST_KEY": SECRET},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def test_a_killed_grow_resumes_without_repeating_a_stored_call(tmp_path: Path) -> None:
    """SIGKILLed once two candidates are stored, then run again: no call whose answer was
    stored is sent again, and the files equal an uninterrupted run's byte for byte."""
    with FakeOpenAIServer(_numbered_writer, latency=0.15, api_key=SECRET) as server:
        config = _grow_file(tmp_path / "grow.yaml", server.base_url)
        out, run_dir = tmp_path / "grown", tmp_path / "grown.run"
        db_path = run_dir / "fairpanel.sqlite"
        process = _grow_process(config, out)
        kill_once_stored(process, db_path, 2, table="study_items")
        stored_at_kill = {
            str(json.loads(spec)["candidate"])
            for (spec,) in stored_rows(db_path, "SELECT spec FROM study_items")
        }
        assert 2 <= len(stored_at_kill) < 8, "killed too late to test anything"
        asked_at_kill = len(server.requests)
        rerun = _grow_process(config, out)
        _, stderr = rerun.communicate(timeout=120)
        assert rerun.returncode == 0, stderr.decode()
        asked_after = [
            r["messages"][-1]["content"].rsplit("(candidate ", 1)[1].rstrip(")")
            for r in server.requests[asked_at_kill:]
        ]
        assert not stored_at_kill & set(asked_after)
        assert len(asked_after) == len(set(asked_after))
        whole = _grow_process(
            _grow_file(tmp_path / "again.yaml", server.base_url), tmp_path / "whole"
        )
        _, stderr = whole.communicate(timeout=120)
        assert whole.returncode == 0, stderr.decode()
    kept = sorted(p.name for p in out.glob("*.yaml"))
    assert len(kept) == 4
    assert kept == sorted(p.name for p in (tmp_path / "whole").glob("*.yaml"))
    for name in kept:
        assert (out / name).read_bytes() == (tmp_path / "whole" / name).read_bytes()


def test_a_typo_in_a_grow_file_is_refused_with_its_field_and_line(tmp_path: Path) -> None:
    config = tmp_path / "grow.yaml"
    config.write_text("study: scenario-grow\ndomain: water utilities\ncuont: 3\n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["scenarios", "grow", "--config", str(config), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 2
    assert "grow.yaml:3" in result.output and "cuont" in result.output
    assert not (tmp_path / "o.run").exists()
