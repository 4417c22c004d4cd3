"""``fairpanel estimate``: an experiment's or study's trials, calls, tokens, cost and time before
any call; and ``--pilot RUN_DIR`` (also of ``fairpanel simulate``): the design a finished pilot
run's variance components call for, and its calls and cost.

The simulation side is reached through its package face at call time, so a plain estimate loads
neither the statistics nor the analysis."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from fairpanel.analysis.calibration import RECOMMEND_SIZE
from fairpanel.cli._console import FILE_HELP, bad_input, console, load_or_exit
from fairpanel.cli._run_tables import plan_table
from fairpanel.judging import simulate as simulation
from fairpanel.judging.experiment import ExperimentConfig
from fairpanel.judging.store import BadRunFolderError
from fairpanel.run_folder import estimate
from fairpanel.studies import StudyConfig

__all__ = ["estimate_command", "print_pilot_plan", "run_pilot_plan"]


def _number(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.3g}"


def _components_table(plan: Mapping[str, Any]) -> Table:
    pilot = plan["pilot"]
    table = Table(
        title=f"Variance components of the primary contrasts (pilot {pilot['name']}: "
        f"{pilot['bases']} bases x {pilot['derived_per_base']:g} derived x "
        f"{pilot['replicates']} replicates)",
        caption="sigma_b: sd of a contrast's true base means; sigma_w: sd of one unit's "
        "contrast within its base; k: units per base; s_D: the sd of the base means the t test "
        "divides by (sqrt(sigma_b^2 + sigma_w^2/k) expected, observed shown); between share: "
        "sigma_b^2 / s_D^2, what more units per base cannot remove",
    )
    for column in ("protocol", "contrast", "bases", "k", "sigma_b", "sigma_w", "s_D"):
        table.add_column(column)
    table.add_column("between share")
    for row in plan["components"]:
        share = row["between_share"]
        table.add_row(
            row["protocol"],
            f"{row['category']}: {row['contrast']}" if row["category"] else row["contrast"],
            str(row["bases"]),
            _number(row["units_per_base"]),
            _number(row["between_sd"]),
            _number(row["within_sd"]),
            _number(row["base_means_sd"]),
            "-" if share is None else f"{share:.0%}",
        )
    return table


def _designs_table(plan: Mapping[str, Any]) -> Table:
    targets = plan["targets"]
    table = Table(
        title=f"Bases needed for {plan['power']:.0%} power, one replicate, by derived scenarios "
        f"per base (alpha {plan['alpha_per_test']:.2g} per test)",
        caption=f"the library has {plan['library_bases']} base scenarios with "
        f"{plan['available_derived_per_base']} derived each",
    )
    table.add_column("derived")
    for protocol in targets:
        table.add_column(f"s_D {protocol}")
    table.add_column("bases")
    table.add_column("trials x")
    for row in plan["by_derived"]:
        table.add_row(
            str(row["derived_per_base"]),
            *(_number(row["spread"][protocol]) for protocol in targets),
            "-" if row["bases"] is None else str(row["bases"]),
            "-" if row["bases"] is None else str(row["bases"] * row["derived_per_base"]),
        )
    return table


def print_pilot_plan(plan: Mapping[str, Any]) -> None:
    """The components, the bases each design needs, the recommendation and its estimate."""
    console.print(_components_table(plan))
    console.print(_designs_table(plan))
    for line in plan["lines"]:
        console.print(f"- {escape(line)}", highlight=False, soft_wrap=True)
    estimate = plan["estimate"]
    console.print(plan_table(estimate))
    for note in estimate["notes"]:
        console.print(f"[dim]{escape(note)}[/]", highlight=False, soft_wrap=True)


def run_pilot_plan(
    config: ExperimentConfig,
    pilot_dir: Path,
    *,
    target: float = RECOMMEND_SIZE,
    pair_target: float | None = None,
    alpha: float = 0.05,
    out: Path | None = None,
) -> None:
    """Plan from ``pilot_dir``, print it and (with ``out``) write pilot-plan.json; a folder that
    is not a finished run, or a pilot without the planned protocol, is bad input."""
    targets: dict[str, float] = {
        protocol: shift
        for protocol, shift in (("single", target), ("pair", pair_target))
        if protocol in config.protocols and shift is not None
    }
    if not targets:
        raise bad_input(
            "the experiment has no single protocol, so --target (score points) plans nothing; "
            "give --pair-target (win share above 0.5)"
        )
    try:
        plan = simulation.pilot_plan(config, simulation.read_pilot(pilot_dir), targets, alpha=alpha)
    except (BadRunFolderError, ValueError) as exc:
        raise bad_input(f"--pilot: {exc}") from None
    print_pilot_plan(plan)
    if out is not None:
        path = simulation.write_simulation(plan, out, simulation.PILOT_PLAN_FILE)
        console.print(f"Wrote {path}")


def estimate_command(
    experiment: Annotated[Path | None, typer.Argument(help=FILE_HELP)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables")] = False,
    pilot: Annotated[
        Path | None,
        typer.Option(
            help="A finished pilot run's folder: estimate the design its variance components "
            "call for, to find a 0.25-point shift with 80% power (see `fairpanel simulate "
            "--pilot` for the options)",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Trials, calls, tokens, cost and time of an experiment, without calling a model; with
    --pilot, of the design a pilot run calls for."""
    config = load_or_exit(experiment)
    if pilot is not None:
        if isinstance(config, StudyConfig):
            raise bad_input("--pilot plans judge-panel experiments, not studies")
        run_pilot_plan(config, pilot)
        return
    plan = estimate(config).as_dict()
    if as_json:
        typer.echo(json.dumps(plan, indent=2))
        return
    console.print(plan_table(plan))
    for note in plan["notes"]:
        console.print(f"[dim]{note}[/]")
