"""The built-in studies by name: the values a study file's ``study:`` field may take.

A new study adds its module and class to ``_BUILTIN``; nothing else in the framework changes.
Each study's module (its statistics, figures and data) is imported only when that study is
asked for, so loading or estimating one file does not load the other studies' analysis.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import Any

from fairpanel.studies._base import Study, StudyConfig

__all__ = ["STUDIES", "build_study"]

_BUILTIN: dict[str, tuple[str, str]] = {
    "award-audit": ("fairpanel.studies.award_audit._study", "AwardAudit"),
    "bscore": ("fairpanel.studies.bscore._study", "Bscore"),
    "label-bias": ("fairpanel.studies.label_bias._study", "LabelBias"),
    "biasfreebench": ("fairpanel.studies.biasfreebench._study", "BiasFreeBench"),
    "judge-bias": ("fairpanel.studies.judge_bias._study", "JudgeBias"),
    "scenario-grow": ("fairpanel.studies.scenario_grow._study", "ScenarioGrow"),
}


class _Studies(Mapping[str, type[Study[Any, Any]]]):
    """Study classes by name, each imported on first use."""

    def __getitem__(self, name: str) -> type[Study[Any, Any]]:
        module, attribute = _BUILTIN[name]
        study: type[Study[Any, Any]] = getattr(importlib.import_module(module), attribute)
        return study

    def __iter__(self) -> Iterator[str]:
        return iter(_BUILTIN)

    def __len__(self) -> int:
        return len(_BUILTIN)


STUDIES: Mapping[str, type[Study[Any, Any]]] = _Studies()


def build_study(config: StudyConfig) -> Study[Any, Any]:
    """The study object for a loaded config."""
    return STUDIES[config.study](config)
