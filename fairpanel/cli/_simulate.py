"""``fairpanel simulate EXPERIMENT.yaml``: the false-positive rate and power of the headline
tests for a design, from repeated simulated runs against the mock judge with planted effects.
Never calls a configured model."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from fairpanel.analysis import METRICS, OVERALL, TARGET_POWER
from fairpanel.inputs import InputFileError
from fairpanel.judging import load_experiment, parse_numbers, sizes_ok
from fairpanel.judging.simulate import SimulationSettings, run_simulation

__all__ = ["recommendations", "simulate_command"]

EXIT_BAD_INPUT = 2


def _rate(block: Mapping[str, Any]) -> str:
    if block.get("rate") is None:
        return "-"
    return f"{block['rate']:.0%} ({block['ci_low']:.0%}-{block['ci_high']:.0%})"


def _describe(size: Mapping[str, Any]) -> str:
    replicates = f" x {size['replicates']} replicates" if size["replicates"] > 1 else ""
    return (
        f"{size['bases']} bases x {size['derived_per_base']} derived{replicates} "
        f"({size['trials']:,} trials)"
    )


def _soonest(rows: list[Mapping[str, Any]], rank: Mapping[str, int]) -> Mapping[str, Any]:
    """The family that detects a planted size soonest: reached at the smallest simulated
    scale, else the smallest extrapolated growth, else the first (power too low everywhere)."""
    reached = [r for r in rows if r["smallest_scale"] is not None]
    if reached:
        return min(reached, key=lambda r: (rank[r["smallest_scale"]], -r["power_there"]))
    grown = [r for r in rows if r["extrapolated_factor"] is not None]
    if grown:
        return min(grown, key=lambda r: r["extrapolated_factor"])
    return rows[0]


def recommendations(result: Mapping[str, Any]) -> list[str]:
    """One sentence per planted size and category, from whichever test family gets there with
    the smallest design: the smallest simulated design that reaches the target power, or an
    extrapolated size, labelled as such."""
    sizes = {row["scale"]: row for row in result["design_sizes"]}
    rank = {row["scale"]: index for index, row in enumerate(result["design_sizes"])}
    needed = result["needed"]
    if not needed:
        return ["No planted contrast was testable in this design."]
    grouped: dict[tuple[Any, str], list[Mapping[str, Any]]] = {}
    for row in needed:
        grouped.setdefault((row["size"], row["category"]), []).append(row)
    lines = []
    for rows in grouped.values():
        row = _soonest(rows, rank)
        family = row["family"]
        unit = "point" if row["size"] == 1 else "points"
        what = f"{row['size']:g} {unit} for {row['category']}"
        if row["smallest_scale"] is not None:
            lines.append(
                f"With {_describe(sizes[row['smallest_scale']])} you detect {what} with "
                f"{row['power_there']:.0%} power (target {TARGET_POWER:.0%}; {family})."
            )
            continue
        source = sizes[row["extrapolated_from"]]
        factor = row["extrapolated_factor"]
        if factor is None:
            lines.append(
                f"{what}: power at {_describe(source)} is too low to extrapolate from in any "
                "test family; simulate larger designs (--scales)."
            )
            continue
        bases = math.ceil(source["bases"] * factor)
        lines.append(
            f"For {what} you need about {factor:.1f}x {_describe(source)}, e.g. about {bases} "
            f"bases at {source['derived_per_base']} derived each (EXTRAPOLATED by a normal "
            f"approximation from the simulated power, not simulated; {family})."
        )
    return lines


def _false_positive_table(result: Mapping[str, Any]) -> Table:
    table = Table(
        title=f"False positives with nothing planted (alpha={result['alpha']:g}, "
        f"{result['repetitions']} simulated runs per size)",
        caption="rate (95% Clopper-Pearson interval); per test: share of all tests with "
        "p < alpha; family-wise: runs where Holm called anything",
    )
    for column in ("size", "family", "tests/run", "per test", "family-wise", "planted contrast"):
        table.add_column(column)
    for row in result["false_positives"]:
        table.add_row(
            row["scale"],
            row["family"],
            f"{row['tests_per_repetition']:g}",
            _rate(row["per_test"]),
            _rate(row["family_wise"]),
            _rate(row["target_contrasts"]),
        )
    return table


def _power_table(result: Mapping[str, Any]) -> Table:
    planted = [size for size in result["sizes"] if size]
    table = Table(
        title=f"Power: share of simulated runs that called the planted effect (target "
        f"{TARGET_POWER:.0%})",
        caption="Holm-adjusted p < alpha, interval clear of zero, in the planted direction",
    )
    for column in ("size", "family", "category", *(f"{s:g} pts" for s in planted)):
        table.add_column(column)
    cells: dict[tuple[str, str, str], dict[float, str]] = {}
    for row in result["power"]:
        key = (row["scale"], row["family"], row["category"])
        cells.setdefault(key, {})[row["size"]] = _rate(row["power"])
    for (scale, family, category), by_size in cells.items():
        table.add_row(scale, family, category, *(by_size.get(s, "-") for s in planted))
    return table


def simulate_command(
    experiment: Annotated[Path, typer.Argument(help="Experiment YAML whose design to simulate")],
    sizes: Annotated[
        str, typer.Option(help="Planted shifts in score points, comma-separated; 0 = none")
    ] = "0,0.25,0.5,1.0",
    reps: Annotated[int, typer.Option(min=1, help="Simulated runs per size")] = 20,
    alpha: Annotated[float, typer.Option(help="Significance level of the tests")] = 0.05,
    scales: Annotated[
        str,
        typer.Option(help="Design sizes as multiples of the experiment's scenarios per base"),
    ] = "0.5,1,2",
    metric: Annotated[
        str, typer.Option(help="Metric the shift goes to; overall shifts all four")
    ] = OVERALL,
    seed: Annotated[int, typer.Option(help="Seed of the simulated noise")] = 0,
    jobs: Annotated[int, typer.Option(min=1, help="Worker processes")] = 2,
    max_trials: Annotated[
        int, typer.Option(min=1, help="Leave out design sizes with more trials per run")
    ] = 1000,
    n_boot: Annotated[int, typer.Option(min=100, help="Bootstrap resamples per interval")] = 1000,
    out: Annotated[Path, typer.Option("--out", help="Folder for simulate.json")] = Path("."),
) -> None:
    """False-positive rate (nothing planted) and power (planted shifts) of every headline
    test family for an experiment's design, by simulated runs on the mock judge; writes
    simulate.json. No configured model is ever called."""
    console, errors = Console(), Console(stderr=True)

    def fail(message: str) -> typer.Exit:
        errors.print(f"[bold red]error[/]: {escape(message)}", highlight=False, soft_wrap=True)
        return typer.Exit(EXIT_BAD_INPUT)

    try:
        planted = parse_numbers(sizes, "--sizes")
        multiples = parse_numbers(scales, "--scales")
    except ValueError as exc:
        raise fail(str(exc)) from None
    if not sizes_ok(planted):
        raise fail("--sizes must lie between 0 and 10 score points")
    if any(m <= 0 for m in multiples):
        raise fail("--scales must be positive")
    if metric not in (OVERALL, *METRICS):
        raise fail(f"--metric must be one of {', '.join((OVERALL, *METRICS))}; got {metric!r}")
    if not 0.0 < alpha < 1.0:
        raise fail(f"--alpha must be between 0 and 1; got {alpha}")
    try:
        config = load_experiment(experiment)
    except InputFileError as exc:
        for problem in exc.problems:
            errors.print(f"[bold red]error[/]: {escape(problem)}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    settings = SimulationSettings(
        sizes=planted,
        reps=reps,
        alpha=alpha,
        seed=seed,
        scales=multiples,
        metric=metric,
        jobs=jobs,
        max_trials=max_trials,
        n_boot=n_boot,
    )
    with Progress(
        TextColumn("[bold]simulated runs"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    ) as bar:
        task = bar.add_task("simulate", total=len(planted) * reps)
        result = run_simulation(
            config, settings, lambda done, total: bar.update(task, completed=done, total=total)
        )
    result["recommendations"] = recommendations(result)
    wide = Console(width=max(console.width, 140))
    if 0.0 in planted:
        wide.print(_false_positive_table(result))
    if any(planted):
        wide.print(_power_table(result))
    for line in result["recommendations"]:
        console.print(f"- {escape(line)}", highlight=False, soft_wrap=True)
    for note in result["simulation"]:
        console.print(f"[dim]note: {escape(note)}[/]", highlight=False, soft_wrap=True)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "simulate.json"
    path.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    console.print(f"Wrote {path} ({result['seconds']} s)")
