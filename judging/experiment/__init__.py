"""The experiment model: the strict YAML file and the trials it designs."""

from fairpanel.judging.experiment._config import (
    DEFAULT_INJECTION,
    ArmsConfig,
    Consensus,
    ExperimentConfig,
    IdentitySelection,
    JudgeSeat,
    PairConfig,
    PanelConfig,
    Price,
    ResponderConfig,
    ScenarioSelection,
    Treatment,
    default_experiment_path,
    load_experiment,
)
from fairpanel.judging.experiment._design import (
    PLACEBO_CATEGORY,
    TRIAL_SCHEMA_VERSION,
    SeatSpec,
    TrialSpec,
    injected_twin,
    iter_trials,
)

__all__ = [
    "DEFAULT_INJECTION",
    "PLACEBO_CATEGORY",
    "TRIAL_SCHEMA_VERSION",
    "ArmsConfig",
    "Consensus",
    "ExperimentConfig",
    "IdentitySelection",
    "JudgeSeat",
    "PairConfig",
    "PanelConfig",
    "Price",
    "ResponderConfig",
    "ScenarioSelection",
    "SeatSpec",
    "Treatment",
    "TrialSpec",
    "default_experiment_path",
    "injected_twin",
    "iter_trials",
    "load_experiment",
]
