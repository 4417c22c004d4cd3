"""``fairpanel simulate``: false-positive rates and power of the headline tests for a design,
before a paid run, by running the design against the mock judge with planted effects.

Each repetition is one simulated run of the largest requested design size with its own mock
noise seed; smaller sizes are the subsets of its trials that their designs contain (a smaller
design's trials are exactly a subset, keys and answers included), so every size sees the same
draws. Every planted size uses the same seeds (common random numbers), so power curves are
compared on the same noise. Repetitions run in worker processes.

What is measured is the rule the user reads: the headline's identity verdict and its position
claim (``verdict_statistics``), per simulated run, with exact intervals over runs. The simulated
judges are made at least as hard as real ones (``DEFAULT_EFFECTS``): their label and position
preferences vary by base scenario around the planted values, and their scores share judge,
judgment and trial effects, so a test that treats correlated scores as independent, or a
scenario-specific preference as a bias, shows up as a false-positive rate above alpha.

A design that compares panels (or ``--panels 2`` and more) gets, besides, the power to tell two
panels apart (``_panel_comparison``): each repetition also draws its panels judging the same
trials, panel b with the planted shift, and reads them paired and independently.
"""

from __future__ import annotations

import functools
import gc
import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from fairpanel.analysis import METRICS, OVERALL, calibration_tables, identity_test_outcomes
from fairpanel.judging.engine._design import design_of
from fairpanel.judging.experiment._config import ExperimentConfig
from fairpanel.judging.simulate._described import (
    MODERATOR_NOTE,
    PANEL_NOTES,
    SIMULATION_NOTES,
    WHAT,
    judges_block,
    planted_block,
)
from fairpanel.judging.simulate._panel_comparison import comparison_block, comparison_rows
from fairpanel.judging.simulate._panel_model import (
    TrialTable,
    model_frames,
    trial_table,
)
from fairpanel.judging.simulate._panels import (
    PLANTED_PANEL,
    SimulatedPanel,
    panel_frames,
    simulated_panels,
    subset_frames,
)
from fairpanel.judging.simulate._recommend import assumed_judges, recommendations
from fairpanel.judging.simulate._runs import (
    DesignScale,
    PreparedDesign,
    Target,
    design_scales,
    identity_cues,
    mock_config,
    planted_bias,
    prepare_design,
    scaled,
    scenario_biases,
    simulate_frames,
    targets_of,
    trial_keys,
)
from fairpanel.judging.simulate._settings import SimulationSettings, panel_model
from fairpanel.judging.store import RunFrames

__all__ = [
    "PILOT_PLAN_FILE",
    "SIMULATE_FILE",
    "parse_numbers",
    "run_simulation",
    "sizes_ok",
    "write_simulation",
]

SIMULATE_FILE = "simulate.json"
PILOT_PLAN_FILE = "pilot-plan.json"

ProgressHook = Callable[[int, int], None]


def _scale_name(scale: DesignScale) -> str:
    return f"x{scale.factor:g}"


@functools.lru_cache(maxsize=2)
def _prepared(config_json: str) -> PreparedDesign:
    """One worker builds the design and the responder's answers once for all its runs."""
    return prepare_design(ExperimentConfig.model_validate(json.loads(config_json)))


@functools.lru_cache(maxsize=2)
def _table(config_json: str) -> TrialTable:
    """The design's trials as index arrays for the random-effects panel, once per worker."""
    return trial_table(_prepared(config_json).specs)


@dataclass(frozen=True)
class _Task:
    config: dict[str, Any]
    scales: list[tuple[str, list[str]]]
    targets: dict[str, tuple[str, str]]
    cues: list[tuple[str, str, str, tuple[str, ...]]]
    identities: dict[str, tuple[str, ...]]
    bases: list[str]
    size: float
    rep: int
    settings: SimulationSettings
    panels: tuple[SimulatedPanel, ...] = ()


