"""The experiment model: the strict YAML file, the trials it designs and the frozen candidate
responses (``responses_from``) it may judge instead of calling the responder."""

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
