"""Judge panels compared on the very same trials: paired differences under one weighted Holm.

Every panel of a multi-panel run judges exactly the same units (scenario, answers, order, arm,
treatment, signal, replicate); only the judges differ. So a panel's effect can be subtracted from
another's unit by unit, as a treatment's is from the baseline's (``verdict._interactions``):
whatever the unit holds fixed (a scenario's own pull toward a label, the answers' quality) cancels,
and the differences are averaged within base scenarios and tested over them like every other
contrast (``tools._cluster``). Comparing the two panels' estimates as if they came from independent
runs (``panels._compare``) counts each scenario's pull twice and misses differences of the size the
paired test finds. Position bias (order twins), parse failures (trial units) and agreement
(Krippendorff's alpha, by a paired cluster bootstrap) are compared the same way, and one procedure
covers every difference of every pair of panels, so asking about more panels or more kinds does not
manufacture differences. It is Holm's weighted one: the question a comparison of judges answers is
whose identity effects are larger, so the primary contrasts share PRIMARY_WEIGHT of alpha and the
rest (position, parse failures, agreement) the remainder. The family-wise error over all of them
stays at alpha; with plain Holm the extra kinds tripled the family and cost the paired analysis the
power its pairing had won (docs/compare.md, simulate's panel comparison).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from fairpanel.analysis._frames import (
    BASE_ID,
    CATEGORY,
    FIRST_IDENTITY,
    FIRST_RESPONSE_INDEX,
    IDENTITY,
    PROTOCOL,
    RESPONSE_INDEX,
    SCENARIO_ID,
    SECOND_IDENTITY,
)
from fairpanel.analysis.judges import parse_flags
from fairpanel.analysis.panels._agreement import agreement_row, panel_coincidences
from fairpanel.analysis.results import PanelComparison, PanelDifferenceRow, sentence
from fairpanel.analysis.tools import (
    DEFAULT_BOOTSTRAP,
    MIN_BASES,
    TEST_NAME,
    bootstrap_cluster_means,
    cluster_mean_test,
    cluster_means,
    seed_for,
    weighted_holm,
)
from fairpanel.analysis.verdict import (
    SCALES,
    SECOND_RESPONSE_INDEX,
    TWIN,
    ArmFrames,
    Contrast,
    contrast_units,
    match_units,
    order_twins,
    primary_contrasts,
)

__all__ = ["PRIMARY_WEIGHT", "panel_differences"]

PRIMARY_WEIGHT = 0.8
"""The share of alpha the primary-contrast differences split evenly; the other differences
split the rest (all of it goes to one kind when the other has no test)."""

_PRIMARY_KINDS = frozenset(SCALES)

_TRIAL_UNIT = (
    "arm", "treatment", "signal", PROTOCOL, BASE_ID, SCENARIO_ID, "replicate", CATEGORY,
    IDENTITY, RESPONSE_INDEX, FIRST_IDENTITY, SECOND_IDENTITY, FIRST_RESPONSE_INDEX,
    SECOND_RESPONSE_INDEX,
)  # fmt: skip
"""The design columns that name one trial whatever panel judged it (the trial key does not:
it names the panel); a frame lacking one is matched on the rest."""


@dataclass(frozen=True, slots=True)
class _Settings:
    """What every row of one comparison shares: the interval's confidence, the resamples of
    its bootstrap and the seed they are drawn from (with the row's id)."""

    confidence: float
    n_boot: int
    seed: int


def _paired_t(
    first: np.ndarray[Any, Any],
    second: np.ndarray[Any, Any],
    clusters: np.ndarray[Any, Any],
    settings: _Settings,
    name: str,
) -> tuple[dict[str, Any], str]:
    """The fields of a row from matched unit values of panel a (``first``) and b: each panel's
    mean of base means, the cluster t test of b - a and the bootstrap interval of the base
    means of b - a beside it; and the method clause saying so."""
    test = cluster_mean_test(second - first, clusters, confidence=settings.confidence)
    fields: dict[str, Any] = {
        "difference": test.estimate,
        "ci_low": test.ci_low,
        "ci_high": test.ci_high,
        "p_value": test.p_value,
        "n_units": test.n,
        "n_bases": test.n_clusters,
        "reason": test.reason,
        "test": TEST_NAME,
        "confidence": settings.confidence,
    }
    if first.size:
        fields["estimate_a"] = float(cluster_means(first, clusters).mean())
        fields["estimate_b"] = float(cluster_means(second, clusters).mean())
    method = test.describe(settings.confidence)
    if test.p_value is not None:
        interval = bootstrap_cluster_means(
            cluster_means(second - first, clusters),
            seed=seed_for(settings.seed, name),
            confidence=settings.confidence,
            n_boot=settings.n_boot,
        )
        fields |= {"bootstrap_ci_low": interval.low, "bootstrap_ci_high": interval.high}
        method += (
            f"; beside it, a {settings.confidence:.0%} expanded percentile interval from "
            f"{interval.n_boot} resamples of the base means of the differences (the t interval "
            "without its normal assumption)"
        )
    return fields, method


def _matched_row(
    matched: pd.DataFrame, row: dict[str, Any], source: str, settings: _Settings
) -> PanelDifferenceRow:
    """A row from units matched across the two panels (``first`` = panel a, ``second`` = b)."""
    fields, method = _paired_t(
        matched["first"].to_numpy(dtype=float),
        matched["second"].to_numpy(dtype=float),
        matched[BASE_ID].astype(str).to_numpy(),
        settings,
        row["id"],
    )
    a, b = row["panel_a"], row["panel_b"]
    return PanelDifferenceRow(
        **row, **fields, method=f"{source}; per matched unit, {b} minus {a}; {method}"
    )


class _Panel:
    """One panel's frames and what the comparison reads from them, computed once however many
    panels it is compared with."""

    def __init__(self, name: str, frames: ArmFrames) -> None:
        self.name, self.frames = name, frames
        self.contrasts = primary_contrasts(frames)
        self._units: dict[Contrast, tuple[pd.DataFrame, list[str]]] = {}

    def units(self, contrast: Contrast) -> tuple[pd.DataFrame, list[str]]:
        if contrast not in self._units:
            self._units[contrast] = contrast_units(self.frames, contrast)
        return self._units[contrast]

    @cached_property
    def twin_shares(self) -> pd.DataFrame:
        """Per order-swapped twin, the share of its two arrangements won by the answer shown
        first (a tie counts half)."""
        verdicts = self.frames.verdicts
        twins = order_twins(verdicts) if not verdicts.empty else pd.DataFrame()
        if twins.empty:
            return pd.DataFrame(columns=[BASE_ID, TWIN, "share"])
        share = (twins["first_won"].astype(float) + twins["first_won_swapped"]) / 2.0
        shares = twins.assign(share=share.astype(float))
        return shares.groupby([BASE_ID, TWIN])["share"].mean().reset_index()


def _contrast_row(
    a: _Panel, b: _Panel, contrast: Contrast, settings: _Settings
) -> PanelDifferenceRow | None:
    protocol, category, identity, versus = contrast
    units_a, keys = a.units(contrast)
    units_b, _ = b.units(contrast)
    matched = match_units(units_a, units_b, keys)
    if matched.empty:
        return None
    source = (
        "the panel consensus's overall score (mean of the four metrics) of the same response "
        f"under {identity} minus under {versus}"
        if protocol == "single"
        else "the panel consensus's label-swap contrast (half the front answer's win share, "
        f"tie 1/2, under {identity} minus under {versus}, same answers in the same order)"
    )
    row = {
        "id": f"panel_diff:{protocol}:{category}:{identity}-{versus}:{a.name}-vs-{b.name}",
        "kind": protocol,
        "panel_a": a.name,
        "panel_b": b.name,
        "category": category,
        "contrast": f"{identity} - {versus}" if protocol == "single" else f"{identity} vs {versus}",
        "scale": SCALES[protocol],
    }
    return _matched_row(matched, row, f"{source}, for each unit both panels judged", settings)


def _position_row(a: _Panel, b: _Panel, settings: _Settings) -> PanelDifferenceRow | None:
    matched = match_units(a.twin_shares, b.twin_shares, [BASE_ID, TWIN], value="share")
    if matched.empty:
        return None
    row = {
        "id": f"panel_diff:position:{a.name}-vs-{b.name}",
        "kind": "position",
        "panel_a": a.name,
        "panel_b": b.name,
        "contrast": "first-shown win share",
        "scale": "first-shown win share",
    }
    source = (
        "per order-swapped twin (the same labelled answers in opposite order), the share of "
        "its two arrangements won by the answer shown first (tie 1/2), by the panel consensus"
    )
    return _matched_row(matched, row, source, settings)


def _key_text(values: pd.Series) -> pd.Series:
    """A design column as text that reads the same in every panel's frame (1 and 1.0 alike)."""
    if pd.api.types.is_numeric_dtype(values):
        return values.map(lambda v: "" if pd.isna(v) else f"{float(v):g}")
    return values.map(lambda v: "" if _missing(v) else str(v))


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _failure_shares(turns: pd.DataFrame, keys: Sequence[str]) -> pd.DataFrame:
    frame = pd.DataFrame({key: _key_text(turns[key]) for key in keys})
    frame["failed"] = (~parse_flags(turns)).astype(float).to_numpy()
    return frame.groupby(list(keys))["failed"].mean().reset_index()


def _failure_row(a: _Panel, b: _Panel, settings: _Settings) -> PanelDifferenceRow | None:
    turns_a, turns_b = a.frames.turns, b.frames.turns
    keys = [k for k in _TRIAL_UNIT if k in turns_a.columns and k in turns_b.columns]
    if turns_a.empty or turns_b.empty or BASE_ID not in keys or "parse_ok" not in turns_a:
        return None
    matched = match_units(
        _failure_shares(turns_a, keys), _failure_shares(turns_b, keys), keys, value="failed"
    )
    if matched.empty:
        return None
    row = {
        "id": f"panel_diff:parse_failures:{a.name}-vs-{b.name}",
        "kind": "parse_failures",
        "panel_a": a.name,
        "panel_b": b.name,
        "contrast": "share of judge turns without a valid answer",
        "scale": "share of judge turns",
    }
    source = (
        "per trial unit (the same design cell judged by both panels: "
        f"{', '.join(keys)}), the share of the panel's judge turns, every round, whose answer "
        "did not parse (parse_ok false)"
    )
    return _matched_row(matched, row, source, settings)


def _protocol_first(contrast: Contrast) -> tuple[bool, Contrast]:
    """Single-protocol contrasts before pair ones, as results.json lists effects."""
    return contrast[0] != "single", contrast


def _pair_rows(
    a: _Panel, b: _Panel, settings: _Settings, warnings: list[str]
) -> list[PanelDifferenceRow]:
    rows: list[PanelDifferenceRow] = []
    for contrast in sorted(a.contrasts ^ b.contrasts):
        holder = a.name if contrast in a.contrasts else b.name
        warnings.append(
            f"{' '.join(contrast)} is in {holder}'s frames only: {a.name} and {b.name} not "
            "compared on it"
        )
    for contrast in sorted(a.contrasts & b.contrasts, key=_protocol_first):
        row = _contrast_row(a, b, contrast, settings)
        if row is None:
            warnings.append(f"{' '.join(contrast)}: no unit judged by both {a.name} and {b.name}")
        else:
            rows.append(row)
    for kind in (_position_row(a, b, settings), _failure_row(a, b, settings)):
        if kind is not None:
            rows.append(kind)
    return rows


def _weights(rows: Sequence[PanelDifferenceRow]) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Each tested row's share of alpha: PRIMARY_WEIGHT split evenly over the primary
    contrasts, the rest over the other kinds (each family's share renormalised away when the
    other family is empty)."""
    primary = np.array([row.kind in _PRIMARY_KINDS for row in rows], dtype=bool)
    n_primary, n_other = int(primary.sum()), int((~primary).sum())
    share = PRIMARY_WEIGHT if n_primary and n_other else float(bool(n_primary))
    return np.where(primary, share / max(n_primary, 1), (1.0 - share) / max(n_other, 1)).astype(
        float
    )


def _procedure(rows: Sequence[PanelDifferenceRow], pairs: int, alpha: float) -> str:
    tested = [row for row in rows if row.p_value is not None]
    primary = sum(row.kind in _PRIMARY_KINDS for row in tested)
    return (
        f"weighted Holm over all {len(tested)} tested panel differences of the run ({pairs} "
        f"pair{'' if pairs == 1 else 's'} of panels; family-wise error at {alpha:g} over all of "
        f"them): the {primary} primary contrasts share {PRIMARY_WEIGHT:.0%} of alpha and the "
        f"{len(tested) - primary} others (position bias, parse failures, agreement) the rest "
        "(each family's share goes to the other when it has no test), and a test's weight "
        "passes on to those left once it is called; a difference is called when its adjusted "
        f"p < {alpha:g}; below {MIN_BASES} base scenarios a difference is estimated but not "
        "tested"
    )


def panel_differences(
    frames_by_panel: Mapping[str, ArmFrames],
    *,
    alpha: float = 0.05,
    confidence: float = 0.95,
    bootstrap_reps: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
) -> PanelComparison:
    """Every pair of panels (in the given order: a vs b, reported as b minus a) compared on
    the units both judged: each primary contrast, position bias, parse failures and
    agreement, one weighted Holm procedure over all of them (PRIMARY_WEIGHT).

    ``frames_by_panel`` maps a panel's name to its frames of one arm (e.g.
    ``frames.where(arm="main", panel=name)``); the bootstrap intervals are seeded from
    ``seed`` and the row's id, so adding panels does not change a row's interval.
    """
    if not 0.0 < alpha < 1.0 or not 0.0 < confidence < 1.0:
        raise ValueError(f"alpha and confidence must be in (0, 1), got {alpha!r}, {confidence!r}")
    settings = _Settings(confidence, bootstrap_reps, seed)
    panels = [_Panel(str(name), frames) for name, frames in frames_by_panel.items()]
    warnings: list[str] = []
    if len(panels) < 2:
        warnings.append("fewer than two panels: nothing to compare")
    agreements = panel_coincidences([panel.frames for panel in panels])
    rows: list[PanelDifferenceRow] = []
    for (i, a), (j, b) in itertools.combinations(enumerate(panels), 2):
        rows += _pair_rows(a, b, settings, warnings)
        for measure, coincidences in agreements:
            pair = (coincidences[i], coincidences[j])
            names = (a.name, b.name)
            rows.append(agreement_row(names, measure, pair, seed, confidence, bootstrap_reps))
    tested = [index for index, row in enumerate(rows) if row.p_value is not None]
    weights = _weights([rows[index] for index in tested])
    adjusted = weighted_holm(
        np.array([rows[index].p_value for index in tested], dtype=float), weights
    )
    for index, p_adjusted, weight in zip(tested, adjusted, weights, strict=True):
        rows[index] = rows[index].model_copy(
            update={
                "p_adjusted": float(p_adjusted),
                "weight": float(weight),
                "called": bool(p_adjusted < alpha),
            }
        )
    rows = [row.model_copy(update={"sentence": sentence(row, alpha)}) for row in rows]
    untested = Counter(row.reason or "no p-value" for row in rows if row.p_value is None)
    warnings += [f"{count} difference(s) not tested: {why}" for why, count in untested.items()]
    pairs = len(panels) * (len(panels) - 1) // 2
    return PanelComparison(
        panels=[panel.name for panel in panels],
        alpha=alpha,
        confidence=confidence,
        bootstrap_reps=bootstrap_reps,
        min_bases=MIN_BASES,
        tests=len(tested),
        called=[row.id for row in rows if row.called],
        procedure=_procedure(rows, pairs, alpha),
        differences=rows,
        warnings=warnings,
    )
