"""``fairpanel scenarios grow`` below the CLI: run the scenario-grow study into its run folder
(resuming what a killed run stored) and write the accepted bases and the rejections."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from fairpanel.judging.store import STORE_FILE, Store
from fairpanel.scenarios import GrowScreen, write_grown
from fairpanel.studies import run_study
from fairpanel.studies.scenario_grow import ScenarioGrowConfig, grown_screen

__all__ = ["GROW_STUDY_FILE", "GrownFiles", "grow_scenarios"]

GROW_STUDY_FILE = "grow.yaml"
"""The study file written into the run folder: ``fairpanel estimate`` and ``run`` take it."""


@dataclass(frozen=True)
class GrownFiles:
    """Where the grow wrote, and what it kept and refused."""

    screen: GrowScreen
    out_dir: Path
    rejected_file: Path
    study_file: Path


async def grow_scenarios(
    config: ScenarioGrowConfig, run_dir: Path, out_dir: Path, *, max_failures: int | None = None
) -> GrownFiles:
    """Run every pending candidate, then screen all stored ones in candidate order."""
    run_dir.mkdir(parents=True, exist_ok=True)
    study_file = run_dir / GROW_STUDY_FILE
    study_file.write_text(
        yaml.safe_dump(
            {"study": config.study, **config.model_dump(mode="json", exclude_defaults=True)},
            sort_keys=False,
        ),
        encoding="utf-8",
    )
    await run_study(config, run_dir, max_failures=max_failures)
    store = Store(run_dir / STORE_FILE)
    try:
        screen = grown_screen(config, list(store.iter_study_items(config.study)))
    finally:
        store.close()
    rejected = write_grown(screen, out_dir)
    return GrownFiles(screen, out_dir, rejected, study_file)
