"""Calibration by simulation: an experiment's design answered by simulated judges, many times."""

from fairpanel.judging.simulate._manipulations import (
    DEFAULT_MANIPULATIONS,
    CallRate,
    ManipulationCalibration,
    ManipulationModel,
    manipulation_calibration,
    manipulation_frames,
)
from fairpanel.judging.simulate._recommend import recommendations
from fairpanel.judging.simulate._runs import JudgeEffects
from fairpanel.judging.simulate._settings import DEFAULT_EFFECTS, SimulationSettings
from fairpanel.judging.simulate._simulate import (
    parse_numbers,
    run_simulation,
    sizes_ok,
    write_simulation,
)

__all__ = [
    "DEFAULT_EFFECTS",
    "DEFAULT_MANIPULATIONS",
    "CallRate",
    "JudgeEffects",
    "ManipulationCalibration",
    "ManipulationModel",
    "SimulationSettings",
    "manipulation_calibration",
    "manipulation_frames",
    "parse_numbers",
    "recommendations",
    "run_simulation",
    "sizes_ok",
    "write_simulation",
]
