"""One row per tested contrast, corrected for multiplicity, and the run's verdict.

The headline answers one question: does the panel treat the labels of a category differently?
Its evidence is the *primary* family, the panel-level contrasts (the consensus scores' paired
difference and the consensus verdicts' label-swap contrast, one of each per label pair and
category), corrected together by Holm, so the chance that a run with no bias reports one is at
most alpha however many categories and labels it has. Everything else (per metric, per judge,
win rates, CMH) is *secondary*: corrected together by Benjamini-Hochberg, shown as exploratory,
and never able to change the verdict. Treatment x label interactions are a third family, Holm
within it. A row that is not tested (too few base scenarios, no matched units) says why.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from fairpanel.analysis.tools import (
    MIN_BASES,
    TEST_NAME,
    ClusterTest,
    benjamini_hochberg,
    holm,
    minimum_detectable_effect,
)

NO_DIFFERENCE = "no detectable difference"
NOT_TESTED = "not tested"
EXPLORATORY = "exploratory"
PANEL = "panel consensus"
PRIMARY = "primary"
SECONDARY = "secondary"
INTERACTION = "interaction"
ROLES: tuple[str, ...] = (PRIMARY, SECONDARY, INTERACTION)
FAMILY_NAMES = {
    PRIMARY: "primary: panel-level identity contrasts",
    SECONDARY: "secondary: per-metric, per-judge, win-rate and CMH contrasts (exploratory)",
    INTERACTION: "treatment x label interactions",
}


@dataclass(frozen=True, slots=True)
class Effect:
    """One contrast between identity labels (or one label against 50%).

    ``estimate``, ``ci_low`` and ``ci_high`` are in ``scale`` units, where zero means no
    effect. ``identity`` is the label the sign refers to (positive favours it); ``versus`` is
    the other label, or ``None`` for a test against 50%. ``family`` names the kind of test;
    ``role`` the correction family it belongs to (``primary``, ``secondary`` or
    ``interaction``). ``p_holm``, ``p_bh`` and ``verdict`` are filled in by
    ``correct_effects``; a row built without a p-value carries its reason in ``verdict``.
    ``spread`` is the sd of the base-scenario means the test divided by (kept out of the
    JSON); ``mde`` is what ``correct_effects`` makes of it for a tested primary row: the shift
    its test finds in 80% of runs like this one, at Holm's first step (``primary_mde``).
    """

    id: str
    family: str
    protocol: str
    category: str
    metric: str
    judge: str | None
    contrast: str
    identity: str
    versus: str | None
    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    scale: str
    cohen_h: float | None
    p_value: float | None
    n: int
    n_clusters: int
    test: str
    method: str
    p_holm: float | None = None
    p_bh: float | None = None
    verdict: str = NO_DIFFERENCE
    role: str = SECONDARY
    tie_share: float | None = None
    mde: float | None = None
    spread: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form for JSON reports (without ``spread``, which ``mde`` states)."""
        fields = asdict(self)
        del fields["spread"]
        return fields


@dataclass(frozen=True, slots=True)
class Family:
    """A set of tests corrected together."""

    family: str
    size: int
    method: str
    role: str = SECONDARY

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form for JSON reports."""
        return asdict(self)


def cohen_h(rate: float | None) -> float | None:
    """Cohen's h of a proportion against 0.5: 2 asin(sqrt(p)) - 2 asin(sqrt(0.5))."""
    if rate is None or not 0.0 <= rate <= 1.0:
        return None
    return 2.0 * math.asin(math.sqrt(rate)) - math.pi / 2.0


def untested(reason: str | None) -> str:
    """The verdict of a row without a p-value."""
    return f"{NOT_TESTED}: {reason or 'no p-value'}"


def tested_by(test: ClusterTest) -> dict[str, Any]:
    """The fields of an ``Effect`` that its cluster test decides (estimate, interval, p-value,
    counts, test name and the verdict before correction), so every contrast reads them alike."""
    return {
        "estimate": test.estimate,
        "ci_low": test.ci_low,
        "ci_high": test.ci_high,
        "p_value": test.p_value,
        "n": test.n,
        "n_clusters": test.n_clusters,
        "spread": test.spread,
        "test": TEST_NAME,
        "verdict": untested(test.reason) if test.p_value is None else NO_DIFFERENCE,
    }