def _one_repetition(task: _Task) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One simulated run at the largest size, analysed at every size (in a worker process):
    one row per size and planted category (one with category None when nothing is planted);
    with two panels or more, the same for the panel comparison's own simulated run."""
    # statsmodels' multipletests runs a full gc.collect() on every call; with everything built
    # so far frozen out of the collector's view, those collections only scan this repetition's
    # objects (about 4x faster analysis, same results).
    gc.freeze()
    settings = task.settings
    targets = [Target(*cue) for cue in task.cues]
    config_json = json.dumps(task.config, sort_keys=True)
    seed = settings.seed * 1_000_003 + task.rep + 1
    if settings.engine == "panel":
        frames = model_frames(_table(config_json), panel_model(settings, targets, task.size), seed)
    else:
        frames = _mock_frames(task, targets, config_json, seed)
    return _analysed(task, frames), _compared(task, targets, config_json, seed)


def _compared(
    task: _Task, targets: list[Target], config_json: str, seed: int
) -> list[dict[str, Any]]:
    """The panel comparison's rows of one repetition: its panels drawn for the same trials,
    panel b with the planted size, read at every design size (none with fewer than two)."""
    if len(task.panels) < 2:
        return []
    settings = task.settings
    models = [
        panel_model(settings, targets, task.size if index == PLANTED_PANEL else 0.0)
        for index in range(len(task.panels))
    ]
    frames = panel_frames(
        _table(config_json), task.panels, models, settings.panel_correlation, seed
    )
    return comparison_rows(
        frames,
        task.scales,
        task.targets,
        size=task.size,
        rep=task.rep,
        alpha=settings.alpha,
        seed=seed,
    )


def _mock_frames(task: _Task, targets: list[Target], config_json: str, seed: int) -> RunFrames:
    """Every judgment of one simulated run asked of the mock provider."""
    settings = task.settings
    metrics = list(METRICS) if settings.metric == OVERALL else [settings.metric]
    bias = planted_bias(
        targets,
        task.size,
        metrics,
        seed=seed,
        noise=settings.noise,
        first_position_bias=settings.first_position_bias,
        effects=settings.effects,
    )
    biases = scenario_biases(bias, task.bases, task.identities, settings.effects)
    return simulate_frames(_prepared(config_json), biases)


def _analysed(task: _Task, frames: RunFrames) -> list[dict[str, Any]]:
    """The headline rule on each design size's subset of one simulated run."""
    settings = task.settings
    rows: list[dict[str, Any]] = []
    for name, keys in task.scales:
        part = subset_frames(frames, set(keys))
        outcome = identity_test_outcomes(
            part.scores,
            part.verdicts,
            part.turns,
            part.consensus,
            task.targets,
            alpha=settings.alpha,
        )
        run = {
            "scale": name,
            "size": task.size,
            "rep": task.rep,
            "identity_effect": outcome["identity_effect"],
            "position_bias": outcome["position_bias"],
            "tests": outcome["tests"],
        }
        detected: dict[str | None, bool] = dict(outcome["detected"]) or {None: False}
        rows.extend(
            {
                **run,
                "category": c,
                "detected": hit,
                "mde": outcome["contrast_mde"].get(c),
                "contrast_found": outcome["contrast_found"].get(c),
            }
            for c, hit in detected.items()
        )
    return rows


def _plan(
    config: ExperimentConfig, settings: SimulationSettings
) -> tuple[list[tuple[DesignScale, int, set[str]]], list[str]]:
    """Each design size with its trial count and keys; sizes over the trial budget are left out
    (the smallest is always kept) and named in the notes."""
    notes: list[str] = []
    plan: list[tuple[DesignScale, int, set[str]]] = []
    for scale in design_scales(config, settings.scales):
        keys = trial_keys(scaled(config, scale))
        if plan and len(keys) > settings.max_trials:
            notes.append(
                f"size {_scale_name(scale)} ({len(keys):,} trials per simulated run) was left out: "
                f"over --max-trials {settings.max_trials:,}"
            )
            continue
        plan.append((scale, len(keys), keys))
    if plan and plan[0][1] > settings.max_trials:
        notes.append(
            f"even the smallest size has {plan[0][1]:,} trials per simulated run "
            f"(over --max-trials {settings.max_trials:,}); it was simulated anyway"
        )
    return plan, notes


