"""Experiment files: strict parsing, errors with file, field and line, exit code 2, no run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import Cli, WriteExperiment

from fairpanel import InputFileError
from fairpanel.judging import ExperimentConfig, load_experiment

VALID = """\
name: typo-check
models:
  judge: {id: mock/judge}
panel:
  judges: [domain_expert, clarity_editor]
  model: judge
responder:
  model: mock/responder
scenarios:
  bases: [fitness-coaching]
  derived_per_base: 1
identities:
  categories: [gender]
"""


def _problems(path: Path) -> str:
    with pytest.raises(InputFileError) as caught:
        load_experiment(path)
    return str(caught.value)


def test_builtin_default_loads_and_uses_the_local_model() -> None:
    config = load_experiment()
    assert config.panel_spec.id == "local/smollm2"
    assert config.responder_spec.id == "local/smollm2"
    assert config.protocols == ["single"]
    # Enough base scenarios for the verdict's test over them: a first run ends in a verdict.
    assert len(config.scenarios.bases) >= 5


def test_valid_file_loads(write_experiment: WriteExperiment) -> None:
    config = load_experiment(write_experiment(VALID))
    assert config.panel.judges == ["domain_expert", "clarity_editor"]
    assert config.panel_spec.id == "mock/judge"


@pytest.mark.parametrize(
    ("old", "new", "field", "line"),
    [
        ("  model: judge\n", "  modle: judge\n", "panel.modle", 6),
        ("identities:\n", "identites:\n", "identites", 12),
        ("  derived_per_base: 1", "  derived_per_base: -1", "scenarios.derived_per_base", 11),
        ("[domain_expert, clarity_editor]", "[domain_expert, clarity_editr]", "panel.judges[1]", 5),
        ("bases: [fitness-coaching]", "bases: [fitness-coachin]", "scenarios.bases[0]", 10),
        ("categories: [gender]", "categories: [gendr]", "identities.categories[0]", 13),
        ("  judge: {id: mock/judge}", "  judge: {id: mocky/judge}", "models.judge.id", 3),
        (
            "  categories: [gender]\n",
            "  categories: [gender]\npair:\n  categories: [race, gendre]\n",
            "pair.categories[1]",
            15,
        ),
    ],
)
def test_bad_field_names_file_field_and_line(
    write_experiment: WriteExperiment, old: str, new: str, field: str, line: int
) -> None:
    assert old in VALID
    path = write_experiment(VALID.replace(old, new, 1))
    message = _problems(path)
    assert f"{path}:{line}: {field}" in message, message


def test_unknown_model_reference_is_caught(write_experiment: WriteExperiment) -> None:
    path = write_experiment(VALID.replace("  model: judge\n", "  model: judgee\n"))
    message = _problems(path)
    assert f"{path}:6: panel.model" in message and "judgee" in message, message


def test_not_yaml_and_not_utf8(write_experiment: WriteExperiment, tmp_path: Path) -> None:
    assert "not valid YAML" in _problems(write_experiment("panel: [unclosed\n"))
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"name: \xff\xfe\n")
    assert "not UTF-8" in _problems(binary)


def test_cli_misspelt_key_exits_2_before_any_run(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    path = write_experiment(VALID.replace("  model: judge\n", "  modle: judge\n"))
    out = tmp_path / "run"
    result = cli("run", str(path), "--out", str(out))
    assert result.exit_code == 2
    assert "modle" in result.output and ":6:" in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


def test_schema_command_prints_the_json_schema(cli: Cli) -> None:
    result = cli("schema")
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema == ExperimentConfig.model_json_schema()
    assert schema["additionalProperties"] is False
    assert {"panel", "panels", "panel_models"} <= set(schema["properties"])
    assert "answer_format" in schema["$defs"]["PanelConfig"]["properties"]


def test_listing_commands(cli: Cli) -> None:
    scenarios = cli("scenarios")
    assert scenarios.exit_code == 0 and "base scenarios in" in scenarios.output
    personas = cli("personas")
    assert personas.exit_code == 0
    for word in ("female", "Hispanic", "Atheist", "domain_expert"):
        assert word in personas.output
