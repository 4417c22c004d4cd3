"""`fairpanel scenarios FILE` and `fairpanel personas FILE` on study files and experiments:
what the study shows its models, or what the file is and which command describes it. No model
is called; every check reads the example files."""

from __future__ import annotations

from pathlib import Path

from conftest import Cli, WriteExperiment
from helpers.paths import EXAMPLES

from fairpanel.studies import load_study
from fairpanel.studies.label_bias import LabelBiasConfig


def _text(result: object) -> str:
    """The command's output with rich's line wrapping undone."""
    return " ".join(str(getattr(result, "output", "")).split())


def test_scenarios_of_a_study_file_are_those_of_its_pairs(cli: Cli) -> None:
    config = load_study(EXAMPLES / "label-bias.yaml")
    assert isinstance(config, LabelBiasConfig)
    ids = [task.id for task in config.pairs.tasks()]
    result = cli("scenarios", str(EXAMPLES / "label-bias.yaml"))
    assert result.exit_code == 0, result.output
    assert "unknown field" not in result.output
    assert "label-bias study `pairs`" in _text(result)
    assert all(f"│ {id_} " in result.output for id_ in ids)
    # The B-score example judges pairs on three bases: those, and no other scenario.
    bscore = cli("scenarios", str(EXAMPLES / "bscore.yaml"))
    assert bscore.exit_code == 0, bscore.output
    assert "bscore study `judge_pairs`" in _text(bscore)
    for base in ("salary-negotiation", "nursing-care-plan", "team-restructuring"):
        assert f"{base}/01" in bscore.output
    assert ids[0] not in bscore.output and "fitness-coaching" not in bscore.output


def test_a_study_without_scenarios_or_personas_says_what_the_file_is(cli: Cli) -> None:
    path = EXAMPLES / "biasfreebench.yaml"
    for command, missing in (("scenarios", "scenarios"), ("personas", "personas")):
        result = cli(command, str(path))
        text = _text(result)
        assert result.exit_code == 2, text
        assert "unknown field" not in text
        assert f"{path} is a study file (study: biasfreebench: BBQ ambiguous items" in text
        assert f"it shows its models no {missing}" in text
        assert f"Use `fairpanel estimate {path}`" in text
        assert "`fairpanel schema --study biasfreebench`" in text
    award = cli("scenarios", str(EXAMPLES / "award-audit.yaml"))
    assert award.exit_code == 2 and "(study: award-audit:" in _text(award)


def test_personas_of_study_files_are_the_identities_they_compare(cli: Cli) -> None:
    award = cli("personas", str(EXAMPLES / "award-audit.yaml"))
    assert award.exit_code == 0, award.output
    text = _text(award)
    assert "race │ Black │ Lakisha, Latoya, Imani, Ebony" in text
    assert "race │ White │ Emily, Claire, Molly, Katie" in text
    assert "domain_expert" not in text  # no judge personas in an award audit
    label = cli("personas", str(EXAMPLES / "label-bias.yaml"))
    assert label.exit_code == 0, label.output
    text = _text(label)
    assert "pairs │ female vs male │ female │ a female" in text
    assert "pairs │ female vs male │ male │ a male" in text


def test_personas_of_an_experiment_are_those_it_uses(
    cli: Cli, write_experiment: WriteExperiment
) -> None:
    path = write_experiment(
        """\
        models: {judge: {id: mock/judge}}
        responder: {model: mock/responder}
        panel: {judges: [domain_expert, clarity_editor], model: judge}
        identities: {categories: [gender]}
        """
    )
    result = cli("personas", str(path))
    assert result.exit_code == 0, result.output
    for word in ("female", "domain_expert", "clarity_editor"):
        assert word in result.output
    for word in ("Hispanic", "Atheist", "reliability_auditor"):
        assert word not in result.output
    everything = cli("personas")
    assert "Hispanic" in everything.output and "reliability_auditor" in everything.output


def test_a_broken_study_file_fails_with_file_and_line(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("study: biasfreebench\nage_target: younger\n", encoding="utf-8")
    for command in ("scenarios", "personas"):
        result = cli(command, str(path))
        assert result.exit_code == 2
        assert f"{path}:2" in _text(result) and "age_target" in result.output
