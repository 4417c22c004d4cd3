"""``fairpanel schema`` and ``fairpanel personas``: what a file may say and which identities and
judges the built-in data holds (``fairpanel scenarios`` lives in ``_scenarios``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from fairpanel.cli._console import EXIT_BAD_INPUT, console, errors, problems_exit
from fairpanel.cli._study_info import study_file, study_personas
from fairpanel.inputs import InputFileError
from fairpanel.judging.engine import design_of
from fairpanel.judging.experiment import ExperimentConfig, load_experiment
from fairpanel.personas import load_identities, load_judge_personas
from fairpanel.run_folder import UnknownStudyError, config_schema

__all__ = ["personas_command", "schema_command"]


def schema_command(
    study: Annotated[
        str | None, typer.Option("--study", help="A study name: the schema of its study files")
    ] = None,
) -> None:
    """Print the JSON Schema of experiment files (or of one study's files)."""
    try:
        schema = config_schema(study)
    except UnknownStudyError as exc:
        errors.print(f"[bold red]error[/]: {exc}")
        raise typer.Exit(EXIT_BAD_INPUT) from None
    typer.echo(json.dumps(schema, indent=2))


def _load_experiment_or_exit(path: Path) -> ExperimentConfig:
    try:
        return load_experiment(path)
    except InputFileError as exc:
        raise problems_exit(exc) from None


def personas_command(
    experiment: Annotated[
        Path | None,
        typer.Argument(help="Show the identities and judges this experiment (or study file) uses"),
    ] = None,
) -> None:
    """List identities (by category) and judge personas."""
    if experiment is not None and (study := study_file(experiment)) is not None:
        study_personas(experiment, study)
        return
    if experiment is not None:
        design = design_of(_load_experiment_or_exit(experiment))
        identities, personas = design.identities, list(design.personas.values())
        categories = set(design.config.identities.categories)
        seated = {
            seat.persona for _, panel in design.config.panel_items() for seat in panel.seats()
        }
        personas = [p for p in personas if p.name in seated]
    else:
        identities, personas = load_identities(), load_judge_personas()
        categories = {category.name for category in identities.categories}
    table = Table(title="Identities")
    for column in ("category", "label", "explicit label", "name cues"):
        table.add_column(column)
    for category in identities.categories:
        if category.name not in categories:
            continue
        for identity in category.identities:
            table.add_row(
                category.name, identity.label, identity.explicit, ", ".join(identity.names[:4])
            )
    console.print(table)
    judges = Table(title="Judge personas")
    for column in ("name", "title", "responsibility"):
        judges.add_column(column)
    for persona in personas:
        judges.add_row(persona.name, persona.title, persona.responsibility)
    console.print(judges)
