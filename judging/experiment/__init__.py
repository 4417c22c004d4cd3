"""The experiment model: the strict YAML file and the trials it designs."""

from fairpanel.judging.experiment._config import (
    DEFAULT_INJECTION,
    ExperimentConfig,
    IdentitySelection,
    PairConfig,
    PanelConfig,
    Price,
    ResponderConfig,
    ScenarioSelection,
    default_experiment_path,
    load_experiment,
)
from fairpanel.judging.experiment._design import (
    TRIAL_SCHEMA_VERSION,
    TrialSpec,
    injected_twin,
    iter_trials,
)

__all__ = [
    "DEFAULT_INJECTION",
    "TRIAL_SCHEMA_VERSION",
    "ExperimentConfig",
    "IdentitySelection",
    "PairConfig",
    "PanelConfig",
    "Price",
    "ResponderConfig",
    "ScenarioSelection",
    "TrialSpec",
    "default_experiment_path",
    "injected_twin",
    "iter_trials",
    "load_experiment",
]
