"""The built-in studies by name: the values a study file's ``study:`` field may take.

A new study adds its class to ``_BUILTIN``; nothing else in the framework changes.
"""

from __future__ import annotations

from typing import Any

from fairpanel.studies._base import Study, StudyConfig
from fairpanel.studies.award_audit._study import AwardAudit
from fairpanel.studies.biasfreebench._study import BiasFreeBench
from fairpanel.studies.bscore._study import Bscore
from fairpanel.studies.judge_bias._study import JudgeBias
from fairpanel.studies.label_bias._study import LabelBias
from fairpanel.studies.scenario_grow._study import ScenarioGrow

__all__ = ["STUDIES", "build_study"]

_BUILTIN: tuple[type[Study[Any, Any]], ...] = (
    AwardAudit,
    Bscore,
    LabelBias,
    BiasFreeBench,
    JudgeBias,
    ScenarioGrow,
)

STUDIES: dict[str, type[Study[Any, Any]]] = {study.name: study for study in _BUILTIN}


def build_study(config: StudyConfig) -> Study[Any, Any]:
    """The study object for a loaded config."""
    return STUDIES[config.study](config)
