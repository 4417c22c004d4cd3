"""Run files of either kind: a judge-panel experiment, or a study (a file with ``study:``).

Every command that takes a file reads it through ``load``, which looks at the ``study:`` field
first and hands the file to the model that checks it, so both kinds fail the same way (an
``InputFileError`` naming file and line) and run the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeAlias

from fairpanel.judging.engine import Estimate
from fairpanel.judging.engine import estimate as estimate_experiment
from fairpanel.judging.experiment import ExperimentConfig, load_experiment
from fairpanel.studies import STUDIES, StudyConfig, StudyEstimate, estimate_study, load_study
from fairpanel.studies import study_name as study_of_file

__all__ = [
    "RunConfig",
    "UnknownStudyError",
    "config_schema",
    "default_run_dir",
    "estimate",
    "load",
]

RunConfig: TypeAlias = ExperimentConfig | StudyConfig
"""What a run file describes: a judge-panel experiment or a study."""


class UnknownStudyError(ValueError):
    """A study name that no installed study answers to."""


def load(path: str | Path | None = None) -> RunConfig:
    """Load and fully check an experiment or study file; the built-in default experiment when
    ``path`` is None. Raises ``InputFileError`` (every problem, with file and line)."""
    if path is None:
        return load_experiment(None)
    path = Path(path)
    if study_of_file(path) is not None:
        return load_study(path)
    return load_experiment(path)


def default_run_dir(config: RunConfig) -> Path:
    """Where a run goes when no folder is given: runs/<name>."""
    return Path("runs") / config.name


def estimate(config: RunConfig) -> Estimate | StudyEstimate:
    """Trials or items, calls, tokens, cost and time of ``config``, without calling a model."""
    if isinstance(config, StudyConfig):
        return estimate_study(config)
    return estimate_experiment(config)


def config_schema(study: str | None = None) -> dict[str, Any]:
    """The JSON Schema of experiment files, or of one study's files."""
    if study is None:
        return ExperimentConfig.model_json_schema()
    if study not in STUDIES:
        raise UnknownStudyError(f"unknown study {study!r}; known: {', '.join(STUDIES)}")
    return STUDIES[study].config_model.model_json_schema()
