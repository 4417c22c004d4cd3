"""A design from a pilot: base scenarios, derived scenarios per base and replicates that find a
target shift with 80% power, given the pilot's variance components, and what it would cost.

Each primary contrast is a one-sample t test over base-scenario means whose sd is
``s_D = sqrt(sigma_b^2 + sigma_w^2 / k)``, with k = derived x replicates x the protocol's units
per derived scenario and replicate (the pilot's). Holm's first step tests the strongest contrast
at alpha / m over the experiment's m primary tests, so that is the level a design must pass;
``analysis.tools.bases_for_power`` turns (shift, s_D, level) into base scenarios. Between two
designs that both fit the library, the one with fewer trials wins: more bases beat more units
per base, because units per base only shrink sigma_w^2 / k. Derived scenarios are used before
replicates (a derived scenario also averages whatever varies between the scenarios of one base;
replicates repeat the same one). When no design fits the library's base scenarios, the plan
says how many it would take, with the design that gets closest for the fewest trials.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from fairpanel.analysis import TARGET_POWER
from fairpanel.analysis.calibration import pooled
from fairpanel.analysis.tools import bases_for_power
from fairpanel.judging.engine import design_of, estimate
from fairpanel.judging.experiment._checks import selected_bases_from
from fairpanel.judging.experiment._config import ExperimentConfig
from fairpanel.judging.simulate._pilot import Pilot

__all__ = ["MAX_REPLICATES", "DesignPlan", "family_size", "pilot_plan"]

MAX_REPLICATES = 10
"""Replicates beyond this repeat the same answers so often that a run should add scenarios."""
NEAR_FLOOR = 1.1
"""Without a design that fits the library: the cheapest within 10% of the fewest bases."""
FEW_PILOT_BASES = 10
"""Below this many bases a pilot's between-base sd is too rough to plan on without a warning."""


def family_size(config: ExperimentConfig) -> int:
    """The experiment's primary tests: one per label pair of each category and protocol."""
    identities = design_of(config).identities
    categories = {
        "single": config.identities.categories,
        "pair": config.pair.categories or config.identities.categories,
    }
    return sum(
        math.comb(len(identities.category(name).identities), 2)
        for protocol in config.protocols
        for name in categories[protocol]
    )


@dataclass(frozen=True)
class DesignPlan:
    """One candidate design and the bases it needs (None: the target cannot be planned)."""

    bases: int | None
    derived_per_base: int
    replicates: int
    spread: dict[str, float]
    """The sd of a base mean per planned protocol, sqrt(sigma_b^2 + sigma_w^2 / k)."""
    units_per_base: dict[str, float]

    @property
    def trials(self) -> float:
        """Trials up to the design's constant per unit: bases x derived x replicates."""
        if self.bases is None:
            return math.inf
        return self.bases * self.derived_per_base * self.replicates

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _candidate(
    pilot: Pilot, targets: Mapping[str, float], derived: int, replicates: int, level: float
) -> DesignPlan:
    spread: dict[str, float] = {}
    units: dict[str, float] = {}
    needed: list[int | None] = []
    for protocol, shift in targets.items():
        row = pooled(pilot.components, protocol)
        assert row is not None  # the caller plans only protocols the pilot measured
        per_cell = row.units_per_base / pilot.cells_per_base()
        units[protocol] = per_cell * derived * replicates
        spread[protocol] = row.spread(units[protocol])
        needed.append(bases_for_power(shift, spread[protocol], alpha=level, power=TARGET_POWER))
    bases = None if any(n is None for n in needed) else max(n for n in needed if n is not None)
    return DesignPlan(bases, derived, replicates, spread, units)


def _chosen(candidates: list[DesignPlan], library: int) -> tuple[DesignPlan, bool]:
    """The fewest trials among designs that fit the library (more derived before more
    replicates on a tie), else the fewest trials near the fewest bases; and whether it fits."""
    order = sorted(
        (c for c in candidates if c.bases is not None),
        key=lambda c: (c.trials, c.replicates, -c.derived_per_base),
    )
    if not order:
        raise ValueError(
            "the pilot's variance components could not be estimated (it needs at least two "
            "base scenarios and two units in some base for each planned protocol)"
        )
    fitting = [c for c in order if (c.bases or 0) <= library]
    if fitting:
        return fitting[0], True
    floor = min(c.bases or 0 for c in order)
    near = [c for c in order if (c.bases or 0) <= math.ceil(floor * NEAR_FLOOR)]
    return near[0], False


def _planned_config(
    config: ExperimentConfig, plan: DesignPlan, library: list[str]
) -> tuple[ExperimentConfig, int]:
    """``config`` at the plan's size (its own bases first, then the library's), and how many
    bases it holds (the library's all, when the plan needs more)."""
    bases = library[: plan.bases or len(library)]
    update = {"bases": bases, "derived_per_base": plan.derived_per_base}
    return config.model_copy(
        update={
            "scenarios": config.scenarios.model_copy(update=update),
            "replicates": plan.replicates,
        }
    ), len(bases)


