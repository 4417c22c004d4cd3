"""Loads an experiment file: strict YAML, then the name checks, then paths made absolute."""

from __future__ import annotations

import importlib.resources
from pathlib import Path

from fairpanel.inputs import load_yaml_model
from fairpanel.judging.experiment._checks import name_checks, resolve
from fairpanel.judging.experiment._config import ExperimentConfig

__all__ = ["default_experiment_path", "load_experiment"]


def default_experiment_path() -> Path:
    return Path(
        str(importlib.resources.files("fairpanel.judging.experiment") / "data" / "default.yaml")
    )


def load_experiment(path: Path | None = None) -> ExperimentConfig:
    """Load and fully check an experiment file (the built-in default when ``path`` is None)."""
    source = path or default_experiment_path()
    base = source.parent.resolve()
    config = load_yaml_model(source, ExperimentConfig, lambda c: name_checks(c, base))
    # Later steps (and the copy saved in the run folder) must not depend on the working directory.
    return config.model_copy(
        update={
            "personas_file": str(resolve(base, config.personas_file))
            if config.personas_file
            else None,
            "scenarios": config.scenarios.model_copy(
                update={"files": [str(resolve(base, f)) for f in config.scenarios.files]}
            ),
            "responses_from": str(resolve(base, config.responses_from))
            if config.responses_from
            else None,
            "identities": config.identities.model_copy(
                update={
                    "file": str(resolve(base, config.identities.file))
                    if config.identities.file
                    else None
                }
            ),
        }
    )
