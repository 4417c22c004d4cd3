"""Experiments that compare panels: the file's forms, the trials they design, and the errors a
typo in one panel gives (file, line, field) before any call."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import Cli, WriteExperiment

from fairpanel import InputFileError
from fairpanel.judging import load_experiment
from fairpanel.judging.engine import design_of

PANELS = """\
name: panels
models:
  fair: {id: mock/judge}
  biased:
    id: mock/judge
    mock: {score_shift: {female: {creativity: 1.0}}}
panels:
  fair:
    judges: [domain_expert, clarity_editor]
    model: fair
  biased:
    judges: [domain_expert, clarity_editor]
    model: biased
    answer_format: text
responder:
  model: mock/responder
scenarios:
  bases: [fitness-coaching]
  derived_per_base: 2
identities:
  categories: [gender]
"""


def _problems(path: Path) -> str:
    with pytest.raises(InputFileError) as caught:
        load_experiment(path)
    return str(caught.value)


def _unit(spec_dump: dict[str, object]) -> tuple[object, ...]:
    """What a trial shows, without who judges it."""
    own = {"panel", "seats", "answer_format", "moderator"}
    return tuple(sorted((k, repr(v)) for k, v in spec_dump.items() if k not in own))


def test_every_panel_judges_the_same_units(write_experiment: WriteExperiment) -> None:
    config = load_experiment(write_experiment(PANELS))
    trials = list(design_of(config).trials())
    by_panel: dict[str | None, list[tuple[object, ...]]] = {}
    for spec in trials:
        by_panel.setdefault(spec.panel, []).append(_unit(spec.model_dump()))
    assert set(by_panel) == {"fair", "biased"}
    assert Counter(by_panel["fair"]) == Counter(by_panel["biased"])
    assert len(by_panel["fair"]) > 0
    keys = [spec.key() for spec in trials]
    assert len(set(keys)) == len(keys)  # the panel's name keeps the trials apart
    formats = {spec.panel: spec.answer_format for spec in trials}
    assert formats == {"fair": "json", "biased": "text"}


def test_panel_models_shorthand_is_the_panel_once_per_model(
    write_experiment: WriteExperiment,
) -> None:
    text = PANELS.split("panels:")[0] + (
        "panel:\n  judges: [domain_expert, {persona: clarity_editor, model: fair}]\n"
        "  model: fair\npanel_models: [fair, biased]\n" + PANELS.split("answer_format: text\n")[1]
    )
    config = load_experiment(write_experiment(text))
    items = dict(config.panel_items())
    assert list(items) == ["fair", "biased"]
    # The seat that named its own model is given the panel's model too.
    assert {seat.model for seat in items["biased"].seats()} == {"biased"}
    models = {
        spec.panel: {seat.model for seat in spec.seats} for spec in design_of(config).trials()
    }
    assert models == {"fair": {"fair"}, "biased": {"biased"}}


def test_one_panel_keeps_its_trial_keys(write_experiment: WriteExperiment) -> None:
    """A single-panel file names no panel in its trials, so runs made before panels existed
    resume without repeating a call."""
    single = PANELS.replace("panels:\n  fair:\n", "panel:\n").split("  biased:\n    judges")[0]
    single += PANELS.split("answer_format: text\n")[1]
    config = load_experiment(write_experiment(single))
    spec = next(iter(design_of(config).trials()))
    assert spec.panel is None and spec.answer_format == "json"
    dumped = spec.model_dump(mode="json")
    assert spec.key() == spec.model_copy(update={"panel": None}).key()
    assert spec.key() != spec.model_copy(update={"panel": "fair"}).key()
    assert spec.key() != spec.model_copy(update={"answer_format": "text"}).key()
    assert "panel" in dumped  # the model has the field; the key leaves it out at its default


@pytest.mark.parametrize(
    ("old", "new", "where", "words"),
    [
        ("    model: biased\n", "    model: biassed\n", "panels.biased.model:13", "biassed"),
        (
            "    judges: [domain_expert, clarity_editor]\n    model: biased\n",
            "    judges: [domain_expert, clarity_editr]\n    model: biased\n",
            "panels.biased.judges[1]:12",
            "clarity_editr",
        ),
        ("  biased:\n    judges", "  fair:\n    judges", "", "duplicate"),
        (
            "    answer_format: text\n",
            "    answer_format: xml\n",
            "panels.biased.answer_format:14",
            "'json' or 'text'",
        ),
        ("panels:\n", "panel:\n  judges: [domain_expert]\npanels:\n", "panels", "not both"),
    ],
)
def test_bad_panels_name_the_field_and_line(
    write_experiment: WriteExperiment, old: str, new: str, where: str, words: str
) -> None:
    assert old in PANELS
    path = write_experiment(PANELS.replace(old, new, 1))
    message = _problems(path)
    field, _, line = where.partition(":")
    if line:
        assert f"{path}:{line}: {field}" in message, message
    else:
        assert field in message, message
    assert words in message, message


def test_duplicate_panel_models_and_missing_panel(write_experiment: WriteExperiment) -> None:
    base = PANELS.split("panels:")[0] + PANELS.split("answer_format: text\n")[1]
    twice = base + "panel:\n  judges: [domain_expert]\npanel_models: [fair, biased, fair]\n"
    message = _problems(write_experiment(twice))
    assert "panel_models[2]" in message and "twice" in message, message
    assert "needs a `panel`" in _problems(write_experiment(base))


def test_cli_refuses_a_bad_panel_before_any_call(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    path = write_experiment(PANELS.replace("    model: biased\n", "    model: nope/\n", 1))
    out = tmp_path / "run"
    result = cli("run", str(path), "--out", str(out))
    assert result.exit_code == 2, result.output
    assert "panels.biased.model" in result.output and ":13:" in result.output
    assert not out.exists()
