"""``fairpanel scenarios``: the scenario library by domain, an experiment's own scenarios, and
the library's checks run on a user's files.

``fairpanel scenarios`` and ``fairpanel scenarios FILE`` list (the group's default command), so
the subcommands sit beside the listing without changing how it was called.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table
from typer.core import TyperGroup

from fairpanel.cli._console import EXIT_BAD_INPUT, console, errors, problems_exit
from fairpanel.cli._study_info import study_file, study_scenarios
from fairpanel.inputs import InputFileError
from fairpanel.judging.engine import design_of
from fairpanel.judging.experiment import load_experiment
from fairpanel.run_folder import grow_scenarios
from fairpanel.scenarios import (
    NEAR_DUPLICATE_THRESHOLD,
    BaseScenario,
    load_scenarios,
    near_duplicates,
)
from fairpanel.studies import load_study
from fairpanel.studies.scenario_grow import ScenarioGrowConfig

__all__ = ["scenarios_app"]


class _ListByDefault(TyperGroup):
    """Runs ``list`` when the first word is not a subcommand (a file, an option, nothing)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h")):
            args = ["list", *args]
        return list(super().parse_args(ctx, args))


scenarios_app = typer.Typer(
    cls=_ListByDefault,
    help="The scenario library: list it by domain, or check scenario files against its rules.",
)


