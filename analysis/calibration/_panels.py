"""Calibration by simulation of the panel comparison: how often two panels with equal bias are
called different, and how often a planted difference in bias is found, by the paired analysis
of a multi-panel run and by the comparison of two independent runs.

``panel_test_outcomes`` reads one simulated multi-panel run two ways:

- paired, as the run itself does: ``panel_differences`` on the panels' frames (every pair of
  panels, unit by unit, one weighted Holm procedure over every difference of the run);
- independent, as ``fairpanel compare`` does for runs that share no trials: each panel's own
  ``verdict_statistics`` (the headline rule), and for every pair of panels each primary
  contrast and the position bias compared by ``difference_of_estimates`` (a normal interval
  from the two intervals), one Holm procedure over those, a difference called when its Holm p
  is below alpha and its interval excludes 0.

For the planted pair (panel a without a shift, panel b with one on the planted identity of each
category) and each category, a run *detected* the difference when a primary contrast of that
category involving the planted identity was called, in the planted direction (b's contrast further
toward the planted identity than a's). The false-call rate is over the kinds on which simulated
panels of equal bias truly do not differ (primary contrasts, position, parse failures); agreement is
left out of it, because each panel draws its own judges, whose leniency differs, so the two panels'
agreement differs in fact and calling it is no error (its call rate is reported beside).
``panel_calibration_tables`` pools the runs, which are independent, into rates with exact intervals
(``calibration._identity``'s), and recommends the smallest simulated design whose paired (and
independent) power reaches ``TARGET_POWER``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from fairpanel.analysis._frames import jsonable
from fairpanel.analysis._statistics import verdict_statistics
from fairpanel.analysis.calibration._identity import _extrapolated_factor, _recommended
from fairpanel.analysis.panels import (
    difference_of_estimates,
    mark_real_differences,
    panel_differences,
)
from fairpanel.analysis.results import PanelDifferenceRow
from fairpanel.analysis.tools import DEFAULT_BOOTSTRAP, exact_rate
from fairpanel.analysis.verdict import PRIMARY, ArmFrames

__all__ = ["EQUAL_KINDS", "panel_calibration_tables", "panel_test_outcomes"]

EQUAL_KINDS: tuple[str, ...] = ("single", "pair", "position", "parse_failures")
"""The kinds of difference on which simulated panels with equal bias do not differ."""

ANALYSES: tuple[str, ...] = ("paired", "independent")


def _sides(row: PanelDifferenceRow) -> tuple[str, str]:
    """(identity, versus) of a contrast row ("female - male", "female vs male")."""
    identity, _, versus = row.contrast.partition(" - " if row.kind == "single" else " vs ")
    return identity, versus


def _direction(identity: str, versus: str, planted: str) -> int:
    """+1 when the contrast is the planted identity minus another, -1 when the reverse, 0 when
    the planted identity is in neither side."""
    return 1 if identity == planted else -1 if versus == planted else 0


def _in_planted_direction(sign: int, difference: float | None) -> bool:
    return sign != 0 and difference is not None and sign * difference > 0


def _paired(
    frames_by_panel: Mapping[str, ArmFrames],
    pair: tuple[str, str],
    planted: Mapping[str, str],
    alpha: float,
    confidence: float,
    bootstrap_reps: int,
    seed: int,
) -> dict[str, Any]:
    comparison = panel_differences(
        frames_by_panel,
        alpha=alpha,
        confidence=confidence,
        bootstrap_reps=bootstrap_reps,
        seed=seed,
    )
    rows = comparison.differences
    detected = dict.fromkeys(planted, False)
    for row in rows:
        category = row.category or ""
        if (
            row.called
            and row.kind in ("single", "pair")
            and (row.panel_a, row.panel_b) == pair
            and category in planted
        ):
            sign = _direction(*_sides(row), planted[category])
            if _in_planted_direction(sign, row.difference):
                detected[category] = True
    weights = [row.weight for row in rows if row.kind in ("single", "pair") and row.weight]
    return {
        "tests": comparison.tests,
        # A primary difference is tested as in a Bonferroni family of 1 / its weight.
        "family": 1.0 / float(max(weights)) if weights else float(comparison.tests),
        "called": any(row.called for row in rows if row.kind in EQUAL_KINDS),
        "agreement_called": any(row.called for row in rows if row.kind == "agreement"),
        "detected": detected,
    }


def _estimate(effect: Mapping[str, Any], value: str = "estimate") -> tuple[float, float, float]:
    return float(effect[value]), float(effect["ci_low"]), float(effect["ci_high"])


def _comparable(effect: Mapping[str, Any], value: str = "estimate") -> bool:
    return all(effect.get(key) is not None for key in (value, "ci_low", "ci_high"))


def _independent(
    stats_by_panel: Mapping[str, Mapping[str, Any]],
    pair: tuple[str, str],
    planted: Mapping[str, str],
    alpha: float,
) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for a, b in itertools.combinations(stats_by_panel, 2):
        effects_b = {e["id"]: e for e in stats_by_panel[b]["effects"]}
        for effect in stats_by_panel[a]["effects"]:
            other = effects_b.get(effect["id"])
            if other is None or effect.get("role") != PRIMARY:
                continue
            if not (_comparable(effect) and _comparable(other)):
                continue
            confidence = float(effect.get("confidence") or 0.95)
            difference, low, high, p_value = difference_of_estimates(
                _estimate(other), _estimate(effect), confidence
            )
            target = planted.get(effect["category"], "")
            sign = _direction(effect["identity"], effect["versus"], target)
            rows.append(
                {
                    "pair": (a, b),
                    "category": effect["category"],
                    "sign": sign,
                    "difference": difference,
                    "ci_low": low,
                    "ci_high": high,
                    "p_value": p_value,
                }
            )
        position_a = stats_by_panel[a].get("position_bias") or {}
        position_b = stats_by_panel[b].get("position_bias") or {}
        rate = "first_position_win_rate"
        if _comparable(position_a, rate) and _comparable(position_b, rate):
            confidence = float(position_a.get("confidence") or 0.95)
            difference, low, high, p_value = difference_of_estimates(
                _estimate(position_b, rate), _estimate(position_a, rate), confidence
            )
            rows.append(
                {
                    "pair": (a, b),
                    "category": None,
                    "sign": 0,
                    "difference": difference,
                    "ci_low": low,
                    "ci_high": high,
                    "p_value": p_value,
                }
            )
    mark_real_differences(rows, alpha)
    detected = dict.fromkeys(planted, False)
    for row in rows:
        planted_pair = row["pair"] == pair and row["category"] in planted
        if row["real"] and planted_pair and _in_planted_direction(row["sign"], row["difference"]):
            detected[row["category"]] = True
    tests = sum(row["p_value"] is not None for row in rows)
    return {
        "tests": tests,
        "family": float(tests),
        "called": any(row["real"] for row in rows),
        "detected": detected,
    }


def panel_test_outcomes(
    frames_by_panel: Mapping[str, ArmFrames],
    targets: Mapping[str, tuple[str, str]],
    *,
    pair: tuple[str, str],
    alpha: float = 0.05,
    confidence: float = 0.95,
    bootstrap_reps: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
) -> dict[str, Any]:
    """One simulated multi-panel run read by the paired analysis and by the independent
    comparison: per analysis, ``tests`` (how many differences it tested), ``family`` (the
    Bonferroni family a primary difference is first tested in: the tests for Holm, 1 / the
    primary weight for the paired weighted Holm), ``called`` (any difference
    called among ``EQUAL_KINDS``; the independent family holds primary contrasts and position
    only), ``detected`` per category of ``targets`` (category -> (planted, reference) labels):
    whether the planted pair ``pair`` = (a, b) was told apart on a primary contrast of the
    category in the planted direction; and for the paired analysis ``agreement_called``."""
    planted = {category: labels[0] for category, labels in targets.items()}
    stats = {
        name: verdict_statistics(
            frames.scores,
            frames.verdicts,
            frames.turns,
            frames.consensus,
            alpha=alpha,
            confidence=confidence,
            secondary=False,
        )
        for name, frames in frames_by_panel.items()
    }
    return {
        "paired": _paired(frames_by_panel, pair, planted, alpha, confidence, bootstrap_reps, seed),
        "independent": _independent(stats, pair, planted, alpha),
    }


def _false_positives(null: pd.DataFrame, scales: Sequence[str], confidence: float) -> list[Any]:
    rows = []
    for scale in scales:
        runs = null.loc[null["scale"] == scale]
        if runs.empty:
            continue
        n = len(runs)
        rows.append(
            {
                "scale": scale,
                "runs": n,
                **{
                    name: exact_rate(int(runs[f"{name}_called"].sum()), n, confidence)
                    for name in ANALYSES
                },
                "agreement_called": exact_rate(int(runs["agreement_called"].sum()), n, confidence),
                "tests": {name: float(runs[f"{name}_tests"].mean()) for name in ANALYSES},
            }
        )
    return rows


def _power(planted: pd.DataFrame, confidence: float) -> list[dict[str, Any]]:
    rows = []
    for (scale, size, category), runs in planted.groupby(["scale", "size", "category"], sort=False):
        n = len(runs)
        rows.append(
            {
                "scale": scale,
                "size": size,
                "category": category,
                **{
                    name: exact_rate(int(runs[f"{name}_detected"].sum()), n, confidence)
                    for name in ANALYSES
                },
            }
        )
    return rows


def _extrapolated(
    chosen: dict[str, Any] | None,
    power: Sequence[Mapping[str, Any]],
    analysis: str,
    family: float,
    alpha: float,
) -> dict[str, Any] | None:
    """A recommendation that no simulated design meets, extrapolated from the planted size
    (the recommendation's or a larger one) whose weakest power at the largest design is
    nearest 50%: power near alpha or near 1 says little about how far the statistic is from
    the critical value. In the normal approximation the statistic's mean is proportional to
    the planted size, so the bases needed grow with the square of the ratio of the sizes."""
    if chosen is None or chosen["scale"] is not None:
        return chosen
    weakest: dict[float, float] = {}
    for row in power:
        if row["scale"] == chosen["best_scale"] and float(row["size"]) >= chosen["size"]:
            rate = float(row[analysis]["rate"] or 0.0)
            weakest[float(row["size"])] = min(weakest.get(float(row["size"]), 1.0), rate)
    usable = {
        size: factor
        for size, rate in weakest.items()
        if (factor := _extrapolated_factor(rate, family, alpha)) is not None
    }
    if not usable:
        return chosen
    size = min(usable, key=lambda s: (abs(weakest[s] - 0.5), s))
    extrapolated = usable[size] * (size / chosen["size"]) ** 2
    if size == chosen["size"]:
        return {**chosen, "extrapolated_factor": extrapolated}
    return {
        **chosen,
        "extrapolated_factor": extrapolated,
        "extrapolated_from_size": size,
        "extrapolated_from_power": weakest[size],
    }


def panel_calibration_tables(
    runs: pd.DataFrame, scales: Sequence[str], alpha: float, *, confidence: float = 0.95
) -> dict[str, Any]:
    """``false_positives`` (size 0, per design size: each analysis's share of runs calling any
    difference of panels with equal bias, and the paired analysis's share calling an
    agreement difference), ``power`` (per design size, planted difference and category: each
    analysis's share of runs telling the planted pair apart) and ``recommended`` (per
    analysis, as ``calibration_tables`` recommends, but extrapolated from the planted size whose
    power is nearest 50%, ``extrapolated_from_size`` when it is not the recommendation's own),
    each rate with its exact interval, from
    one row per (simulated run, design size, category) with ``scale``, ``size``, ``rep``,
    ``category`` and, for ``paired`` and ``independent``, ``<analysis>_called``,
    ``<analysis>_tests``, ``<analysis>_family`` (optional: the tests when absent) and
    ``<analysis>_detected``, plus ``agreement_called``."""
    one_per_run = runs.drop_duplicates(["scale", "size", "rep"])
    null = one_per_run.loc[one_per_run["size"] == 0]
    power = _power(runs.loc[(runs["size"] != 0) & runs["category"].notna()], confidence)
    recommended = {}
    for name in ANALYSES:
        column = f"{name}_family" if f"{name}_family" in runs else f"{name}_tests"
        family = one_per_run.groupby("scale")[column].mean()
        rows = [{**row, "power": row[name]} for row in power]
        families = {str(k): float(v) for k, v in family.items()}
        chosen = _recommended(rows, scales, families, alpha)
        best = families.get(chosen["best_scale"], 1.0) if chosen else 1.0
        recommended[name] = _extrapolated(chosen, power, name, best, alpha)
    result: dict[str, Any] = jsonable(
        {
            "false_positives": _false_positives(null, scales, confidence),
            "power": power,
            "recommended": recommended,
        }
    )
    return result