def run_simulation(
    config: ExperimentConfig,
    settings: SimulationSettings,
    progress: ProgressHook | None = None,
) -> dict[str, Any]:
    """simulate.json's content: the design simulated, false-positive rates, power, sizes needed
    and the recommendations drawn from them."""
    started = time.perf_counter()
    mocked = mock_config(config)
    design = design_of(mocked)
    targets = targets_of(design)
    n_bases = len({scenario.base_id for scenario in design.scenarios})
    plan, notes = _plan(mocked, settings)
    largest = DesignScale(
        factor=max(scale.factor for scale, _, _ in plan),
        derived_per_base=max(scale.derived_per_base for scale, _, _ in plan),
        replicates=max(scale.replicates for scale, _, _ in plan),
    )
    generated = scaled(mocked, largest).model_dump(mode="json")
    count = settings.panels if settings.panels is not None else len(config.panel_items())
    panels = tuple(simulated_panels(config, count)) if count >= 2 else ()
    scale_keys = [(_scale_name(scale), sorted(keys)) for scale, _, keys in plan]
    tasks = [
        _Task(
            config=generated,
            scales=scale_keys,
            targets={t.category: (t.planted, t.reference) for t in targets},
            cues=[(t.category, t.planted, t.reference, t.cues) for t in targets],
            identities=identity_cues(design),
            bases=sorted({scenario.base_id for scenario in design.scenarios}),
            size=size,
            rep=rep,
            settings=settings,
            panels=panels,
        )
        for size in settings.sizes
        for rep in range(settings.reps)
    ]
    rows: list[dict[str, Any]] = []
    compared: list[dict[str, Any]] = []
    jobs = max(1, min(settings.jobs, len(tasks), os.cpu_count() or 1))
    if jobs == 1:
        for done, task in enumerate(tasks, start=1):
            single, paired = _one_repetition(task)
            rows.extend(single)
            compared.extend(paired)
            if progress:
                progress(done, len(tasks))
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_one_repetition, task) for task in tasks]
            for done, future in enumerate(as_completed(futures), start=1):
                single, paired = future.result()
                rows.extend(single)
                compared.extend(paired)
                if progress:
                    progress(done, len(tasks))
    moderator = config.first_panel.consensus == "moderator"
    tables = calibration_tables(
        pd.DataFrame(rows),
        [name for name, _ in scale_keys],
        settings.alpha,
        position_planted=settings.first_position_bias != 0,
    )
    result: dict[str, Any] = {
        "experiment": config.name,
        "alpha": settings.alpha,
        "sizes": list(settings.sizes),
        "repetitions": settings.reps,
        "seed": settings.seed,
        "planted": planted_block(settings, targets),
        "judges": judges_block(settings),
        "design_sizes": [
            {
                "scale": _scale_name(scale),
                "factor": scale.factor,
                "bases": n_bases,
                "derived_per_base": scale.derived_per_base,
                "replicates": scale.replicates,
                "trials": count,
            }
            for scale, count, _ in plan
        ],
        "engine": settings.engine,
        "simulation": [
            *(PANEL_NOTES if settings.engine == "panel" else SIMULATION_NOTES),
            *([MODERATOR_NOTE] if moderator else []),
            *notes,
        ],
        **tables,
        "what": WHAT,
        "seconds": round(time.perf_counter() - started, 1),
    }
    result["recommendations"] = [*recommendations(result), assumed_judges(settings)]
    if panels:
        names = [name for name, _ in scale_keys]
        block = comparison_block(compared, names, settings, panels, result["design_sizes"])
        result["panel_comparison"] = block
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def write_simulation(
    result: Mapping[str, Any], out_dir: Path, file_name: str = SIMULATE_FILE
) -> Path:
    """Write ``result`` to OUT_DIR/simulate.json (or ``file_name``; creating the folder) and
    return its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / file_name
    path.write_text(json.dumps(result, indent=2, allow_nan=False) + "\n", encoding="utf-8")
    return path


def parse_numbers(text: str, what: str) -> tuple[float, ...]:
    """Comma-separated numbers from a command-line option; ValueError names the option."""
    try:
        values = tuple(float(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise ValueError(f"{what} must be comma-separated numbers, got {text!r}") from None
    if not values:
        raise ValueError(f"{what} is empty")
    return values


def sizes_ok(sizes: Sequence[float]) -> bool:
    return all(0.0 <= size <= 10.0 for size in sizes)
