"""Two panels' agreement (Krippendorff's alpha) compared on the same base scenarios.

Alpha is not a mean of units, so no t test applies; its interval comes from a cluster
bootstrap over base scenarios, and a paired one: each resample draws one set of bases and
computes both panels' alpha on it, so that what the bases share (easy scenarios on which every
judge agrees) cancels in the difference. Alpha is ``1 - D_o / D_e`` of the coincidence matrix,
and the coincidence matrix is a sum over units, so it is a sum over base scenarios: a resample's
matrix is the draw counts times the bases' matrices, and two thousand resamples of two panels
take milliseconds instead of four thousand calls to the ``krippendorff`` package (whose value
on the full data this reproduces; tests check it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from fairpanel.analysis._frames import (
    BASE_ID,
    JUDGE,
    METRIC,
    PARSE_OK,
    POSITION,
    PROTOCOL,
    ROUND_KIND,
    SCORE,
    TRIAL_KEY,
    WINNER_POSITION,
)
from fairpanel.analysis.results import PanelDifferenceRow
from fairpanel.analysis.tools import (
    MIN_BASES,
    cluster_draws,
    expanded_interval,
    expanded_p_value,
    seed_for,
    too_few_bases,
)

__all__ = [
    "AGREEMENT_MEASURES",
    "AlphaDifference",
    "Coincidences",
    "agreement_row",
    "alpha_difference",
    "panel_coincidences",
]

BOOTSTRAP_TEST = "paired cluster bootstrap (base scenarios)"

Level = Literal["nominal", "ordinal"]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Measure:
    """One agreement the comparison reports: which rows, what a unit is, the value, the level."""

    name: str
    protocol: str
    unit: tuple[str, ...]
    value: str
    level: Level
    description: str

    def rows(self, frames: Any) -> pd.DataFrame:
        """This measure's final-round rows of one panel's frames (one row per unit and judge)."""
        if self.value == SCORE:
            scores: pd.DataFrame = frames.scores
            if scores.empty or PROTOCOL not in scores.columns:
                return scores.iloc[:0]
            mask = (scores[PROTOCOL] == self.protocol) & (scores[ROUND_KIND] == "final")
            return scores.loc[mask]
        turns: pd.DataFrame = frames.turns
        needed = (PROTOCOL, ROUND_KIND, PARSE_OK, WINNER_POSITION, BASE_ID)
        if turns.empty or not all(column in turns.columns for column in needed):
            return turns.iloc[:0]
        mask = (
            (turns[PROTOCOL] == self.protocol)
            & (turns[ROUND_KIND] == "final")
            & turns[PARSE_OK].astype(bool)
            & turns[WINNER_POSITION].notna()
        )
        return turns.loc[mask]


AGREEMENT_MEASURES: tuple[Measure, ...] = (
    Measure(
        "single scores",
        "single",
        (TRIAL_KEY, POSITION, METRIC),
        SCORE,
        "ordinal",
        "the judges' final-round single-protocol scores (a unit is one trial's candidate on one "
        "metric, the four metrics pooled; ordinal)",
    ),
    Measure(
        "pair verdicts",
        "pair",
        (TRIAL_KEY,),
        WINNER_POSITION,
        "nominal",
        "the judges' final-round pair verdicts (a unit is one pair trial; the value is the "
        "chosen position; nominal)",
    ),
)
"""Each protocol's own output: the scores a single trial gives, the verdict a pair trial gives."""