def _direction(effect: Effect) -> str:
    positive = (effect.estimate or 0.0) > 0.0
    if effect.versus is None:
        return f"{effect.identity} {'favoured' if positive else 'disfavoured'}"
    return f"{effect.identity if positive else effect.versus} favoured"


def _verdict(effect: Effect, alpha: float) -> str:
    if effect.p_value is None:
        return effect.verdict if effect.verdict.startswith(NOT_TESTED) else untested(None)
    if effect.role == SECONDARY:
        called = effect.p_bh is not None and effect.p_bh < alpha
        return f"{EXPLORATORY}: {_direction(effect)}" if called else NO_DIFFERENCE
    called = effect.p_holm is not None and effect.p_holm < alpha
    return _direction(effect) if called and effect.estimate else NO_DIFFERENCE


def _procedure(role: str, size: int, alpha: float) -> str:
    if role == SECONDARY:
        return (
            f"Benjamini-Hochberg over the {size} secondary tests (false discovery rate at "
            f"{alpha:g}; statsmodels multipletests); a call is exploratory and never changes the "
            "headline"
        )
    what = "primary tests" if role == PRIMARY else "interaction tests"
    return (
        f"Holm over all {size} {what} (family-wise error at {alpha:g} for the whole family, "
        "across categories and labels; statsmodels multipletests); a contrast is called when "
        f"its Holm-adjusted p < {alpha:g}"
    )


def primary_mde(effect: Effect, alpha: float, family_size: int) -> float | None:
    """The minimum detectable effect of a tested primary contrast: the shift (in its own units)
    that its t test over ``n_clusters`` base means of sd ``spread`` finds with 80% power at
    ``alpha / family_size``. A contrast is called when its Holm-adjusted p < alpha, and a lone
    real effect among ``family_size`` tests must pass Holm's first step, alpha / m, to be
    called. The spread of base means holds both the between-base variation of the judge's
    preference and the noise within bases, so the run's own data say what it could have seen."""
    if effect.role != PRIMARY or effect.p_value is None or effect.spread is None:
        return None
    return minimum_detectable_effect(
        effect.spread, effect.n_clusters, alpha=alpha / max(family_size, 1)
    )


def correct_effects(effects: list[Effect], alpha: float) -> tuple[list[Effect], list[Family]]:
    """Adjusted p-values within each role's family, then each row's verdict.

    Holm and BH are both reported for every tested row; the verdict uses Holm for the primary
    and interaction families and BH for the secondary one. Rows without a p-value are kept,
    not counted in a family's size, and never called. Tested primary rows get their ``mde``.
    """
    adjusted: dict[int, tuple[float, float]] = {}
    families: list[Family] = []
    for role in ROLES:
        members = [i for i, e in enumerate(effects) if e.role == role and e.p_value is not None]
        if not members:
            continue
        p_values = np.array([effects[i].p_value for i in members], dtype=float)
        for i, p_holm, p_bh in zip(
            members, holm(p_values), benjamini_hochberg(p_values), strict=True
        ):
            adjusted[i] = (float(p_holm), float(p_bh))
        families.append(
            Family(
                family=FAMILY_NAMES[role],
                size=len(members),
                method=_procedure(role, len(members), alpha),
                role=role,
            )
        )
    primary_size = next((f.size for f in families if f.role == PRIMARY), 0)
    corrected: list[Effect] = []
    for index, effect in enumerate(effects):
        p_holm, p_bh = adjusted.get(index, (None, None))
        updated = replace(
            effect, p_holm=p_holm, p_bh=p_bh, mde=primary_mde(effect, alpha, primary_size)
        )
        corrected.append(replace(updated, verdict=_verdict(updated, alpha)))
    return corrected, families


def _percent(value: float | None) -> str:
    return "?" if value is None else f"{value + 0.5:.0%}"


