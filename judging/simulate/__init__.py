"""Calibration by simulation: an experiment's design answered by simulated judges, many times."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_HOME: dict[str, str] = {
    **dict.fromkeys(
        (
            "DEFAULT_MANIPULATIONS",
            "CallRate",
            "ManipulationCalibration",
            "ManipulationModel",
            "manipulation_calibration",
            "manipulation_frames",
        ),
        "fairpanel.judging.simulate._manipulations",
    ),
    **dict.fromkeys(
        (
            "Pilot",
            "read_pilot",
        ),
        "fairpanel.judging.simulate._pilot",
    ),
    **dict.fromkeys(
        (
            "family_size",
            "pilot_plan",
        ),
        "fairpanel.judging.simulate._pilot_plan",
    ),
    **dict.fromkeys(
        ("recommendations",),
        "fairpanel.judging.simulate._recommend",
    ),
    **dict.fromkeys(
        ("JudgeEffects",),
        "fairpanel.judging.simulate._runs",
    ),
    **dict.fromkeys(
        (
            "DEFAULT_EFFECTS",
            "SimulationSettings",
        ),
        "fairpanel.judging.simulate._settings",
    ),
    **dict.fromkeys(
        (
            "PILOT_PLAN_FILE",
            "parse_numbers",
            "run_simulation",
            "sizes_ok",
            "write_simulation",
        ),
        "fairpanel.judging.simulate._simulate",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
