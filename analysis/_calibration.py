"""Calibration by simulation: how often each test family fires with nothing planted, and how
often it finds a planted effect, at each design size.

``identity_test_outcomes`` runs the headline analysis's own tests (the same functions, families,
Holm correction and verdict rule as ``results.json``) on one simulated data set and keeps, per
test, what the rates need. ``calibration_tables`` pools those rows over simulated repetitions:

- false-positive rate (planted size 0): per family, the share of *all* its tests with p < alpha
  (pooled over repetitions; tests of one data set share data, so its Clopper-Pearson interval
  is a little too narrow), the share of repetitions in which the family called anything after
  Holm (the family-wise error rate, with an exact interval over independent repetitions), and
  the rejection rate of the one contrast that the planted effect would hit (exact interval);
- power (planted size > 0): per family and category, the share of repetitions in which that
  contrast was called in the planted direction (Holm-adjusted p < alpha and interval clear of
  zero, as the report calls it), and the share with unadjusted p < alpha.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import pandas as pd
from scipy.stats import norm
from statsmodels.stats.proportion import proportion_confint

from fairpanel.analysis._effects import NO_DIFFERENCE, Effect, correct_effects
from fairpanel.analysis._frames import OVERALL, PROTOCOL, ROUND_KIND, jsonable
from fairpanel.analysis._paired import panel_scores, single_score_effects, with_design_columns
from fairpanel.analysis._resample import DEFAULT_BOOTSTRAP
from fairpanel.analysis._verdict_tests import pair_outcomes, pair_verdict_effects

__all__ = [
    "TARGET_POWER",
    "SimulatedTest",
    "calibration_tables",
    "clopper_pearson",
    "identity_test_outcomes",
]

TARGET_POWER = 0.8


@dataclass(frozen=True, slots=True)
class SimulatedTest:
    """One test on one simulated data set. ``target`` names the planted category when the test
    is that category's panel-level contrast of the planted identity (else None)."""

    family: str
    effect_id: str
    category: str
    panel: bool
    target: str | None
    rejected: bool
    """Unadjusted p < alpha."""
    called: bool
    """Holm-adjusted p < alpha and interval clear of zero (the report's verdict)."""
    toward_planted: bool
    """Called, and the estimate favours the planted identity."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _target_sign(effect: Effect, planted: str, reference: str, metric: str) -> int:
    """+1 or -1 when ``effect`` is the panel's contrast of the planted identity (the sign that
    favours it), 0 otherwise."""
    if effect.judge is not None:
        return 0
    if effect.protocol == "single" and effect.metric != metric:
        return 0
    if effect.versus is None:  # a win rate against 50%: the planted label, or its mirror
        return {planted: 1, reference: -1}.get(effect.identity, 0)
    if {effect.identity, effect.versus} != {planted, reference}:
        return 0
    return 1 if effect.identity == planted else -1


def identity_test_outcomes(
    scores: pd.DataFrame,
    verdicts: pd.DataFrame,
    turns: pd.DataFrame,
    consensus: pd.DataFrame | None,
    targets: Mapping[str, tuple[str, str]],
    *,
    metric: str = OVERALL,
    alpha: float = 0.05,
    seed: int = 0,
    n_boot: int = DEFAULT_BOOTSTRAP,
) -> list[SimulatedTest]:
    """Every identity test the headline analysis runs on these frames (main arm, one treatment),
    corrected as it corrects them; ``targets`` maps a category to (planted, reference) labels and
    ``metric`` is the single-protocol metric the planted shift shows in."""
    judges = with_design_columns(
        scores.loc[(scores[PROTOCOL] == "single") & (scores[ROUND_KIND] == "final")]
    )
    panel = panel_scores(scores, consensus, "final")
    effects = single_score_effects(panel, judges)
    effects += pair_verdict_effects(pair_outcomes(verdicts, turns))
    effects, _families = correct_effects(effects, alpha)
    signs = {}
    for effect in effects:
        planted, reference = targets.get(effect.category, ("", ""))
        signs[effect.id] = _target_sign(effect, planted, reference, metric) if planted else 0
    # The reference's win rate stands in for the planted one's only where the planted label has
    # no test of its own (two labels: only the first is tested, the other is its mirror).
    own_win_rate = {e.category for e in effects if e.versus is None and signs[e.id] == 1}
    for effect in effects:
        if effect.versus is None and signs[effect.id] == -1 and effect.category in own_win_rate:
            signs[effect.id] = 0
    outcomes = []
    for effect in effects:
        if effect.p_value is None:
            continue
        sign = signs[effect.id]
        called = effect.verdict != NO_DIFFERENCE
        outcomes.append(
            SimulatedTest(
                family=effect.family,
                effect_id=effect.id,
                category=effect.category,
                panel=effect.judge is None,
                target=effect.category if sign else None,
                rejected=effect.p_value < alpha,
                called=called,
                toward_planted=called and sign * (effect.estimate or 0.0) > 0,
            )
        )
    return outcomes


def clopper_pearson(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact binomial interval (statsmodels proportion_confint, method='beta')."""
    if trials == 0:
        return (0.0, 1.0)
    low, high = proportion_confint(successes, trials, alpha=1.0 - confidence, method="beta")
    return float(low), float(high)


