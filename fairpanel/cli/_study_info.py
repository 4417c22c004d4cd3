"""``fairpanel scenarios FILE`` and ``fairpanel personas FILE`` when FILE is a study file.

A study file (a ``study:`` field) is not an experiment, so the experiment loader would refuse
it with "unknown field study". The commands say what the file is instead: the scenarios and
identities the study shows its models when it has them (label-bias and B-score judge pairs,
the award audit's groups), and otherwise which command describes its items.
"""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from fairpanel.cli._console import bad_input, console, problems_exit
from fairpanel.inputs import InputFileError
from fairpanel.studies import STUDIES, PairSource, StudyConfig, load_study, study_name
from fairpanel.studies.award_audit import AwardAuditConfig

__all__ = ["study_file", "study_personas", "study_scenarios"]


def study_file(path: Path) -> StudyConfig | None:
    """The study ``path`` describes, fully checked, or None for a judge-panel experiment;
    exits 2 (each problem with file and line) when the file does not load."""
    try:
        if study_name(path) is None:
            return None
        return load_study(path)
    except InputFileError as exc:
        raise problems_exit(exc) from None


def _pair_sources(config: StudyConfig) -> list[tuple[str, PairSource]]:
    """The study's identity-labelled pair sources (field name, source), in field order."""
    return [
        (name, value)
        for name in type(config).model_fields
        if isinstance(value := getattr(config, name), PairSource)
    ]


def _none_here(path: Path, config: StudyConfig, what: str) -> Exception:
    description = STUDIES[config.study].description
    return bad_input(
        f"{path} is a study file (study: {config.study}: {description}); it shows its "
        f"models no {what}. Use `fairpanel estimate {path}` for its items and calls, or "
        f"`fairpanel schema --study {config.study}` for what the file may say."
    )


def study_scenarios(path: Path, config: StudyConfig) -> None:
    """The derived scenarios of each pair source, or exit 2 saying the study has none."""
    sources = _pair_sources(config)
    if not sources:
        raise _none_here(path, config, "scenarios")
    for field, source in sources:
        table = Table(title=f"Scenarios of {config.study} study `{field}` ({path.name})")
        table.add_column("id")
        table.add_column("prompt")
        for task in source.tasks():
            table.add_row(task.id, task.prompt)
        console.print(table)
    console.print(
        f"{path} is a {config.study} study file; all its items and calls: "
        f"fairpanel estimate {path}",
        highlight=False,
    )


def study_personas(path: Path, config: StudyConfig) -> None:
    """The identities the study compares, or exit 2 saying the study has none."""
    table = Table(title=f"Identities compared in {config.study} study ({path.name})")
    if isinstance(config, AwardAuditConfig):
        groups = config.groups
        names = groups.names_by_label(groups.identity_set())
        for column in ("category", "label", "name cues"):
            table.add_column(column)
        for label in groups.compare:
            table.add_row(groups.category, label, ", ".join(names[label]))
        console.print(table)
        return
    sources = _pair_sources(config)
    if not sources:
        raise _none_here(path, config, "personas (identity labels)")
    for column in ("field", "pair", "label", "shown to the judge as"):
        table.add_column(column)
    for field, source in sources:
        phrases = source.phrases()
        for pair in source.pairs:
            for label in pair:
                table.add_row(field, " vs ".join(pair), label, phrases[label])
    console.print(table)
