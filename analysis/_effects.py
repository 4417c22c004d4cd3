"""One row per tested contrast, corrected for multiplicity, with a verdict a reader can act on.

Every test in a family is corrected together (Holm for the family-wise error rate, Benjamini-
Hochberg for the false discovery rate, both from statsmodels). A contrast is called only when
its Holm-adjusted p-value is below alpha *and* its interval excludes zero; otherwise the row says
"no detectable difference", which is not a claim that the labels are treated alike, only that
this run cannot tell them apart.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from fairpanel.analysis._multitest import benjamini_hochberg, holm

NO_DIFFERENCE = "no detectable difference"
PANEL = "panel consensus"


@dataclass(frozen=True, slots=True)
class Effect:
    """One contrast between identity labels (or one label against 50%).

    ``estimate``, ``ci_low`` and ``ci_high`` are in ``scale`` units, where zero means no
    effect. ``identity`` is the label the sign refers to (positive favours it); ``versus`` is
    the other label, or ``None`` for a test against 50%. ``p_holm``, ``p_bh`` and ``verdict``
    are filled in by ``correct_effects``.
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

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form for JSON reports."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Family:
    """A set of tests corrected together."""

    family: str
    size: int
    method: str

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form for JSON reports."""
        return asdict(self)


def cohen_h(rate: float | None) -> float | None:
    """Cohen's h of a proportion against 0.5: 2 asin(sqrt(p)) - 2 asin(sqrt(0.5))."""
    if rate is None or not 0.0 <= rate <= 1.0:
        return None
    return 2.0 * math.asin(math.sqrt(rate)) - math.pi / 2.0


def _verdict(effect: Effect, alpha: float) -> str:
    if effect.p_holm is None or effect.p_holm >= alpha:
        return NO_DIFFERENCE
    if effect.ci_low is None or effect.ci_high is None or effect.ci_low <= 0.0 <= effect.ci_high:
        return NO_DIFFERENCE
    positive = effect.ci_low > 0.0
    if effect.versus is None:
        return f"{effect.identity} {'favoured' if positive else 'disfavoured'}"
    return f"{effect.identity if positive else effect.versus} favoured"


def correct_effects(effects: list[Effect], alpha: float) -> tuple[list[Effect], list[Family]]:
    """Holm and BH adjusted p-values within each family, then each row's verdict.

    Rows without a p-value (too little data) are kept, not counted in the family size, and
    never called.
    """
    by_family: dict[str, list[int]] = {}
    for index, effect in enumerate(effects):
        if effect.p_value is not None:
            by_family.setdefault(effect.family, []).append(index)
    adjusted: dict[int, tuple[float, float]] = {}
    families: list[Family] = []
    for family, members in by_family.items():
        p_values = np.array([effects[i].p_value for i in members], dtype=float)
        for i, p_holm, p_bh in zip(
            members, holm(p_values), benjamini_hochberg(p_values), strict=True
        ):
            adjusted[i] = (float(p_holm), float(p_bh))
        families.append(
            Family(
                family=family,
                size=len(members),
                method=(
                    f"Holm (family-wise error) and Benjamini-Hochberg (false discovery rate) "
                    f"over the {len(members)} tests of this family "
                    "(as statsmodels multipletests computes them); a contrast is called when the "
                    "Holm-adjusted "
                    f"p < {alpha:g} and its interval excludes zero"
                ),
            )
        )
    corrected: list[Effect] = []
    for index, effect in enumerate(effects):
        p_holm, p_bh = adjusted.get(index, (None, None))
        updated = replace(effect, p_holm=p_holm, p_bh=p_bh)
        corrected.append(replace(updated, verdict=_verdict(updated, alpha)))
    return corrected, families


def _percent(value: float | None) -> str:
    return "?" if value is None else f"{value + 0.5:.0%}"


def _describe(effect: Effect) -> str:
    """One clause for the headline, in the effect's own units."""
    who = PANEL if effect.judge is None else f"judge {effect.judge}"
    interval = f"{effect.confidence:.0%} CI"
    p_text = f"Holm-adjusted p={effect.p_holm:.2g}" if effect.p_holm is not None else ""
    estimate = effect.estimate or 0.0
    if effect.scale == "score points":
        high, low = (
            (effect.identity, effect.versus) if estimate > 0 else (effect.versus, effect.identity)
        )
        return (
            f"{high} scored {abs(estimate):.2f} points higher than {low} on {effect.metric} "
            f"({interval} {effect.ci_low:.2f} to {effect.ci_high:.2f}, {p_text}; {who}, "
            f"{effect.protocol} protocol)"
        )
    if effect.scale == "log odds ratio":
        return (
            f"the answer labelled {effect.identity} had {math.exp(estimate):.2f} times the odds "
            f"of winning against the same answer labelled {effect.versus} "
            f"(stratified by base scenario, {p_text}; {who})"
        )
    if effect.versus is None:
        return (
            f"{effect.identity} won {_percent(estimate)} of decided pairs ({interval} "
            f"{_percent(effect.ci_low)} to {_percent(effect.ci_high)}, {p_text}; {who})"
        )
    return (
        f"when the labels on the same answers were swapped, {_percent(estimate)} of the changed "
        f"outcomes followed {effect.identity} over {effect.versus} ({interval} "
        f"{_percent(effect.ci_low)} to {_percent(effect.ci_high)}, {p_text}; {who})"
    )


def _strength(effect: Effect) -> tuple[int, float, float]:
    return (
        0 if effect.judge is None else 1,
        effect.p_holm if effect.p_holm is not None else 1.0,
        -abs(effect.estimate or 0.0),
    )


def headline(effects: list[Effect], families: list[Family], alpha: float) -> dict[str, Any]:
    """The verdict in one sentence, and the ids of every called contrast."""
    detected = [e for e in effects if e.verdict != NO_DIFFERENCE]
    tests = sum(f.size for f in families)
    if tests == 0:
        sentence = "No verdict: no identity contrast could be tested, the run has no paired data."
    elif not detected:
        sentence = (
            f"No detectable identity effect at alpha={alpha:g} after Holm correction within "
            f"each family ({tests} tests in {len(families)} "
            f"{'family' if len(families) == 1 else 'families'})."
        )
    else:
        strongest = min(detected, key=_strength)
        sentence = f"Detectable identity effect: {_describe(strongest)}."
        if len(detected) > 1:
            sentence += (
                f" {len(detected)} of {tests} tests ({len(families)} families, Holm within "
                "each) detect an effect."
            )
    return {
        "verdict": sentence,
        "alpha": alpha,
        "tests": tests,
        "detected": [e.id for e in detected],
    }
