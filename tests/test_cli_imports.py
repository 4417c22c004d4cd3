"""What each command loads: reading a run never loads AutoGen or the run side, estimating any
shipped example loads no statistics, figures or numpy, and the top-level help loads no
command's module or library. Each check runs the command in a fresh interpreter and reads its
``sys.modules`` (deterministic, unlike a timing)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
import typer
import yaml
from helpers.paths import EXAMPLES, REPO_ROOT
from typer.testing import CliRunner

from fairpanel.cli import app
from fairpanel.cli._app import _COMMANDS, _GROUPS

EXPERIMENT = """\
name: imports
seed: 4
protocols: [single, pair]
models:
  judge: {id: mock/judge}
responder:
  model: mock/responder
panel:
  judges: [domain_expert, clarity_editor]
  model: judge
  discussion_rounds: 1
scenarios:
  bases: [fitness-coaching]
  derived_per_base: 1
identities:
  categories: [gender]
pair:
  categories: [gender]
"""

AUTOGEN = ("autogen_agentchat", "autogen_core", "autogen_ext")
LIBRARIES = ("scipy", "pandas", "matplotlib", "statsmodels", "numpy")
RUN_SIDE = (
    "fairpanel.judging.engine._runner",
    "fairpanel.judging.engine._session",
    "fairpanel.judging.protocol._trial",
    "fairpanel.studies._runner",
    "fairpanel.agents._autogen_panel",
)


def _loaded(*args: str) -> set[str]:
    """The modules loaded by ``fairpanel ARGS`` run in a fresh interpreter from the repository's
    root, as its examples are (it must succeed)."""
    code = (
        "import sys\n"
        "from fairpanel.cli import app\n"
        f"sys.argv = ['fairpanel', *{list(args)!r}]\n"
        "try:\n"
        "    app()\n"
        "except SystemExit as exc:\n"
        "    assert not exc.code, exc.code\n"
        "print(repr(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT
    )
    assert done.returncode == 0, done.stderr
    return set(ast.literal_eval(done.stderr.strip().splitlines()[-1]))


def _tops(modules: set[str], names: tuple[str, ...]) -> set[str]:
    return {module for module in modules if module.partition(".")[0] in names}


def test_report_loads_neither_autogen_nor_the_run_side(tmp_path: Path) -> None:
    config = tmp_path / "experiment.yaml"
    config.write_text(EXPERIMENT, encoding="utf-8")
    made = CliRunner().invoke(app, ["run", str(config), "--out", str(tmp_path / "run")])
    assert made.exit_code == 0, made.output
    loaded = _loaded("report", str(tmp_path / "run"))
    assert "fairpanel.run_folder._report" in loaded  # the check reads a real report
    assert (tmp_path / "run" / "report.html").exists()
    assert not _tops(loaded, AUTOGEN)
    assert not loaded & set(RUN_SIDE)


def test_estimate_loads_neither_autogen_nor_the_run_side(tmp_path: Path) -> None:
    """Nor the analysis: an estimate counts calls, it reads no frames and runs no test."""
    config = tmp_path / "experiment.yaml"
    config.write_text(EXPERIMENT, encoding="utf-8")
    loaded = _loaded("estimate", str(config))
    assert "fairpanel.judging.engine._estimate" in loaded
    assert not _tops(loaded, AUTOGEN)
    assert not loaded & set(RUN_SIDE)
    assert not _tops(loaded, LIBRARIES)
    analysis = {m for m in loaded if m.startswith(("fairpanel.analysis.", "fairpanel.report."))}
    # --pilot's default target, a number, is all the estimate reads of the analysis
    assert analysis <= {"fairpanel.analysis.calibration", "fairpanel.analysis.calibration._targets"}


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.yaml")), ids=lambda path: path.stem)
def test_estimating_an_example_loads_no_statistics_figures_or_numpy(example: Path) -> None:
    """A study's estimate designs its items and counts their calls: its statistics, its
    figures and its report's page load when a run is analysed or shown, never to estimate."""
    study = yaml.safe_load(example.read_text(encoding="utf-8")).get("study")
    loaded = _loaded("estimate", str(example))
    if study is None:
        assert "fairpanel.judging.engine._estimate" in loaded
    else:  # the study itself designed the items the estimate counted
        package = f"fairpanel.studies.{study.replace('-', '_')}"
        assert {"fairpanel.studies._estimate", f"{package}._study"} <= loaded
        assert not {f"{package}._report", f"{package}._figures"} & loaded
    assert not _tops(loaded, LIBRARIES)
    assert not {module for module in loaded if module.startswith("fairpanel.report.")}
    assert not loaded & set(RUN_SIDE)


def test_top_level_help_loads_no_command_module_or_library() -> None:
    loaded = _loaded("--help")
    commands = {module for module, _ in [*_COMMANDS.values(), *_GROUPS.values()]}
    assert not loaded & commands
    assert not _tops(loaded, AUTOGEN + LIBRARIES)
    ours = {module for module in loaded if module.startswith("fairpanel.")}
    # the package's face loads its input-file errors; nothing else of the library
    assert {module.rpartition("._")[0] or module for module in ours} <= {
        "fairpanel.cli",
        "fairpanel.inputs",
    }


def test_top_level_help_lists_what_the_built_commands_say(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The listing read from the source matches the one the imported commands give."""
    group = typer.main.get_command(app)
    context = group.context_class(group, info_name="fairpanel")
    group.get_help(context)
    from_source = capsys.readouterr().out
    for name in [*_COMMANDS, *_GROUPS]:  # build (import) every command, as using each would
        assert group.get_command(context, name) is not None
    group.get_help(context)
    from_commands = capsys.readouterr().out
    assert "label-bias" in from_source
    assert from_source == from_commands
