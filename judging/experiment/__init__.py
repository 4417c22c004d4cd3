"""The experiment model: the strict YAML file, the trials it designs and the frozen candidate
responses (``responses_from``) it may judge instead of calling the responder."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairpanel.judging.experiment._candidates import (
        Candidate,
        CandidateSource,
        CandidateSourceError,
        candidates_digest,
        read_candidate_source,
        write_candidates,
    )
    from fairpanel.judging.experiment._config import (
        DEFAULT_INJECTION,
        DEFAULT_PANEL,
        ExperimentConfig,
        IdentitySelection,
        PairConfig,
        PanelConfig,
        Price,
        ResponderConfig,
        ScenarioSelection,
    )
    from fairpanel.judging.experiment._design import (
        TRIAL_SCHEMA_VERSION,
        TrialSpec,
        injected_twin,
        iter_trials,
    )
    from fairpanel.judging.experiment._load import default_experiment_path, load_experiment


__all__ = [
    "DEFAULT_INJECTION",
    "DEFAULT_PANEL",
    "TRIAL_SCHEMA_VERSION",
    "Candidate",
    "CandidateSource",
    "CandidateSourceError",
    "ExperimentConfig",
    "IdentitySelection",
    "PairConfig",
    "PanelConfig",
    "Price",
    "ResponderConfig",
    "ScenarioSelection",
    "TrialSpec",
    "candidates_digest",
    "default_experiment_path",
    "injected_twin",
    "iter_trials",
    "load_experiment",
    "read_candidate_source",
    "write_candidates",
]

_HOME: dict[str, str] = {
    **dict.fromkeys(
        (
            "Candidate",
            "CandidateSource",
            "CandidateSourceError",
            "candidates_digest",
            "read_candidate_source",
            "write_candidates",
        ),
        "fairpanel.judging.experiment._candidates",
    ),
    **dict.fromkeys(
        (
            "DEFAULT_INJECTION",
            "DEFAULT_PANEL",
            "ExperimentConfig",
            "IdentitySelection",
            "PairConfig",
            "PanelConfig",
            "Price",
            "ResponderConfig",
            "ScenarioSelection",
        ),
        "fairpanel.judging.experiment._config",
    ),
    **dict.fromkeys(
        (
            "TRIAL_SCHEMA_VERSION",
            "TrialSpec",
            "injected_twin",
            "iter_trials",
        ),
        "fairpanel.judging.experiment._design",
    ),
    **dict.fromkeys(
        (
            "default_experiment_path",
            "load_experiment",
        ),
        "fairpanel.judging.experiment._load",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
