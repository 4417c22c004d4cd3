"""What a simulation means for the design: the smallest simulated design whose headline calls a
planted 0.25-point shift in at least 80% of runs, with its trial count, or what to try when none
does. Extrapolations say so."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from fairpanel.analysis import TARGET_POWER
from fairpanel.judging.simulate._settings import DEFAULT_EFFECTS, SimulationSettings

__all__ = ["assumed_judges", "recommendations"]


def _describe(size: Mapping[str, Any]) -> str:
    replicates = f" x {size['replicates']} replicates" if size["replicates"] > 1 else ""
    return (
        f"{size['bases']} bases x {size['derived_per_base']} derived{replicates} "
        f"({size['trials']:,} trials)"
    )


def _shift(size: float) -> str:
    return f"{size:g}-point"


def recommendations(result: Mapping[str, Any]) -> list[str]:
    """The recommended design in one sentence (or why there is none), from ``recommended``."""
    chosen = result.get("recommended")
    if not chosen:
        return ["No shift was planted, so no design is recommended (add sizes above 0)."]
    sizes = {row["scale"]: row for row in result["design_sizes"]}
    shift = _shift(chosen["size"])
    if chosen["scale"] is not None:
        return [
            f"Recommended design: {_describe(sizes[chosen['scale']])}: the headline called a "
            f"planted {shift} shift in {chosen['power']:.0%} of simulated runs in its weakest "
            f"category (target {TARGET_POWER:.0%})."
        ]
    best = sizes[chosen["best_scale"]]
    line = (
        f"No simulated design reached {TARGET_POWER:.0%} power for a {shift} shift: the "
        f"largest, {_describe(best)}, called it in {chosen['best_power']:.0%} of runs in its "
        "weakest category."
    )
    factor = chosen["extrapolated_factor"]
    if factor is None:
        line += " Power there is too low to extrapolate from; simulate larger designs (--scales)."
    else:
        bases = math.ceil(best["bases"] * factor)
        line += (
            f" About {factor:.1f}x as many base scenarios (about {bases}) would be needed "
            "(EXTRAPOLATED by a normal approximation, not simulated). When preferences vary by "
            "scenario, power grows with base scenarios more than with derived scenarios per "
            "base; try a design with more bases (or --scales beyond "
            f"{best['derived_per_base']} derived per base while they last)."
        )
    return [line]


def assumed_judges(settings: SimulationSettings) -> str:
    """What the power figures assume about the judges, for a simulation without a pilot: the
    random effects' sds (which of them are the defaults), and how to measure one's own."""
    effects = settings.effects
    which = "the defaults" if effects == DEFAULT_EFFECTS else "as set on the command line"
    return (
        f"These figures assume the simulated judges' random effects ({which}): each base "
        f"scenario's own preference for each label (label sd {effects.label_base_sd:g} points) "
        f"and for the first position (sd {effects.position_base_sd:g}), judge leniency sd "
        f"{effects.judge_leniency_sd:g}, halo sd {effects.halo_sd:g}, debate-shared noise sd "
        f"{effects.trial_noise_sd:g}, score noise +-{settings.noise}. Real judges may differ: "
        "a small pilot run measures the between- and within-base variance of your contrasts "
        "(`fairpanel simulate EXPERIMENT --pilot RUN_DIR`)."
    )