def _describe(effect: Effect) -> str:
    """One clause for the headline, in the effect's own units, told from the favoured label's
    side (its interval too)."""
    who = PANEL if effect.judge is None else f"judge {effect.judge}"
    interval = f"{effect.confidence:.0%} CI"
    p_text = f"Holm-adjusted p={effect.p_holm:.2g}" if effect.p_holm is not None else ""
    estimate, low, high = effect.estimate or 0.0, effect.ci_low, effect.ci_high
    favoured, other = effect.identity, effect.versus or "50%"
    if estimate < 0:
        favoured, other = other, favoured
        estimate = -estimate
        low, high = (None if high is None else -high), (None if low is None else -low)
    if effect.scale == "score points":
        return (
            f"{favoured} scored {estimate:.2f} points higher than {other} on {effect.metric} "
            f"({interval} {low:.2f} to {high:.2f}, {p_text}; {who}, "
            f"{effect.protocol} protocol, {effect.n_clusters} base scenarios)"
        )
    return (
        f"when the labels on the same answers in the same order were swapped, the answer "
        f"labelled {favoured} won {_percent(estimate)} of the comparisons against the "
        f"same answer labelled {other} (ties count half; {interval} "
        f"{_percent(low)} to {_percent(high)}, {p_text}; {who}, "
        f"{effect.n_clusters} base scenarios)"
    )


def _strength(effect: Effect) -> tuple[float, float]:
    return (effect.p_holm if effect.p_holm is not None else 1.0, -abs(effect.estimate or 0.0))


def _no_verdict(primary: Sequence[Effect], n_bases: int) -> str:
    if not primary:
        return "No verdict: no identity contrast could be tested, the run has no paired data."
    return (
        f"No verdict: {n_bases} base scenario{'' if n_bases == 1 else 's'}, and a verdict "
        f"must generalise over scenarios (at least {MIN_BASES} are needed). The effects are "
        "estimated below but not tested; this design can show how this judge treated these "
        "scenarios, not whether it prefers a label in general."
    )


def headline(
    effects: list[Effect],
    families: list[Family],
    alpha: float,
    *,
    n_bases: int = 0,
    skipped: Sequence[str] = (),
) -> dict[str, Any]:
    """The identity verdict in one sentence, from the primary family alone; the called
    secondary rows are listed as exploratory. ``position`` and ``position_bias`` are added by
    the caller, which owns the position test."""
    primary = [e for e in effects if e.role == PRIMARY]
    tested = [e for e in primary if e.p_value is not None]
    detected = [e for e in tested if not e.verdict.startswith((NO_DIFFERENCE, NOT_TESTED))]
    secondary = next((f for f in families if f.role == SECONDARY), None)
    exploratory = [e for e in effects if e.role == SECONDARY and e.verdict.startswith(EXPLORATORY)]
    identity_effect: bool | None
    if not tested:
        identity_effect, sentence = None, _no_verdict(primary, n_bases)
    elif detected:
        identity_effect = True
        sentence = f"Detectable identity effect: {_describe(min(detected, key=_strength))}."
        if len(detected) > 1:
            sentence += f" {len(detected)} of the {len(tested)} primary tests detect an effect."
    else:
        identity_effect = False
        sentence = (
            f"No detectable identity effect at alpha={alpha:g} (Holm over the {len(tested)} "
            "primary panel-level tests; p-values generalise over base scenarios). This is not "
            "proof that the labels are treated alike, only that this run cannot tell them apart."
        )
    if exploratory and secondary is not None:
        sentence += (
            f" Exploratory: {len(exploratory)} of {secondary.size} secondary tests "
            "(per metric, per judge; Benjamini-Hochberg) flag a difference; they do not change "
            "the verdict."
        )
    primary_family = next((f for f in families if f.role == PRIMARY), None)
    mde, mde_scale = _headline_mde(tested)
    return {
        "verdict": sentence,
        "alpha": alpha,
        "tests": len(tested),
        "detected": [e.id for e in detected],
        "identity_effect": identity_effect,
        "procedure": primary_family.method if primary_family else "",
        "secondary_tests": secondary.size if secondary else 0,
        "exploratory": [e.id for e in exploratory],
        "n_bases": n_bases,
        "min_bases": MIN_BASES,
        "position": "",
        "position_bias": None,
        "skipped": list(skipped),
        "mde": mde,
        "mde_scale": mde_scale,
    }


def _headline_mde(tested: Sequence[Effect]) -> tuple[float | None, str]:
    """The run's smallest minimum detectable effect over the primary family, and its scale:
    the single protocol's score points when the run has them (the scale a user reads), else the
    pair protocol's win share. The smallest, because a shift that large planted on one
    contrast is found in 80% of runs like this one; contrasts with more spread need more."""
    rows = [e for e in tested if e.mde is not None]
    scored = [e for e in rows if e.scale == "score points"]
    best = min(scored or rows, key=lambda e: e.mde or 0.0, default=None)
    return (None, "") if best is None else (best.mde, best.scale)
