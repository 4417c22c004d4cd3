"""Calibration by simulation: an experiment's design answered by simulated judges, many times."""

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
    "JudgeEffects",
    "SimulationSettings",
    "parse_numbers",
    "recommendations",
    "run_simulation",
    "sizes_ok",
    "write_simulation",
]
