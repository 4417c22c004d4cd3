"""``fairpanel simulate EXPERIMENT.yaml``: the false-positive rate and power of the headline
tests for a design, from repeated simulated runs against the mock judge with planted effects.
Never calls a configured model."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from fairpanel.analysis import METRICS, OVERALL, TARGET_POWER
from fairpanel.analysis.calibration import RECOMMEND_SIZE
from fairpanel.cli._console import bad_input, console, problems_exit, stage_progress
from fairpanel.cli._estimate import run_pilot_plan
from fairpanel.inputs import InputFileError
from fairpanel.judging.experiment import load_experiment
from fairpanel.judging.simulate import (
    DEFAULT_EFFECTS,
    JudgeEffects,
    SimulationSettings,
    parse_numbers,
    run_simulation,
    sizes_ok,
    write_simulation,
)

__all__ = ["simulate_command"]

_STAGE = "simulated runs"


def _rate(block: Mapping[str, Any] | None, digits: int = 0) -> str:
    if not block or block.get("rate") is None:
        return "-"
    return (
        f"{block['rate']:.{digits}%} "
        f"({block['ci_low'] * 100:.{digits}f}-{block['ci_high'] * 100:.{digits}f})"
    )


def _trials(result: Mapping[str, Any]) -> dict[str, str]:
    return {row["scale"]: f"{row['trials']:,}" for row in result["design_sizes"]}


def _false_positive_table(result: Mapping[str, Any]) -> Table:
    table = Table(
        title=f"Headline with nothing planted ({result['repetitions']} runs per size, "
        f"alpha={result['alpha']:g})",
        caption="share of runs that called it (exact 95% interval); no verdict: runs "
        "too small to call anything",
    )
    for column in ("size", "trials", "identity effect", "no verdict", "position bias"):
        table.add_column(column)
    trials = _trials(result)
    for row in result["false_positives"]:
        table.add_row(
            row["scale"],
            trials.get(row["scale"], "-"),
            _rate(row["identity_effect"], 1),
            str(row["identity_no_verdict"]),
            _position_cell(row),
        )
    return table


def _position_cell(row: Mapping[str, Any]) -> str:
    if row["position_bias"] is None:
        return "planted"
    if row["position_no_verdict"] == row["runs"]:
        return "no verdict"
    return _rate(row["position_bias"], 1)


def _power_table(result: Mapping[str, Any]) -> Table:
    planted = [size for size in result["sizes"] if size]
    table = Table(
        title=f"Power: runs calling the planted identity favoured (target {TARGET_POWER:.0%})",
        caption="a primary contrast called it, in the planted direction (exact 95% interval)",
    )
    for column in ("size", "category", *(f"{s:g} pts" for s in planted)):
        table.add_column(column)
    cells: dict[tuple[str, str], dict[float, str]] = {}
    for row in result["power"]:
        key = (row["scale"], row["category"])
        cells.setdefault(key, {})[row["size"]] = _rate(row["power"])
    for (scale, category), by_size in cells.items():
        table.add_row(scale, category, *(by_size.get(s, "-") for s in planted))
    return table


def _mde_check_table(result: Mapping[str, Any]) -> Table | None:
    """The stated minimum detectable effect beside the shift simulation finds in 80% of runs."""
    rows = result.get("mde_check") or []
    if not rows:
        return None
    table = Table(
        title="What a run says it could have seen, checked",
        caption="stated: median mde of the planted contrast (single protocol); simulated: the "
        "shift that contrast finds in 80% of runs; agrees within 20%",
    )
    for column in ("size", "category", "stated", "simulated", "agrees"):
        table.add_column(column)
    for row in rows:
        stated, simulated = row["stated_mde"], row["simulated_shift"]
        agrees = {True: "yes", False: "NO"}.get(row["agrees"], row["note"] or "-")
        table.add_row(
            row["scale"],
            row["category"],
            "-" if stated is None else f"{stated:.2f}",
            "-" if simulated is None else f"{simulated:.2f}",
            agrees,
        )
    return table


def _panel_false_positive_table(result: Mapping[str, Any]) -> Table:
    block = result["panel_comparison"]
    table = Table(
        title=f"Panels with equal bias: runs calling a difference ({result['repetitions']} "
        f"runs per size, alpha={result['alpha']:g})",
        caption="paired: the run's own panel comparison; independent: each panel's estimates "
        "compared as `fairpanel compare` does; agreement: the paired analysis called an "
        "agreement difference (each panel has its own judges: no false call); trials per panel",
    )
    for column in ("size", "trials", "paired", "independent", "agreement"):
        table.add_column(column)
    trials = _trials(result)
    for row in block["false_positives"]:
        table.add_row(
            row["scale"],
            trials.get(row["scale"], "-"),
            _rate(row["paired"], 1),
            _rate(row["independent"], 1),
            _rate(row["agreement_called"], 1),
        )
    return table


def _panel_power_table(result: Mapping[str, Any]) -> Table:
    block = result["panel_comparison"]
    table = Table(
        title=f"Separating {block['b']} from {block['a']}: runs calling the planted difference "
        f"(target {TARGET_POWER:.0%})",
        caption="difference: points planted on one identity per category in panel b only; "
        "called on a primary contrast, in the planted direction (exact 95% interval)",
    )
    for column in ("size", "difference", "category", "paired", "independent"):
        table.add_column(column)
    for row in block["power"]:
        table.add_row(
            row["scale"],
            f"{row['size']:g} pts",
            row["category"],
            _rate(row["paired"]),
            _rate(row["independent"]),
        )
    return table


def simulate_command(
    experiment: Annotated[Path, typer.Argument(help="Experiment YAML whose design to simulate")],
    sizes: Annotated[
        str, typer.Option(help="Planted shifts in score points, comma-separated; 0 = none")
    ] = "0,0.25,0.5,1.0",
    reps: Annotated[int, typer.Option(min=1, help="Simulated runs per size")] = 200,
    alpha: Annotated[float, typer.Option(help="Significance level of the tests")] = 0.05,
    scales: Annotated[
        str,
        typer.Option(help="Design sizes as multiples of the experiment's scenarios per base"),
    ] = "0.5,1,2",
    metric: Annotated[
        str, typer.Option(help="Metric the shift goes to; overall shifts all four")
    ] = OVERALL,
    seed: Annotated[int, typer.Option(help="Seed of the simulated noise")] = 0,
    first_position: Annotated[
        float,
        typer.Option(
            min=-1.0,
            max=1.0,
            help="Planted first-position share of pair verdicts (negative: second position)",
        ),
    ] = 0.0,
    label_base_sd: Annotated[
        float,
        typer.Option(min=0.0, help="SD (points) of each identity's preference per base scenario"),
    ] = DEFAULT_EFFECTS.label_base_sd,
    position_base_sd: Annotated[
        float,
        typer.Option(min=0.0, help="SD of the first-position share per base scenario"),
    ] = DEFAULT_EFFECTS.position_base_sd,
    leniency_sd: Annotated[
        float, typer.Option(min=0.0, max=5.0, help="SD (points) of each judge's leniency")
    ] = DEFAULT_EFFECTS.judge_leniency_sd,
    halo_sd: Annotated[
        float,
        typer.Option(min=0.0, max=5.0, help="SD (points) of a judgment's shift on all metrics"),
    ] = DEFAULT_EFFECTS.halo_sd,
    trial_noise_sd: Annotated[
        float,
        typer.Option(min=0.0, max=5.0, help="SD (points) of noise all judges of a trial share"),
    ] = DEFAULT_EFFECTS.trial_noise_sd,
    noise: Annotated[
        int, typer.Option(min=0, max=5, help="Uniform integer noise per score, +-this")
    ] = 1,
    jobs: Annotated[int, typer.Option(min=1, help="Worker processes")] = 2,
    engine: Annotated[
        str,
        typer.Option(
            help="panel: judges drawn from the random-effects model (fast); mock: every "
            "judgment asked of the mock provider (slow, the real request and parsing path)"
        ),
    ] = "panel",
    max_trials: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Leave out design sizes with more trials per run "
            "[default: 50000 with the panel engine, 1000 with the mock]",
            show_default=False,
        ),
    ] = None,
    panels: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=8,
            help="Panels judging the same trials; 2 or more adds the panel comparison "
            "[default: as many as the experiment has]",
            show_default=False,
        ),
    ] = None,
    panel_correlation: Annotated[
        float,
        typer.Option(
            min=0.0,
            max=1.0,
            help="Correlation between panels of each base scenario's label and position pulls",
        ),
    ] = 0.5,
    out: Annotated[Path, typer.Option("--out", help="Folder for simulate.json")] = Path("."),
    pilot: Annotated[
        Path | None,
        typer.Option(
            help="A finished pilot run's folder: instead of simulating, estimate its primary "
            "contrasts' between- and within-base variance and recommend bases, derived "
            "scenarios and replicates for --target (writes pilot-plan.json)",
            show_default=False,
        ),
    ] = None,
    target: Annotated[
        float,
        typer.Option(min=0.0, help="With --pilot: the shift (score points) to find"),
    ] = RECOMMEND_SIZE,
    pair_target: Annotated[
        float | None,
        typer.Option(
            min=0.0,
            max=0.5,
            help="With --pilot: also plan the pair protocol for this label-swap shift "
            "(win share above 0.5)",
            show_default=False,
        ),
    ] = None,
) -> None:
    """The headline's false-positive rate (identity verdict and position claim, nothing planted)
    and its power to call planted shifts, for an experiment's design, by simulated runs on the
    mock judge with judge-, judgment-, trial- and scenario-level random effects; recommends the
    design size that calls a 0.25-point shift in 80% of runs (with --pilot: the design a
    finished pilot run's variance components call for, no simulation). With two panels or more (an
    experiment that compares panels, or --panels), also the power to tell two panels apart by
    the paired analysis and by an independent comparison, on the same simulated runs. Writes
    simulate.json. No configured model is ever called."""
    try:
        planted = parse_numbers(sizes, "--sizes")
        multiples = parse_numbers(scales, "--scales")
    except ValueError as exc:
        raise bad_input(str(exc)) from None
    if not sizes_ok(planted):
        raise bad_input("--sizes must lie between 0 and 10 score points")
    if any(m <= 0 for m in multiples):
        raise bad_input("--scales must be positive")
    if metric not in (OVERALL, *METRICS):
        raise bad_input(f"--metric must be one of {', '.join((OVERALL, *METRICS))}; got {metric!r}")
    if not 0.0 < alpha < 1.0:
        raise bad_input(f"--alpha must be between 0 and 1; got {alpha}")
    if engine not in ("panel", "mock"):
        raise bad_input(f"--engine must be panel or mock; got {engine!r}")
    try:
        config = load_experiment(experiment)
    except InputFileError as exc:
        raise problems_exit(exc) from None
    if pilot is not None:
        run_pilot_plan(config, pilot, target=target, pair_target=pair_target, alpha=alpha, out=out)
        return
    settings = SimulationSettings(
        sizes=planted,
        reps=reps,
        alpha=alpha,
        seed=seed,
        scales=multiples,
        metric=metric,
        noise=noise,
        first_position_bias=first_position,
        effects=JudgeEffects(
            label_base_sd=label_base_sd,
            position_base_sd=position_base_sd,
            judge_leniency_sd=leniency_sd,
            halo_sd=halo_sd,
            trial_noise_sd=trial_noise_sd,
        ),
        jobs=jobs,
        max_trials=max_trials or (50_000 if engine == "panel" else 1000),
        engine=engine,
        panels=panels,
        panel_correlation=panel_correlation,
    )
    with stage_progress() as advance:
        advance(_STAGE, 0, len(planted) * reps)
        result = run_simulation(config, settings, lambda done, total: advance(_STAGE, done, total))
    if 0.0 in planted:
        console.print(_false_positive_table(result))
    if any(planted):
        console.print(_power_table(result))
        checked = _mde_check_table(result)
        if checked is not None:
            console.print(checked)
    lines = list(result["recommendations"])
    if "panel_comparison" in result:
        if 0.0 in planted:
            console.print(_panel_false_positive_table(result))
        if any(planted):
            console.print(_panel_power_table(result))
        lines += result["panel_comparison"]["recommendations"]
    for line in lines:
        console.print(f"- {escape(line)}", highlight=False, soft_wrap=True)
    for note in [*result["simulation"], *result.get("panel_comparison", {}).get("notes", [])]:
        console.print(f"[dim]note: {escape(note)}[/]", highlight=False, soft_wrap=True)
    path = write_simulation(result, out)
    console.print(f"Wrote {path} ({result['seconds']} s)")