def _library(config: ExperimentConfig) -> tuple[list[str], list[str], int]:
    """The experiment's selected bases, every base its scenario files hold (selected first),
    and the derived scenarios every one of those bases has."""
    selected = [b.id for b in selected_bases_from(config, Path.cwd())]
    known = selected_bases_from(config, Path.cwd(), only_known=True)
    library = [*selected, *(b.id for b in known if b.id not in selected)]
    derived = min(len(b.variations) for b in known)
    return selected, library, derived


def pilot_plan(
    config: ExperimentConfig,
    pilot: Pilot,
    targets: Mapping[str, float],
    *,
    alpha: float = 0.05,
) -> dict[str, Any]:
    """The plan (pilot-plan.json's content): the pilot's components, every candidate's bases,
    the recommended design and the estimate of its calls and cost. ``targets`` maps each
    protocol to plan for to its shift (its own scale); every one must reach the power."""
    if any(shift <= 0 for shift in targets.values()):
        raise ValueError("a target shift must be positive")
    missing = [p for p in targets if pooled(pilot.components, p) is None]
    if missing:
        raise ValueError(f"the pilot has no {', '.join(missing)} primary contrast to plan from")
    selected, library, derived = _library(config)
    family = family_size(config)
    level = alpha / max(family, 1)
    candidates = [
        _candidate(pilot, targets, d, r, level)
        for d, r in itertools.product(range(1, derived + 1), range(1, MAX_REPLICATES + 1))
    ]
    chosen, fits = _chosen(candidates, len(library))
    planned, held = _planned_config(config, chosen, library)
    cost = estimate(planned).as_dict()
    return {
        "experiment": config.name,
        "pilot": {
            "path": str(pilot.path),
            "name": pilot.name,
            "bases": pilot.bases,
            "derived_per_base": pilot.derived_per_base,
            "replicates": pilot.replicates,
        },
        "components": [row.to_dict() for row in pilot.components],
        "targets": dict(targets),
        "power": TARGET_POWER,
        "alpha": alpha,
        "family_size": family,
        "alpha_per_test": level,
        "library_bases": len(library),
        "selected_bases": len(selected),
        "available_derived_per_base": derived,
        "recommended": {**chosen.to_dict(), "fits_library": fits},
        "by_derived": [c.to_dict() for c in candidates if c.replicates == 1],
        "estimate": cost,
        "estimate_bases": held,
        "lines": [
            *_lines(chosen, fits, targets, family, level, len(library), len(selected), held),
            *_precision(pilot, targets),
        ],
    }


def _lines(
    chosen: DesignPlan,
    fits: bool,
    targets: Mapping[str, float],
    family: int,
    level: float,
    library: int,
    selected: int,
    held: int,
) -> list[str]:
    shifts = ", ".join(f"{shift:g} ({protocol})" for protocol, shift in targets.items())
    design = (
        f"{chosen.bases} bases x {chosen.derived_per_base} derived x {chosen.replicates} "
        f"replicate{'s' if chosen.replicates > 1 else ''}"
    )
    lines = [
        f"Recommended design: {design}, for {TARGET_POWER:.0%} power to find a shift of "
        f"{shifts} at alpha {level:.2g} per test (Holm's first step over the {family} primary "
        "tests), with the pilot's variance components."
    ]
    if not fits:
        lines.append(
            f"That is more base scenarios than exist: the library has {library} (the experiment "
            f"selects {selected}). No design with up to {MAX_REPLICATES} replicates reaches the "
            f"target with {library}; write more base scenarios, plan for a larger shift, or "
            "accept less power. The calls and cost below are for "
            f"{held} bases; multiply by {(chosen.bases or held) / held:.1f} for {chosen.bases}."
        )
    elif chosen.bases is not None and chosen.bases > selected:
        lines.append(
            f"The experiment selects {selected} base scenarios; the library has {library}, "
            f"so select {chosen.bases} (scenarios.bases)."
        )
    return lines


def _precision(pilot: Pilot, targets: Mapping[str, float]) -> list[str]:
    """What the plan's weakest input is: the between-base sd of a pilot with few bases, or one
    estimated at zero (the plan then assumes no scenario-level preference at all)."""
    lines = []
    zero = [p for p in targets if (row := pooled(pilot.components, p)) and row.between_sd == 0]
    if zero:
        lines.append(
            f"The pilot's between-base sd is 0 for {', '.join(zero)} (its base means vary no "
            "more than its within-base noise explains), so the plan assumes the judges' "
            "preferences do not vary between scenarios; if they do, it needs more bases."
        )
    if pilot.bases < FEW_PILOT_BASES:
        lines.append(
            f"The pilot has {pilot.bases} base scenarios: its between-base sd rests on "
            f"{pilot.bases - 1} degrees of freedom and can be off by a factor of two either way; "
            f"a pilot with {FEW_PILOT_BASES} or more bases plans more reliably."
        )
    return lines
