"""Bad input: whatever an experiment, scenario, persona or identity file holds, loading it
gives a result or a clear error naming the file, the line and the field, never a traceback;
the CLI exits 2 before creating the run folder or calling a model.

Property-based (hypothesis) over mutations of valid files (values of the wrong type, missing
and unknown keys, non-finite numbers, random text spliced into the YAML, invalid UTF-8),
plus hostile documents: alias bombs, self-referencing aliases, deep nesting, duplicate keys,
oversized files and a device that never ends.
"""

from __future__ import annotations

import copy
import os
import re
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from helpers.fakes import FakeOpenAIServer
from helpers.run_process import start_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fairpanel import InputFileError
from fairpanel.cli import app
from fairpanel.judging import load_experiment
from fairpanel.personas import builtin_personas_dir, load_identities, load_judge_personas
from fairpanel.scenarios import builtin_scenarios_dir, derived_scenarios, load_scenarios

pytestmark = pytest.mark.timeout(300)

FEW = settings(
    max_examples=int(os.environ.get("FAIRPANEL_HYPOTHESIS_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
VALID_EXPERIMENT = """\
name: bad-input
models:
  judge:
    id: openai-compatible/judge
    base_url: {base_url}
    api_key_env: BAD_INPUT_KEY
    structured_output: true
panel:
  judges: [domain_expert, clarity_editor]
  model: judge
  discussion_rounds: 1
  sampling: {{temperature: 0.5, max_tokens: 200}}
responder:
  model: judge
scenarios:
  bases: [fitness-coaching]
  derived_per_base: 1
identities:
  categories: [gender]
  label_position: tag
pair: {{counterbalance: false}}
arms: {{placebo: true, same_label: false}}
treatments: [{{name: none}}]
concurrency: 2
"""
# A problem line: "FILE:LINE: FIELD: MESSAGE", or "FILE: MESSAGE" for a whole-file problem.
PROBLEM = re.compile(r"^(?P<file>.+?)(?::(?P<line>\d+))?: (?P<rest>\S.*)$", re.DOTALL)


@pytest.fixture(scope="module")
def server() -> Iterator[FakeOpenAIServer]:
    """Every config points at this server: a run that got past loading would call it."""
    with FakeOpenAIServer(lambda _body: "unused") as running:
        yield running


@pytest.fixture(scope="module")
def folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BAD_INPUT_KEY", "sk-bad-input-0000")


# --------------------------------------------------------------------------- strategies

LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-(10**12), 10**12)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["all", "mock/judge", "judge", "gender", "tag", "open", "", "-1"])
)
VALUES = st.recursive(
    LEAVES,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=10), children, max_size=3)
    ),
    max_leaves=6,
)
KEY_NAMES = st.sampled_from(
    ["name", "panel", "judges", "model", "id", "models", "seed", "persona", "categories",
     "bases", "files", "sampling", "limits", "template", "variations", "label", "names"]
) | st.text(min_size=1, max_size=10)  # fmt: skip


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*prefix, index))
    return found


def _parent(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path[:-1]:
        data = data[part]
    return data


@st.composite
def mutations(draw: st.DrawFn, valid: dict[str, Any]) -> dict[str, Any]:
    """A valid document with one to three values replaced, keys removed or keys added."""
    data = copy.deepcopy(valid)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(data)))
        action = draw(st.sampled_from(["replace", "remove", "add"]))
        if not path:
            if isinstance(data, dict) and action == "add":
                data[draw(KEY_NAMES)] = draw(VALUES)
            continue
        parent = _parent(data, path)
        if action == "replace":
            parent[path[-1]] = draw(VALUES)
        elif action == "remove":
            del parent[path[-1]]
        elif isinstance(parent[path[-1]], dict):
            parent[path[-1]][draw(KEY_NAMES)] = draw(VALUES)
        elif isinstance(parent[path[-1]], list):
            parent[path[-1]].append(draw(VALUES))
    return data


@st.composite
def spliced(draw: st.DrawFn, text: str) -> str:
    """``text`` with random characters (YAML punctuation, tabs, control characters) spliced in."""
    at = draw(st.integers(0, len(text)))
    insert = draw(
        st.text(
            alphabet=st.sampled_from(list(":-[]{}&*!|>'\"%@`#,?\t\n \x00\x1b\u2028é")), max_size=6
        )
        | st.text(max_size=6)
    )
    return text[:at] + insert + text[at:]


# --------------------------------------------------------------------------- checks


def _assert_clear(error: InputFileError, path: Path) -> None:
    """Every problem names a file; problems in ``path``'s content name the line and field."""
    assert error.problems
    for problem in error.problems:
        match = PROBLEM.match(problem)
        assert match, problem
        assert "Traceback" not in problem
        if match["file"] == str(path) and not re.search(r"UTF-8|over the \d+|cannot read", problem):
            assert match["line"], f"no line: {problem}"
            assert ": " in match["rest"], f"no field: {problem}"


