"""Does a run's stated minimum detectable effect mean what it says? Checked by simulation.

Every tested primary contrast states ``mde``: the shift its t test over base-scenario means
finds in 80% of runs like the one at hand, at Holm's first step (alpha / m). simulate plants
shifts of several sizes on many runs of one design, so for the planted category's
single-protocol contrast (the planted label against the reference, in score points: the
planted size's own units) it can measure the same thing directly: the share of runs in which
that contrast's own test called the planted label favoured at alpha / m, per planted size, and
the size at which that share crosses 80%. The check compares the two.

The contrast alone is what the mde speaks of. simulate's power table counts a category found
when any of its contrasts is called (single and pair protocols, several label pairs), which is
more than one contrast's power by design; the two agree only in a one-contrast family.

The crossing is interpolated between the two planted sizes that bracket 80%, on the probit
scale (a t test's power is close to a normal cdf of the shift there, so the probit of power is
nearly linear in it); outside the planted sizes nothing is extrapolated.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
from scipy.stats import norm

from fairpanel.analysis.tools import exact_rate
from fairpanel.analysis.verdict import PRIMARY

__all__ = ["MDE_TOLERANCE", "SCORE_POINTS", "mde_check", "planted_contrast"]

MDE_TOLERANCE = 0.2
"""The stated mde agrees with simulation when it is within 20% of the simulated shift."""

SCORE_POINTS = "score points"


def planted_contrast(
    effects: Sequence[Mapping[str, Any]],
    category: str,
    planted: str,
    reference: str,
    *,
    alpha: float,
    family_size: int,
) -> tuple[float | None, bool | None]:
    """The stated mde of ``category``'s single-protocol contrast of ``planted`` against
    ``reference``, and whether its own test called ``planted`` favoured at Holm's first step
    (p < alpha / m); (None, None) when the run has no such tested contrast."""
    for row in effects:
        if (
            row.get("role") != PRIMARY
            or row.get("category") != category
            or row.get("scale") != SCORE_POINTS
            or row.get("p_value") is None
            or {row.get("identity"), row.get("versus")} != {planted, reference}
        ):
            continue
        estimate = float(row.get("estimate") or 0.0)
        favoured = estimate > 0 if row.get("identity") == planted else estimate < 0
        found = favoured and float(row["p_value"]) < alpha / max(family_size, 1)
        mde = row.get("mde")
        return (None if mde is None else float(mde)), bool(found)
    return None, None


def _probit(rate: float, runs: int) -> float:
    """The normal quantile of a rate kept off 0 and 1 by half a run."""
    floor = 0.5 / max(runs, 1)
    return float(norm.ppf(min(max(rate, floor), 1.0 - floor)))


def _crossing(curve: Sequence[tuple[float, float, int]], target: float) -> float | None:
    """The planted size at which power crosses ``target``, interpolated on the probit scale
    between the first pair of sizes that brackets it; None when none does."""
    for (low, low_rate, low_runs), (high, high_rate, high_runs) in itertools.pairwise(curve):
        if low_rate < target <= high_rate:
            z_low, z_high = _probit(low_rate, low_runs), _probit(high_rate, high_runs)
            if z_high <= z_low:
                return high
            share = (float(norm.ppf(target)) - z_low) / (z_high - z_low)
            return low + min(max(share, 0.0), 1.0) * (high - low)
    return None


def _why_unchecked(curve: Sequence[tuple[float, float, int]], target: float) -> str:
    planted = [(size, rate) for size, rate, _ in curve if size > 0]
    if not planted:
        return "no shift was planted"
    if planted[-1][1] < target:
        size, rate = planted[-1]
        return f"power at the largest planted size ({size:g}) is {rate:.0%}: plant larger sizes"
    size, rate = planted[0]
    return f"power at the smallest planted size ({size:g}) is already {rate:.0%}: plant smaller"


def _family_size(part: pd.DataFrame) -> int | None:
    """The primary family's size over these runs (the m of alpha / m)."""
    if "tests" not in part.columns:
        return None
    tests = pd.to_numeric(part["tests"], errors="coerce").dropna()
    return None if tests.empty else int(tests.median())


def mde_check(
    runs: pd.DataFrame,
    scales: Sequence[str],
    *,
    target: float,
    confidence: float = 0.95,
) -> list[dict[str, Any]]:
    """One row per design size and planted category: the median stated mde over its simulated
    runs, the contrast's power at each planted size (exact intervals), the interpolated shift
    it finds in ``target`` of runs, their ratio and whether they agree within
    ``MDE_TOLERANCE``. ``runs`` holds simulate's rows with ``mde`` and ``contrast_found``."""
    if "mde" not in runs.columns or "contrast_found" not in runs.columns:
        return []
    usable = runs.loc[runs["category"].notna() & runs["contrast_found"].notna()]
    rows: list[dict[str, Any]] = []
    for scale in scales:
        at_scale = usable.loc[usable["scale"] == scale]
        for category, part in at_scale.groupby("category", sort=True):
            stated_values = pd.to_numeric(part["mde"], errors="coerce").dropna()
            stated = float(stated_values.median()) if len(stated_values) else None
            power = [
                {
                    "size": float(str(planted)),
                    **exact_rate(int(found.sum()), len(found), confidence),
                }
                for planted, found in part.groupby("size", sort=True)["contrast_found"]
            ]
            curve = [(point["size"], point["rate"], point["n"]) for point in power]
            simulated = _crossing(curve, target)
            family = _family_size(part)
            ratio = None if stated is None or not simulated else stated / simulated
            rows.append(
                {
                    "scale": scale,
                    "category": str(category),
                    "family_size": family,
                    "stated_mde": stated,
                    "simulated_shift": simulated,
                    "ratio": ratio,
                    "agrees": None
                    if ratio is None or not math.isfinite(ratio)
                    else abs(ratio - 1.0) <= MDE_TOLERANCE,
                    "contrast_power": power,
                    "note": "" if simulated is not None else _why_unchecked(curve, target),
                }
            )
    return rows