@dataclass(frozen=True, slots=True)
class Coincidences:
    """One panel's coincidence matrices per base scenario (``matrices[i]`` is base
    ``bases[i]``'s, over ``domain``) and its count of units with two or more judges' values."""

    bases: tuple[str, ...]
    domain: tuple[float, ...]
    matrices: FloatArray
    n_units: int

    @classmethod
    def of(cls, rows: pd.DataFrame, measure: Measure, domain: Sequence[float]) -> Coincidences:
        """The matrices of a long frame with one row per (unit, judge) (``measure.rows``)."""
        size = len(domain)
        if rows.empty:
            return cls((), tuple(domain), np.zeros((0, size, size)), 0)
        keys = [BASE_ID, *measure.unit]
        values = rows.groupby([*keys, JUDGE], dropna=False)[measure.value].first().reset_index()
        unit = values.groupby(keys, dropna=False).ngroup().to_numpy()
        counts = np.zeros((int(unit.max()) + 1, size))
        levels = np.searchsorted(np.asarray(domain), values[measure.value].to_numpy(dtype=float))
        np.add.at(counts, (unit, levels), 1.0)
        coders = counts.sum(axis=1)
        pairable = coders >= 2
        base_of_unit = values.groupby(unit)[BASE_ID].first().astype(str).to_numpy()
        bases = tuple(sorted(set(base_of_unit[pairable])))
        matrices = np.zeros((len(bases), size, size))
        for index, base in enumerate(bases):
            mine = pairable & (base_of_unit == base)
            weighted = counts[mine] / (coders[mine] - 1.0)[:, None]
            matrices[index] = weighted.T @ counts[mine] - np.diag(weighted.sum(axis=0))
        return cls(bases, tuple(domain), matrices, int(pairable.sum()))

    def aligned(self, bases: Sequence[str]) -> FloatArray:
        """The matrices in the order of ``bases`` (zero for a base this panel has no unit in),
        flattened to one row per base."""
        size = len(self.domain)
        out = np.zeros((len(bases), size * size))
        where = {base: index for index, base in enumerate(self.bases)}
        for index, base in enumerate(bases):
            if base in where:
                out[index] = self.matrices[where[base]].ravel()
        return out


def _distances(totals: FloatArray, level: Level) -> FloatArray:
    """Krippendorff's squared distances between values, given each value's pairable count
    (``totals``, shape (..., V)): nominal 0/1; ordinal (sum of the counts from c to k minus
    half of n_c + n_k) squared, which depends on the counts, hence per resample."""
    size = totals.shape[-1]
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(size), (*totals.shape[:-1], size, size))
    cumulative = np.cumsum(totals, axis=-1)
    spread = cumulative[..., None, :] - cumulative[..., :, None]
    half = (totals[..., :, None] - totals[..., None, :]) / 2.0
    distance: FloatArray = (spread + half) ** 2
    return distance


def alpha_of(matrices: FloatArray, level: Level) -> FloatArray:
    """Alpha of each coincidence matrix (shape (..., V, V)); NaN where it is undefined (one
    value throughout, or fewer than two pairable values)."""
    totals = matrices.sum(axis=-1)
    n = totals.sum(axis=-1)
    distance = _distances(totals, level)
    observed = (matrices * distance).sum(axis=(-2, -1))
    expected = np.einsum("...c,...ck,...k->...", totals, distance, totals)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = expected / (n - 1.0)
        result: FloatArray = np.where(expected > 0, 1.0 - observed / expected, np.nan)
    return result


@dataclass(frozen=True, slots=True)
class AlphaDifference:
    """Both panels' alpha on the full data, the paired bootstrap interval of b - a and its
    two-sided bootstrap p (None below ``MIN_BASES`` bases or when alpha is undefined)."""

    alpha_a: float | None
    alpha_b: float | None
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    n_units: int
    n_bases: int
    n_boot: int
    reason: str | None


