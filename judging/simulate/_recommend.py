"""What a simulation means for the design: how large a design detects each planted size.

One sentence per planted size and category, from the test family that gets there with the
smallest design; sizes beyond the simulated designs are extrapolated and say so.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from fairpanel.analysis import TARGET_POWER

__all__ = ["recommendations"]


def _describe(size: Mapping[str, Any]) -> str:
    replicates = f" x {size['replicates']} replicates" if size["replicates"] > 1 else ""
    return (
        f"{size['bases']} bases x {size['derived_per_base']} derived{replicates} "
        f"({size['trials']:,} trials)"
    )


def _soonest(rows: list[Mapping[str, Any]], rank: Mapping[str, int]) -> Mapping[str, Any]:
    """The family that detects a planted size soonest: reached at the smallest simulated
    scale, else the smallest extrapolated growth, else the first (power too low everywhere)."""
    reached = [r for r in rows if r["smallest_scale"] is not None]
    if reached:
        return min(reached, key=lambda r: (rank[r["smallest_scale"]], -r["power_there"]))
    grown = [r for r in rows if r["extrapolated_factor"] is not None]
    if grown:
        return min(grown, key=lambda r: r["extrapolated_factor"])
    return rows[0]


def recommendations(result: Mapping[str, Any]) -> list[str]:
    """One sentence per planted size and category, from whichever test family gets there with
    the smallest design: the smallest simulated design that reaches the target power, or an
    extrapolated size, labelled as such."""
    sizes = {row["scale"]: row for row in result["design_sizes"]}
    rank = {row["scale"]: index for index, row in enumerate(result["design_sizes"])}
    needed = result["needed"]
    if not needed:
        return ["No planted contrast was testable in this design."]
    grouped: dict[tuple[Any, str], list[Mapping[str, Any]]] = {}
    for row in needed:
        grouped.setdefault((row["size"], row["category"]), []).append(row)
    lines = []
    for rows in grouped.values():
        row = _soonest(rows, rank)
        family = row["family"]
        unit = "point" if row["size"] == 1 else "points"
        what = f"{row['size']:g} {unit} for {row['category']}"
        if row["smallest_scale"] is not None:
            lines.append(
                f"With {_describe(sizes[row['smallest_scale']])} you detect {what} with "
                f"{row['power_there']:.0%} power (target {TARGET_POWER:.0%}; {family})."
            )
            continue
        source = sizes[row["extrapolated_from"]]
        factor = row["extrapolated_factor"]
        if factor is None:
            lines.append(
                f"{what}: power at {_describe(source)} is too low to extrapolate from in any "
                "test family; simulate larger designs (--scales)."
            )
            continue
        bases = math.ceil(source["bases"] * factor)
        lines.append(
            f"For {what} you need about {factor:.1f}x {_describe(source)}, e.g. about {bases} "
            f"bases at {source['derived_per_base']} derived each (EXTRAPOLATED by a normal "
            f"approximation from the simulated power, not simulated; {family})."
        )
    return lines
