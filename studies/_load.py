"""Study files: the ``study:`` field picks the config model; everything else is strict YAML.

A file without ``study:`` is a judge-panel experiment (``fairpanel.judging``), so every
experiment file written before studies existed keeps working unchanged.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from fairpanel.inputs import Problem, load_yaml_model
from fairpanel.judging.store import RunFiles
from fairpanel.studies._base import StudyConfig
from fairpanel.studies._registry import STUDIES

__all__ = ["config_from_run", "load_study", "study_name"]


class _StudyTag(BaseModel):
    """Only the discriminator; the rest of the file is checked by the study's own model."""

    model_config = ConfigDict(extra="allow")

    study: str | None = None


def _known(tag: _StudyTag) -> list[Problem]:
    if tag.study is None or tag.study in STUDIES:
        return []
    return [(("study",), f"unknown study {tag.study!r}; known: {', '.join(sorted(STUDIES))}")]


def study_name(path: Path) -> str | None:
    """The study an experiment file describes, or None for the judge-panel protocol.

    Raises ``InputFileError`` (with file and line) for unreadable files and unknown studies.
    """
    return load_yaml_model(path, _StudyTag, _known).study


def load_study(path: Path) -> StudyConfig:
    """Load and fully check a study file (its ``study:`` field must name a known study)."""
    name = study_name(path)
    if name is None:
        raise ValueError(f"{path} has no 'study:' field; it is a judge-panel experiment")
    base = path.parent.resolve()
    model = STUDIES[name].config_model
    config = load_yaml_model(path, model, lambda c: c.problems(base))
    return config.with_paths_from(base)


def config_from_run(run: RunFiles | Path) -> StudyConfig | None:
    """The study config a run folder was made with (its files as ``RunFiles`` read them, or
    the folder, whose files are then read), or None for a judge-panel run."""
    files = run if isinstance(run, RunFiles) else RunFiles.read(run)
    name = files.study
    if name is None:
        return None
    if name not in STUDIES:
        raise ValueError(f"{files.path} holds a run of study {name!r}, unknown to this fairpanel")
    return STUDIES[name].config_model.model_validate(files.experiment)