def _load_or_error(load: Callable[[Path], object], path: Path) -> object | None:
    try:
        return load(path)
    except InputFileError as error:
        _assert_clear(error, path)
        return None


def _dump(data: Any) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


def _assert_cli_refuses(path: Path, out: Path, server: FakeOpenAIServer) -> str:
    before = len(server.requests)
    result = CliRunner().invoke(app, ["run", str(path), "--out", str(out)])
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert str(path) in result.output or "error" in result.output
    assert not out.exists(), "a run folder was created for a bad config"
    assert len(server.requests) == before, "a model was called"
    return " ".join(result.output.split())


# --------------------------------------------------------------------------- experiments


@FEW
@given(data=st.data())
def test_mutated_experiments_load_or_fail_clearly(
    data: st.DataObject, server: FakeOpenAIServer, folder: Path
) -> None:
    valid = yaml.safe_load(VALID_EXPERIMENT.format(base_url=server.base_url))
    path = folder / "mutated.yaml"
    path.write_text(_dump(data.draw(mutations(valid))), encoding="utf-8")
    _load_or_error(load_experiment, path)


@FEW
@given(data=st.data())
def test_spliced_experiment_text_loads_or_fails_clearly(
    data: st.DataObject, server: FakeOpenAIServer, folder: Path
) -> None:
    path = folder / "spliced.yaml"
    text = data.draw(spliced(VALID_EXPERIMENT.format(base_url=server.base_url)))
    path.write_text(text, encoding="utf-8")
    _load_or_error(load_experiment, path)


@FEW
@given(data=st.data(), garbage=st.binary(min_size=1, max_size=4))
def test_invalid_utf8_anywhere_is_named(
    data: st.DataObject, garbage: bytes, server: FakeOpenAIServer, folder: Path
) -> None:
    raw = VALID_EXPERIMENT.format(base_url=server.base_url).encode("utf-8")
    at = data.draw(st.integers(0, len(raw)))
    path = folder / "bytes.yaml"
    path.write_bytes(raw[:at] + b"\xff" + garbage + raw[at:])
    with pytest.raises(InputFileError) as caught:
        load_experiment(path)
    assert caught.value.problems == [f"{path}: not UTF-8 text (bad byte at offset {at})"]


