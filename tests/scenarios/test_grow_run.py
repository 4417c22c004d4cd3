"""``scenarios grow`` through the engine: the mock end to end from the command line, and a
fake OpenAI-format server whose replies the screening sorts, resumed without repeating a call."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.experiments import FAKE_JUDGE
from helpers.fakes import FakeOpenAIServer
from helpers.judges import SECRET
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
    args = ["scenarios", "grow", "--domain", "municipal water utilities", "--count", "2",
            "--critic", "mock/critic", "--out", str(tmp_path / "grown")]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    grown = load_scenarios([tmp_path / "grown"])
    assert len(grown) == 2
    assert all(b.provenance is not None and b.provenance.source == "grown" for b in grown)
    assert (tmp_path / "grown.run" / "grow.yaml").is_file()
