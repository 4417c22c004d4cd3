"""Calibration by simulation: an experiment's design answered by the mock judge, many times."""

from fairpanel.judging.simulate._recommend import recommendations
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
    SIMULATE_FILE,
    SimulationSettings,
    parse_numbers,
    run_simulation,
    sizes_ok,
    write_simulation,
)

__all__ = [
    "MOCK_JUDGE",
    "SIMULATE_FILE",
    "DesignScale",
    "PreparedDesign",
    "SimulationSettings",
    "Target",
    "design_scales",
    "mock_config",
    "parse_numbers",
    "planted_bias",
    "prepare_design",
    "recommendations",
    "run_simulation",
    "scaled",
    "simulate_frames",
    "sizes_ok",
    "targets_of",
    "trial_keys",
    "write_simulation",
]