@settings(FEW, max_examples=max(FEW.max_examples // 2, 1))
@given(data=st.data())
def test_the_cli_refuses_bad_experiments_with_exit_2_before_any_run(
    data: st.DataObject, server: FakeOpenAIServer, folder: Path
) -> None:
    valid = yaml.safe_load(VALID_EXPERIMENT.format(base_url=server.base_url))
    text = _dump(data.draw(mutations(valid)))
    path = folder / "cli.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        load_experiment(path)
    except InputFileError:
        _assert_cli_refuses(path, folder / "never-created", server)


def _bomb(levels: int = 9, width: int = 9) -> str:
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


HOSTILE = {
    "alias bomb": (lambda valid: _bomb() + valid, r":6: l5: expands to more than 200,000 values"),
    "alias bomb in a field": (
        lambda valid: valid + "prices:\n" + textwrap.indent(_bomb(), "  "),
        r":\d+: prices\.l5: expands to more than 200,000 values once its YAML aliases",
    ),
    "self-referencing alias": (
        lambda valid: valid.replace("categories: [gender]", "categories: &c [*c]"),
        r":\d+: identities\.categories\[0\]: a YAML alias refers to a value that contains it",
    ),
    "deep nesting": (
        lambda valid: valid + "prices: " + "[" * 200 + "]" * 200 + "\n",
        r":\d+: prices\[0\]\[0\]\[0\]: nested more than 64 levels deep below this field",
    ),
    "deeper than the parser allows": (
        lambda valid: valid + "prices: " + "{a: " * 5000 + "1" + "}" * 5000 + "\n",
        r":\d+: not valid YAML: exceeded maximum nesting depth",
    ),
    "duplicate key": (
        lambda valid: valid + "concurrency: 3\n",
        r":\d+: concurrency: duplicate key 'concurrency' \(first at line \d+\)",
    ),
    "non-finite number": (
        lambda valid: valid.replace("temperature: 0.5", "temperature: .nan"),
        r":\d+: panel\.sampling\.temperature: \.nan is not a finite number",
    ),
    "infinite timeout": (
        lambda valid: valid.replace("structured_output: true", "timeout_s: .inf"),
        r":\d+: models\.judge\.timeout_s: \.inf is not a finite number",
    ),
    "wrong type": (
        lambda valid: valid.replace("concurrency: 2", "concurrency: [2]"),
        r":\d+: concurrency: Input should be a valid integer",
    ),
    "control character": (
        lambda valid: valid.replace("name: bad-input", "name: bad\x07input"),
        r":1: not valid YAML: .*character",
    ),
    "python tag": (
        lambda valid: valid.replace("name: bad-input", "name: !!python/object:os.system ls"),
        r":1: not valid YAML: could not determine a constructor",
    ),
    "top level list": (lambda valid: "- a\n- b\n", r":1: \(top level\): Input should be"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_experiments_fail_fast_and_clearly(
    case: str, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    make, expected = HOSTILE[case]
    path = tmp_path / "hostile.yaml"
    path.write_text(make(VALID_EXPERIMENT.format(base_url=server.base_url)), encoding="utf-8")
    output = _assert_cli_refuses(path, tmp_path / "run", server)
    assert re.search(re.escape(str(path)) + expected, output), output


def test_oversized_and_endless_inputs_are_refused(server: FakeOpenAIServer, tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    valid = VALID_EXPERIMENT.format(base_url=server.base_url)
    big.write_text(valid + "# " + "x" * (5 * 1024 * 1024) + "\n", encoding="utf-8")
    output = _assert_cli_refuses(big, tmp_path / "run", server)
    assert f"{big}: file is" in output and "over the 5242880" in output
    endless = tmp_path / "endless.yaml"
    endless.write_text(valid + "personas_file: /dev/zero\n", encoding="utf-8")
    output = _assert_cli_refuses(endless, tmp_path / "run", server)
    assert "/dev/zero: " in output and ("over the" in output or "not UTF-8" in output)


def test_a_real_process_refuses_an_alias_bomb_quickly(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(_bomb(levels=12) + "panel: {judges: [domain_expert]}\n", encoding="utf-8")
    log = tmp_path / "out.log"
    process = start_run(["run", str(path), "--out", str(tmp_path / "run")], {}, log)
    process.join(60)
    output = log.read_text(encoding="utf-8")
    assert process.exitcode == 2, output
    assert "Traceback" not in output and f"{path}:6: l5: expands" in " ".join(output.split())
    assert not (tmp_path / "run").exists()


# --------------------------------------------------------------------------- other files


def _builtin(path: Path) -> dict[str, Any]:
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


SCENARIO_FILE = sorted(builtin_scenarios_dir().glob("*.yaml"))[0]


@FEW
@given(data=st.data())
def test_mutated_scenario_files_load_or_fail_clearly(data: st.DataObject, folder: Path) -> None:
    path = folder / "scenario.yaml"
    text = _dump(data.draw(mutations(_builtin(SCENARIO_FILE))))
    path.write_text(data.draw(spliced(text) | st.just(text)), encoding="utf-8")
    loaded = _load_or_error(lambda p: load_scenarios([p]), path)
    if loaded is not None:
        derived_scenarios(loaded)  # type: ignore[arg-type]  # a loaded template must render


@FEW
@given(data=st.data())
def test_mutated_identity_files_load_or_fail_clearly(data: st.DataObject, folder: Path) -> None:
    path = folder / "identities.yaml"
    text = _dump(data.draw(mutations(_builtin(builtin_personas_dir() / "identities.yaml"))))
    path.write_text(data.draw(spliced(text) | st.just(text)), encoding="utf-8")
    _load_or_error(load_identities, path)


@FEW
@given(data=st.data())
def test_mutated_judge_persona_files_load_or_fail_clearly(
    data: st.DataObject, folder: Path
) -> None:
    path = folder / "judges.yaml"
    text = _dump(data.draw(mutations(_builtin(builtin_personas_dir() / "judges.yaml"))))
    path.write_text(data.draw(spliced(text) | st.just(text)), encoding="utf-8")
    _load_or_error(load_judge_personas, path)


@pytest.mark.parametrize("field", ["personas_file", "identities", "scenarios"])
def test_a_bad_file_named_by_the_experiment_stops_the_cli_with_exit_2(
    field: str, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("judges:\n  - name: x\n    nmae: y\ncategories: 3\nid: 7\n", encoding="utf-8")
    valid = VALID_EXPERIMENT.format(base_url=server.base_url)
    if field == "personas_file":
        text = valid + f"personas_file: {bad}\n"
    elif field == "identities":
        text = valid.replace("  label_position: tag\n", f"  label_position: tag\n  file: {bad}\n")
    else:
        text = valid.replace(
            "  derived_per_base: 1\n", f"  derived_per_base: 1\n  files: [{bad}]\n"
        )
    path = tmp_path / "experiment.yaml"
    path.write_text(text, encoding="utf-8")
    output = _assert_cli_refuses(path, tmp_path / "run", server)
    assert re.search(re.escape(str(bad)) + r":\d+: \S+", output), output
