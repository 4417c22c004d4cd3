"""Calibration by simulation: an experiment's design answered by the mock judge, many times."""

from fairpanel.judging.simulate._runs import (
    MOCK_JUDGE,
    DesignScale,
    PreparedDesign,
    Target,
    design_scales,
    mock_config,
    planted_bias,
    prepare_design,
    scaled,
    simulate_frames,
    targets_of,
    trial_keys,
)
from fairpanel.judging.simulate._simulate import (
    SimulationSettings,
    parse_numbers,
    run_simulation,
    sizes_ok,
)

__all__ = [
    "MOCK_JUDGE",
    "DesignScale",
    "PreparedDesign",
    "SimulationSettings",
    "Target",
    "design_scales",
    "mock_config",
    "parse_numbers",
    "planted_bias",
    "prepare_design",
    "run_simulation",
    "scaled",
    "simulate_frames",
    "sizes_ok",
    "targets_of",
    "trial_keys",
]
