"""Calibration by simulation: an experiment's design answered by the mock judge, many times."""

from fairpanel.judging.simulate._recommend import recommendations
from fairpanel.judging.simulate._runs import JudgeEffects
from fairpanel.judging.simulate._simulate import (
    DEFAULT_EFFECTS,
    SimulationSettings,
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
