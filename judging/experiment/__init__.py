"""The experiment model: the strict YAML file and the trials it designs."""

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
