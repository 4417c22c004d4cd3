"""Calibration by simulation: an experiment's design answered by simulated judges, many times."""

from fairpanel.judging.simulate._manipulations import (
    DEFAULT_MANIPULATIONS,
    CallRate,
    ManipulationCalibration,
    ManipulationModel,
    manipulation_calibration,
    manipulation_frames,
)
from fairpanel.judging.simulate._pilot import Pilot, read_pilot
from fairpanel.judging.simulate._pilot_plan import family_size, pilot_plan
from fairpanel.judging.simulate._recommend import recommendations
from fairpanel.judging.simulate._runs import JudgeEffects
from fairpanel.judging.simulate._settings import DEFAULT_EFFECTS, SimulationSettings
from fairpanel.judging.simulate._simulate import (
    PILOT_PLAN_FILE,
    parse_numbers,
    run_simulation,
    sizes_ok,
    write_simulation,
)

__all__ = [
    "DEFAULT_EFFECTS",
    "DEFAULT_MANIPULATIONS",
    "PILOT_PLAN_FILE",
    "CallRate",
    "JudgeEffects",
    "ManipulationCalibration",
    "ManipulationModel",
    "Pilot",
    "SimulationSettings",
    "family_size",
    "manipulation_calibration",
    "manipulation_frames",
    "parse_numbers",
    "pilot_plan",
    "read_pilot",
    "recommendations",
    "run_simulation",
    "sizes_ok",
    "write_simulation",
]