def _finite(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def alpha_difference(
    a: Coincidences, b: Coincidences, level: Level, *, seed: int, confidence: float, n_boot: int
) -> AlphaDifference:
    """Alpha of each panel, and the paired cluster bootstrap of alpha_b - alpha_a: every
    resample draws base scenarios once and both panels' matrices are summed over that draw;
    the expanded percentile interval and its p (``_resample.expanded_interval``,
    ``expanded_p_value``) over the resamples where both alphas are defined."""
    bases = sorted(set(a.bases) | set(b.bases))
    flat_a, flat_b = a.aligned(bases), b.aligned(bases)
    size = len(a.domain)
    alpha_a = _finite(float(alpha_of(flat_a.sum(axis=0).reshape(size, size), level)))
    alpha_b = _finite(float(alpha_of(flat_b.sum(axis=0).reshape(size, size), level)))
    n_units = min(a.n_units, b.n_units)
    reason = None
    if alpha_a is None or alpha_b is None:
        reason = "alpha is undefined for a panel (fewer than two judges, or one value throughout)"
    elif len(bases) < MIN_BASES:
        reason = too_few_bases(len(bases))
    if reason is not None:
        return AlphaDifference(alpha_a, alpha_b, None, None, None, n_units, len(bases), 0, reason)
    counts = cluster_draws(len(bases), n_boot, np.random.default_rng(seed)).astype(float)
    resampled_a = alpha_of((counts @ flat_a).reshape(n_boot, size, size), level)
    resampled_b = alpha_of((counts @ flat_b).reshape(n_boot, size, size), level)
    replicates = (resampled_b - resampled_a)[~(np.isnan(resampled_a) | np.isnan(resampled_b))]
    if replicates.size == 0:
        reason = "alpha is undefined in every resample"
        return AlphaDifference(alpha_a, alpha_b, None, None, None, n_units, len(bases), 0, reason)
    interval = expanded_interval(replicates, confidence, len(bases))
    return AlphaDifference(
        alpha_a,
        alpha_b,
        interval.low,
        interval.high,
        expanded_p_value(replicates, len(bases)),
        n_units,
        len(bases),
        int(replicates.size),
        None,
    )


def agreement_row(
    names: tuple[str, str],
    measure: Measure,
    pair: tuple[Coincidences, Coincidences],
    seed: int,
    confidence: float,
    n_boot: int,
) -> PanelDifferenceRow:
    """The agreement difference of panels ``names`` (a, b) on one measure, b - a, with the
    paired bootstrap's interval and p (uncorrected; the caller's procedure corrects it)."""
    a, b = names
    name = f"panel_diff:agreement:{measure.name.replace(' ', ':')}:{a}-vs-{b}"
    result = alpha_difference(
        *pair, measure.level, seed=seed_for(seed, name), confidence=confidence, n_boot=n_boot
    )
    difference = (
        result.alpha_b - result.alpha_a
        if result.alpha_a is not None and result.alpha_b is not None
        else None
    )
    return PanelDifferenceRow(
        id=name,
        kind="agreement",
        panel_a=a,
        panel_b=b,
        contrast=measure.name,
        estimate_a=result.alpha_a,
        estimate_b=result.alpha_b,
        difference=difference,
        ci_low=result.ci_low,
        ci_high=result.ci_high,
        bootstrap_ci_low=result.ci_low,
        bootstrap_ci_high=result.ci_high,
        confidence=confidence,
        p_value=result.p_value,
        n_units=result.n_units,
        n_bases=result.n_bases,
        scale="Krippendorff's alpha",
        test=BOOTSTRAP_TEST,
        reason=result.reason,
        method=(
            f"Krippendorff's alpha of {measure.description}, each panel on its own judges; "
            f"{result.n_boot} paired resamples of base scenarios (each draws the bases once and "
            f"computes both panels' alpha on them); {b} minus {a}; {confidence:.0%} "
            "expanded percentile interval (tails at the normal quantile sqrt(B / (B - 1)) x "
            "the t quantile on B - 1 df, B bases, which corrects the bootstrap's narrowness at "
            "few bases; ci and bootstrap ci are this one interval); two-sided p: q = (smaller "
            "count of resampled differences on either side of 0, + 1) / (resamples + 1), "
            "t = Phi^-1(1 - q) x sqrt((B - 1) / B), p = 2 P(T_{B-1} > t), so p < alpha when the "
            "interval leaves 0 out (up to the resamples' granularity in the far tail); "
            "n_units is the smaller panel's count of units "
            "with two or more judges' values"
        ),
    )


def panel_coincidences(
    frames: Sequence[Any],
) -> list[tuple[Measure, list[Coincidences]]]:
    """Per measure some panel has rows for, every panel's coincidences over one value domain
    (the values any panel gave), so that any two panels' matrices add up alike."""
    found = []
    for measure in AGREEMENT_MEASURES:
        rows = [measure.rows(panel) for panel in frames]
        if all(frame.empty for frame in rows):
            continue
        values = pd.concat([frame[measure.value] for frame in rows if not frame.empty])
        domain = sorted({float(v) for v in values.dropna()})
        found.append((measure, [Coincidences.of(frame, measure, domain) for frame in rows]))
    return found
