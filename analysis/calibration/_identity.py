"""Calibration by simulation of the rule the user reads: how often the headline calls an identity
effect or a position bias when nothing is planted, and how often it finds a planted shift.

``identity_test_outcomes`` runs ``verdict_statistics`` (the headline's own tests, families,
corrections and verdict rule, without resampling) on one simulated run and keeps what the rates
need: the headline's identity verdict, its position claim, and for each planted target whether
a primary contrast of that category called the planted identity favoured.
``calibration_tables`` pools those records over simulated runs, which are independent, so each
rate is a binomial proportion with an exact (Clopper-Pearson) interval:

- false positives, per design size, over the runs with nothing planted: the share in which the
  headline said "Detectable identity effect", and the share in which it claimed a position bias
  (only when no position preference was planted; else that row is power to find it);
- power, per design size, planted size and category: the share of runs in which a primary
  contrast called the planted identity favoured (called against it does not count);
- the recommended design: the smallest simulated size whose power reaches ``TARGET_POWER`` at
  the recommendation's planted size in every category.

A run without a verdict (``identity_effect`` None: too few base scenarios or nothing testable)
counts as no call, and the number of such runs is reported beside the rate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
from scipy.stats import norm

from fairpanel.analysis._frames import jsonable
from fairpanel.analysis._statistics import verdict_statistics
from fairpanel.analysis.calibration._mde_check import mde_check, planted_contrast
from fairpanel.analysis.calibration._targets import RECOMMEND_SIZE, TARGET_POWER
from fairpanel.analysis.tools import exact_rate
from fairpanel.analysis.verdict import PRIMARY

__all__ = [
    "calibration_tables",
    "identity_test_outcomes",
]


def _planted_called(effects: Sequence[Mapping[str, Any]], category: str, planted: str) -> bool:
    """Whether a primary contrast of ``category`` that involves ``planted`` called it favoured
    (its verdict names it: "<label> favoured")."""
    return any(
        row.get("role") == PRIMARY
        and row.get("category") == category
        and planted in (row.get("identity"), row.get("versus"))
        and row.get("verdict") == f"{planted} favoured"
        for row in effects
    )


def identity_test_outcomes(
    scores: pd.DataFrame,
    verdicts: pd.DataFrame,
    turns: pd.DataFrame,
    consensus: pd.DataFrame | None,
    targets: Mapping[str, tuple[str, str]],
    *,
    alpha: float = 0.05,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """One simulated run as the user would read it: ``identity_effect`` and ``position_bias``
    from the headline (None: no verdict possible), ``tests`` (the primary family's size) and
    ``detected``: per category of ``targets`` (category -> (planted, reference) labels), whether
    the planted identity was called favoured by a primary contrast; ``contrast_mde`` and
    ``contrast_found``: per category, the stated mde of its single-protocol planted-against-
    reference contrast and whether that contrast alone found the planted label at Holm's first
    step (None without such a contrast), for ``mde_check``."""
    # The exploratory (secondary) rows never change the headline: leaving them out computes the
    # same verdicts in a fraction of the time.
    stats = verdict_statistics(
        scores, verdicts, turns, consensus, alpha=alpha, confidence=confidence, secondary=False
    )
    top = stats["headline"]
    family_size = int(top.get("tests") or 0)
    contrasts = {
        category: planted_contrast(
            stats["effects"],
            category,
            planted,
            reference,
            alpha=alpha,
            family_size=family_size,
        )
        for category, (planted, reference) in targets.items()
    }
    return {
        "identity_effect": top.get("identity_effect"),
        "position_bias": top.get("position_bias"),
        "tests": int(top.get("tests") or 0),
        "detected": {
            category: _planted_called(stats["effects"], category, planted)
            for category, (planted, _reference) in targets.items()
        },
        "contrast_mde": {category: mde for category, (mde, _) in contrasts.items()},
        "contrast_found": {category: found for category, (_, found) in contrasts.items()},
    }


def _calls(values: pd.Series) -> int:
    """How many runs called it (True; False is no call, None or NaN no verdict)."""
    return sum(1 for value in values if not _missing(value) and bool(value))


def _missing(value: object) -> bool:
    return value is None or value != value  # None, or NaN where pandas filled a gap


def _false_positives(
    null: pd.DataFrame, scales: Sequence[str], position_planted: bool, confidence: float
) -> list[dict[str, Any]]:
    rows = []
    for scale in scales:
        runs = null.loc[null["scale"] == scale]
        if runs.empty:
            continue
        identity = runs["identity_effect"]
        position = runs["position_bias"]
        rows.append(
            {
                "scale": scale,
                "runs": len(runs),
                "identity_effect": exact_rate(_calls(identity), len(runs), confidence),
                "identity_no_verdict": sum(_missing(value) for value in identity),
                # With a planted position preference a position claim is no false positive.
                "position_bias": None
                if position_planted
                else exact_rate(_calls(position), len(runs), confidence),
                "position_no_verdict": sum(_missing(value) for value in position),
            }
        )
    return rows


def _power(planted: pd.DataFrame, confidence: float) -> list[dict[str, Any]]:
    rows = []
    for (scale, size, category), runs in planted.groupby(["scale", "size", "category"], sort=False):
        rows.append(
            {
                "scale": scale,
                "size": size,
                "category": category,
                "power": exact_rate(int(runs["detected"].sum()), len(runs), confidence),
                "headline_called": exact_rate(
                    _calls(runs["identity_effect"]), len(runs), confidence
                ),
            }
        )
    return rows


def _extrapolated_factor(power: float, family_size: float, alpha: float) -> float | None:
    """How many times the design must grow for ``TARGET_POWER``, from the power seen at one
    size: a normal approximation in which the test statistic grows with the square root of the
    number of base scenarios and the critical value is Bonferroni's over the primary family
    (Holm's first step). None when the observed power carries no signal to extrapolate from."""
    if not 0.05 < power < 0.995:
        return None
    critical = float(norm.ppf(1.0 - alpha / (2.0 * max(family_size, 1.0))))
    observed = critical + float(norm.ppf(power))
    if observed <= 0.0:
        return None
    return float(((critical + float(norm.ppf(TARGET_POWER))) / observed) ** 2)


def _recommended(
    power_rows: Sequence[Mapping[str, Any]],
    scales: Sequence[str],
    family_size: Mapping[str, float],
    alpha: float,
) -> dict[str, Any] | None:
    """The smallest simulated scale at which every category's power at the recommendation's
    size reaches ``TARGET_POWER`` (the weakest category decides); else the largest scale's
    weakest power and how far it would have to grow (extrapolated)."""
    sizes = sorted({float(row["size"]) for row in power_rows if row["size"]})
    if not sizes:
        return None
    size = RECOMMEND_SIZE if RECOMMEND_SIZE in sizes else sizes[0]
    weakest: dict[str, float] = {}
    for row in power_rows:
        if float(row["size"]) == size:
            rate = float(row["power"]["rate"] or 0.0)
            weakest[row["scale"]] = min(weakest.get(row["scale"], 1.0), rate)
    order = [scale for scale in scales if scale in weakest]
    reached = [scale for scale in order if weakest[scale] >= TARGET_POWER]
    largest = order[-1]
    return {
        "size": size,
        "scale": reached[0] if reached else None,
        "power": weakest[reached[0]] if reached else None,
        "best_scale": largest,
        "best_power": weakest[largest],
        "extrapolated_factor": None
        if reached
        else _extrapolated_factor(weakest[largest], family_size.get(largest, 1.0), alpha),
    }


def calibration_tables(
    runs: pd.DataFrame,
    scales: Sequence[str],
    alpha: float,
    *,
    position_planted: bool = False,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """``false_positives``, ``power`` and ``recommended`` from one row per (simulated run,
    design size, category) with ``scale`` (a name from ``scales``, smallest first), ``size``,
    ``rep``, ``category``, ``identity_effect``, ``position_bias``, ``tests`` and ``detected``
    (the ``identity_test_outcomes`` fields, ``detected`` for that row's category)."""
    one_per_run = runs.drop_duplicates(["scale", "size", "rep"])
    null = one_per_run.loc[one_per_run["size"] == 0]
    power = _power(runs.loc[(runs["size"] != 0) & runs["category"].notna()], confidence)
    family_size = {
        str(scale): float(size)
        for scale, size in one_per_run.groupby("scale")["tests"].mean().items()
    }
    result: dict[str, Any] = jsonable(
        {
            "false_positives": _false_positives(null, scales, position_planted, confidence),
            "power": power,
            "recommended": _recommended(power, scales, family_size, alpha),
            "target_power": TARGET_POWER,
            "mde_check": mde_check(runs, scales, target=TARGET_POWER, confidence=confidence),
        }
    )
    return result