def _grow_file_or_exit(path: Path) -> ScenarioGrowConfig:
    """A grow study file, checked at load (a typo names its field and line)."""
    try:
        config = load_study(path)
    except (InputFileError, ValueError) as exc:
        errors.print(str(exc), soft_wrap=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    if not isinstance(config, ScenarioGrowConfig):
        errors.print(f"[bold red]error[/]: {path}: `study:` must be scenario-grow")
        raise typer.Exit(EXIT_BAD_INPUT)
    return config


def _library_or_exit(files: list[Path] | None = None) -> list[BaseScenario]:
    try:
        return load_scenarios(files)
    except InputFileError as exc:
        errors.print(str(exc), soft_wrap=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None


@scenarios_app.command("list")
def list_command(
    experiment: Annotated[
        Path | None,
        typer.Argument(help="Show the scenarios this experiment (or study file) uses"),
    ] = None,
    domain: Annotated[
        list[str] | None,
        typer.Option("--domain", help="Only the bases of this domain (repeat for more)"),
    ] = None,
) -> None:
    """List the base scenarios by domain (or the derived scenarios an experiment uses)."""
    if experiment is not None and (study := study_file(experiment)) is not None:
        study_scenarios(experiment, study)
        return
    if experiment is not None:
        try:
            design = design_of(load_experiment(experiment))
        except InputFileError as exc:
            raise problems_exit(exc) from None
        table = Table(title="Derived scenarios in this experiment")
        table.add_column("id")
        table.add_column("prompt")
        for scenario in design.scenarios:
            table.add_row(scenario.id, scenario.prompt)
        console.print(table)
        return
    bases = _library_or_exit()
    domains = Counter(base.domain for base in bases)
    unknown = sorted(set(domain or ()) - set(domains))
    if unknown:
        errors.print(
            f"[bold red]error[/]: unknown domain {', '.join(map(repr, unknown))}; known: "
            f"{', '.join(sorted(domains))}",
            soft_wrap=True,
        )
        raise typer.Exit(EXIT_BAD_INPUT)
    shown = [b for b in bases if not domain or b.domain in domain]
    shown.sort(key=lambda b: b.domain)  # stable: library order within a domain
    table = Table(
        title=f"{len(bases)} base scenarios in {len(domains)} domains"
        + (f" ({len(shown)} shown)" if domain else "")
    )
    for column in ("domain", "id", "derived", "source", "stereotype probed"):
        table.add_column(column)
    previous = None
    for base in shown:
        source = base.provenance.source if base.provenance else "-"
        if base.provenance and base.provenance.decision_question_id is not None:
            source += f" #{base.provenance.decision_question_id}"
        label = f"{base.domain} ({domains[base.domain]})" if base.domain != previous else ""
        table.add_row(label, base.id, str(len(base.variations)), source, base.stereotype)
        previous = base.domain
    console.print(table)
    console.print(
        "Pick by domain or sample in an experiment: `scenarios: {domains: [...], sample: N}`.",
        soft_wrap=True,
    )


@scenarios_app.command("check")
def check_command(
    files: Annotated[list[Path], typer.Argument(help="Scenario YAML files or folders")],
) -> None:
    """Check scenario files against the library's rules, beside the built-in bases: the three
    placeholders, no identity word outside the label, no near-duplicate of another base."""
    yours = _library_or_exit([*files])
    builtin = [b for b in _library_or_exit() if b.id not in {y.id for y in yours}]
    repeats = near_duplicates(yours, against=builtin)
    for pair in repeats:
        console.print(
            f"{pair.later.id}: near-duplicate of the built-in {pair.earlier.id!r} "
            f"(ROUGE-L F1 {pair.similarity:.2f} >= {NEAR_DUPLICATE_THRESHOLD:.2f})",
            soft_wrap=True,
        )
    if repeats:
        raise typer.Exit(EXIT_BAD_INPUT)
    console.print(
        f"{len(yours)} base scenarios pass, and none repeats one of the "
        f"{len(builtin)} built-in ones."
    )


@scenarios_app.command("grow")
def grow_command(
    out: Annotated[Path, typer.Option("--out", help="Folder for the accepted <id>.yaml files")],
    domain: Annotated[
        str | None, typer.Option("--domain", help="Your domain, in your words")
    ] = None,
    config_file: Annotated[
        Path | None,
        typer.Option(
            "--config",
            help="A `study: scenario-grow` YAML (models with base_url or api_key_env, "
            "sampling); the options below are then read from it",
        ),
    ] = None,
    model: Annotated[str, typer.Option("--model", help="The writer: a model id")] = "mock/grow",
    count: Annotated[int, typer.Option("--count", help="Bases to keep")] = 5,
    critic: Annotated[
        str | None, typer.Option("--critic", help="A model id that reviews each candidate")
    ] = None,
    seed: Annotated[int, typer.Option("--seed")] = 0,
    variations: Annotated[int, typer.Option("--variations", help="Variations per base")] = 10,
    overgenerate: Annotated[
        int, typer.Option("--overgenerate", help="Candidates asked per kept base")
    ] = 2,
    run_dir: Annotated[
        Path | None, typer.Option("--run-dir", help="The run folder (default: <out>.run)")
    ] = None,
) -> None:
    """Have a model write base scenarios for your domain; keep those that pass the library's
    checks (and the critic), write them as <id>.yaml files for `scenarios.files`, and the
    rest with their reasons to <out>.rejected.jsonl. A rerun resumes from the run folder."""
    if config_file is not None:
        config = _grow_file_or_exit(config_file)
    elif domain is None:
        errors.print("[bold red]error[/]: give --domain, or --config with a grow study file")
        raise typer.Exit(EXIT_BAD_INPUT)
    else:
        try:
            config = ScenarioGrowConfig(
                domain=domain,
                count=count,
                seed=seed,
                variations=variations,
                overgenerate=overgenerate,
                writer={"model": model},
                critic={"model": critic} if critic else None,
            )
        except ValueError as exc:
            errors.print(f"[bold red]error[/]: {exc}", soft_wrap=True)
            raise typer.Exit(EXIT_BAD_INPUT) from None
    folder = run_dir or out.with_name(out.name + ".run")
    grown = asyncio.run(grow_scenarios(config, folder, out))
    console.print(
        f"{len(grown.screen.accepted)} of {count} bases kept in {out}; "
        f"{len(grown.screen.rejected)} rejected ({grown.rejected_file}). "
        f"Run folder {folder}; `fairpanel estimate {grown.study_file}` prices it.",
        soft_wrap=True,
    )
