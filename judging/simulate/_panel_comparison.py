"""``fairpanel simulate`` on a design that compares panels: the power to tell two judges apart.

Each repetition draws several panels judging the very same trials (``_panels``), panel b with
the planted shift and the others without, and reads every design size's subset of that one run
two ways (``panel_test_outcomes``): paired, as the multi-panel run does, and independent, as
``fairpanel compare`` does for runs that share no trials. Both read the same draws, so the
difference between their power is the pairing's alone. simulate.json's ``panel_comparison``
block holds the tables, the recommended design for each analysis, and what they mean.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from fairpanel.analysis import TARGET_POWER, panel_calibration_tables, panel_test_outcomes
from fairpanel.judging.simulate._panels import PLANTED_PANEL, SimulatedPanel, subset_frames
from fairpanel.judging.simulate._recommend import _describe
from fairpanel.judging.simulate._settings import SimulationSettings
from fairpanel.judging.store import RunFrames

__all__ = ["comparison_block", "comparison_rows"]

ANALYSES = {
    "paired": "the paired analysis (the run's own panel comparison)",
    "independent": "the independent comparison (as `fairpanel compare` reads two runs)",
}

WHAT = {
    "false_positives": "per design size, over the runs whose panels have equal bias (size 0): "
    "paired = share of runs in which the run's own panel comparison (panel_differences: every "
    "pair of panels unit by unit, one weighted Holm procedure over every difference of the run, "
    "the primary contrasts 80% of alpha) called "
    "a difference in a primary contrast, position bias or parse failures; independent = share "
    "in which comparing each panel's own estimates as `fairpanel compare` does "
    "(difference_of_estimates, one Holm procedure over the primary contrasts and position bias "
    "of every pair of panels) called any; agreement_called = share in which the paired analysis "
    "called an agreement difference (no false call: each panel draws its own judges, and their "
    "agreement does differ); tests = each analysis's mean number of tested differences; exact "
    "Clopper-Pearson intervals (k of n independent runs)",
    "power": "per design size, planted difference and category: the share of runs in which the "
    "analysis called a primary contrast of that category involving the planted identity "
    "different between panels a and b, in the planted direction; paired and independent read "
    "the very same simulated runs; exact intervals",
    "recommended": "per analysis: the smallest simulated design size at which every category's "
    "power at 'size' reaches target_power; when none does, the largest size's weakest power "
    "and how many times its base scenarios would have to grow (EXTRAPOLATED by a normal "
    "approximation, Bonferroni over the family a primary difference is first tested in (the "
    "paired analysis: 1 / its weight; the independent one: its Holm family), from the planted size "
    "whose power is nearest 50%, extrapolated_from_size when it is not 'size': the bases "
    "needed grow with the square of the ratio of the sizes)",
}


def comparison_rows(
    frames: Mapping[str, RunFrames],
    scales: Sequence[tuple[str, Sequence[str]]],
    targets: Mapping[str, tuple[str, str]],
    *,
    size: float,
    rep: int,
    alpha: float,
    seed: int,
) -> list[dict[str, Any]]:
    """One simulated multi-panel run read at every design size (``scales``: name and trial
    keys): one row per size and category (category None when nothing is planted)."""
    names = list(frames)
    rows: list[dict[str, Any]] = []
    for scale, keys in scales:
        kept = set(keys)
        parts = {name: subset_frames(panel, kept) for name, panel in frames.items()}
        outcome = panel_test_outcomes(
            parts, targets, pair=(names[0], names[PLANTED_PANEL]), alpha=alpha, seed=seed
        )
        paired, independent = outcome["paired"], outcome["independent"]
        run = {
            "scale": scale,
            "size": size,
            "rep": rep,
            "paired_called": paired["called"],
            "paired_tests": paired["tests"],
            "paired_family": paired["family"],
            "agreement_called": paired["agreement_called"],
            "independent_called": independent["called"],
            "independent_tests": independent["tests"],
            "independent_family": independent["family"],
        }
        categories: list[str | None] = list(targets) or [None]
        rows.extend(
            {
                **run,
                "category": category,
                "paired_detected": bool(category and paired["detected"][category]),
                "independent_detected": bool(category and independent["detected"][category]),
            }
            for category in categories
        )
    return rows


def _notes(settings: SimulationSettings, panels: Sequence[SimulatedPanel]) -> list[str]:
    others = [panel.name for index, panel in enumerate(panels) if index > PLANTED_PANEL]
    notes = [
        f"panel a = {panels[0].name} (nothing planted), panel b = {panels[PLANTED_PANEL].name} "
        "(the planted size on the planted identity of each category)"
        + (f"; {', '.join(others)} nothing planted" if others else ""),
        "every panel is drawn from the random-effects panel model for the same trials: they "
        "share the answers' quality and each base scenario's label and position pulls (drawn "
        f"per panel, correlated {settings.panel_correlation:g} between panels); each panel draws "
        "its own judges' leniency, halo, debate-shared noise, score noise and position-decided "
        "verdicts",
        "trials in design_sizes are per panel: every panel judges all of them",
    ]
    if settings.engine != "panel":
        notes.append(
            "the panel comparison draws its panels from the panel model whatever --engine says "
            "(--engine applies to the single-panel tables)"
        )
    return notes


def _recommendation(
    analysis: str, block: Mapping[str, Any], sizes: Mapping[str, Mapping[str, Any]]
) -> str:
    chosen = block["recommended"][analysis]
    other = "independent" if analysis == "paired" else "paired"
    shift = f"{chosen['size']:g}-point"

    def weakest(scale: str) -> str:
        rates = [
            float(row[other]["rate"] or 0.0)
            for row in block["power"]
            if row["scale"] == scale and row["size"] == chosen["size"]
        ]
        return f"{min(rates):.0%}" if rates else "-"

    who = ANALYSES[analysis]
    if chosen["scale"] is not None:
        return (
            f"Separating two panels: {_describe(sizes[chosen['scale']])} is the smallest "
            f"design at which {who} told a planted {shift} difference in bias apart in "
            f"{chosen['power']:.0%} of simulated runs in its weakest category (target "
            f"{TARGET_POWER:.0%}; the {other} analysis of the same runs: "
            f"{weakest(chosen['scale'])})."
        )
    best = sizes[chosen["best_scale"]]
    line = (
        f"Separating two panels: no simulated design reached {TARGET_POWER:.0%} with {who} for "
        f"a {shift} difference in bias: the largest, {_describe(best)}, told it apart in "
        f"{chosen['best_power']:.0%} of runs in its weakest category (the {other} analysis: "
        f"{weakest(chosen['best_scale'])})."
    )
    factor = chosen["extrapolated_factor"]
    if factor is None:
        return line + " Power there is too low to extrapolate from; simulate larger designs."
    bases = math.ceil(best["bases"] * factor)
    larger = chosen.get("extrapolated_from_size")
    source = (
        f" from the {chosen['extrapolated_from_power']:.0%} power at {larger:g} points"
        if larger
        else ""
    )
    return line + (
        f" About {factor:.1f}x as many base scenarios (about {bases}) would be needed "
        f"(EXTRAPOLATED{source} by a normal approximation, not simulated)."
    )


def comparison_block(
    rows: Sequence[Mapping[str, Any]],
    scales: Sequence[str],
    settings: SimulationSettings,
    panels: Sequence[SimulatedPanel],
    design_sizes: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """simulate.json's ``panel_comparison``: the panels, the tables, the recommendations."""
    block: dict[str, Any] = {
        "panels": [
            {"name": panel.name, "judges": list(panel.judges), "planted": i == PLANTED_PANEL}
            for i, panel in enumerate(panels)
        ],
        "a": panels[0].name,
        "b": panels[PLANTED_PANEL].name,
        "correlation": settings.panel_correlation,
        **panel_calibration_tables(pd.DataFrame(list(rows)), scales, settings.alpha),
        "target_power": TARGET_POWER,
        "notes": _notes(settings, panels),
        "what": WHAT,
    }
    sizes = {row["scale"]: row for row in design_sizes}
    planted = any(block["recommended"][analysis] for analysis in ANALYSES)
    block["recommendations"] = (
        [_recommendation(analysis, block, sizes) for analysis in ANALYSES]
        if planted
        else ["No difference was planted, so no design is recommended (add sizes above 0)."]
    )
    return block