def _rate(successes: int, trials: int, confidence: float) -> dict[str, Any]:
    low, high = clopper_pearson(successes, trials, confidence)
    return {
        "rate": successes / trials if trials else None,
        "ci_low": low,
        "ci_high": high,
        "k": successes,
        "n": trials,
    }


def _false_positives(null: pd.DataFrame, confidence: float) -> list[dict[str, Any]]:
    rows = []
    for (scale, family), tests in null.groupby(["scale", "family"], sort=False):
        reps = tests.groupby("rep")
        targets = tests.loc[tests["target"].notna()]
        rows.append(
            {
                "scale": scale,
                "family": family,
                "tests_per_repetition": round(len(tests) / reps.ngroups, 1),
                "per_test": _rate(int(tests["rejected"].sum()), len(tests), confidence),
                "family_wise": _rate(int(reps["called"].any().sum()), reps.ngroups, confidence),
                "target_contrasts": _rate(int(targets["rejected"].sum()), len(targets), confidence),
            }
        )
    return rows


def _power(planted: pd.DataFrame, confidence: float) -> list[dict[str, Any]]:
    rows = []
    keys = ["scale", "size", "family", "target"]
    for (scale, size, family, category), tests in planted.groupby(keys, sort=False):
        rows.append(
            {
                "scale": scale,
                "size": size,
                "family": family,
                "category": category,
                "power": _rate(int(tests["toward_planted"].sum()), len(tests), confidence),
                "rejected_unadjusted": _rate(int(tests["rejected"].sum()), len(tests), confidence),
            }
        )
    return rows


def _extrapolated_factor(power: float, family_size: float, alpha: float) -> float | None:
    """How many times the design must grow for ``TARGET_POWER``, from the power seen at one
    size: a normal approximation in which the test statistic's mean grows with the square root
    of the design and the critical value is Bonferroni's over the family (Holm's first step).
    None when the observed power carries no signal to extrapolate from."""
    if not 0.05 < power < 0.995:
        return None
    critical = float(norm.ppf(1.0 - alpha / (2.0 * max(family_size, 1.0))))
    observed = critical + float(norm.ppf(power))
    if observed <= 0.0:
        return None
    return float(((critical + float(norm.ppf(TARGET_POWER))) / observed) ** 2)


def _needed(
    power_rows: Sequence[Mapping[str, Any]], order: Sequence[str], alpha: float
) -> list[dict[str, Any]]:
    """Per planted size, family and category: the smallest simulated scale whose power reaches
    ``TARGET_POWER``, or else the growth of the largest simulated scale that would reach it
    (extrapolated, and labelled so)."""
    rank = {scale: index for index, scale in enumerate(order)}
    grouped: dict[tuple[Any, ...], list[Mapping[str, Any]]] = {}
    for row in power_rows:
        grouped.setdefault((row["size"], row["family"], row["category"]), []).append(row)
    needed = []
    for (size, family, category), rows in grouped.items():
        rows = sorted(rows, key=lambda r: rank[r["scale"]])
        reached = [r for r in rows if (r["power"]["rate"] or 0.0) >= TARGET_POWER]
        largest = rows[-1]
        factor = None
        if not reached:
            factor = _extrapolated_factor(
                float(largest["power"]["rate"] or 0.0), float(largest["family_size"]), alpha
            )
        needed.append(
            {
                "size": size,
                "family": family,
                "category": category,
                "smallest_scale": reached[0]["scale"] if reached else None,
                "power_there": reached[0]["power"]["rate"] if reached else None,
                "extrapolated_from": None if reached else largest["scale"],
                "extrapolated_factor": factor,
            }
        )
    return needed


def calibration_tables(
    outcomes: pd.DataFrame, scales: Sequence[str], alpha: float, confidence: float = 0.95
) -> dict[str, Any]:
    """``false_positives``, ``power`` and ``needed`` from one row per (test, data set) with the
    ``SimulatedTest`` fields plus ``scale`` (a name from ``scales``, smallest first), ``size``
    and ``rep``."""
    null = outcomes.loc[outcomes["size"] == 0]
    planted = outcomes.loc[(outcomes["size"] != 0) & outcomes["target"].notna()]
    power = _power(planted, confidence)
    counts = outcomes.groupby(["scale", "size", "family"]).size()
    reps = outcomes.groupby(["scale", "size", "family"])["rep"].nunique()
    family_size = (counts / reps).groupby(level=["scale", "family"]).mean()
    for row in power:
        row["family_size"] = float(family_size.loc[(row["scale"], row["family"])])
    result: dict[str, Any] = jsonable(
        {
            "false_positives": _false_positives(null, confidence) if not null.empty else [],
            "power": power,
            "needed": _needed(power, scales, alpha),
            "target_power": TARGET_POWER,
        }
    )
    return result
