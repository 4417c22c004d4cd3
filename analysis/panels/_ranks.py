"""Which panel is fairest, and can the run tell? Ranks of each panel's largest primary effect.

A leaderboard that sorts panels by a number invites reading the order as a finding. Each
panel's largest absolute primary effect (in score points when the design has single-protocol
contrasts, else in the pair scale; never the larger of two scales, which are not comparable
numbers) is ranked, 1 = the smallest (the fairest), and the rank comes with an interval from a
cluster bootstrap over base scenarios. The bootstrap is paired: each resample draws one set of
bases and every panel's effects are computed on it, because the panels judged the same units
and a scenario that pulls one panel pulls the others; panels that differ consistently on the
same scenarios are then told apart even when each panel's own interval is wide. Ties within a
resample (identical panels) are broken at random, so two panels the run cannot separate share
a rank interval such as "1st-2nd".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from fairpanel.analysis._frames import BASE_ID
from fairpanel.analysis.results import RankInterval
from fairpanel.analysis.tools import (
    DEFAULT_BOOTSTRAP,
    MIN_BASES,
    cluster_draws,
    expanded_interval,
    expanded_tail,
    seed_for,
    too_few_bases,
)
from fairpanel.analysis.verdict import (
    SCALES,
    ArmFrames,
    Contrast,
    contrast_units,
    primary_contrasts,
)

__all__ = ["panel_ranks"]

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class _Effects:
    """One panel's primary contrasts of the ranked scale: per contrast, its base means over
    every base of the run (NaN where the panel has no unit of it in that base)."""

    contrasts: list[Contrast]
    means: FloatArray
    """Shape (contrasts, bases)."""

    def estimates(self, counts: FloatArray) -> FloatArray:
        """Each contrast's mean of base means under draw ``counts`` (shape (resamples, bases)):
        shape (resamples, contrasts), NaN where no drawn base has the contrast."""
        present = ~np.isnan(self.means)
        sums = counts @ np.where(present, self.means, 0.0).T
        drawn = counts @ present.T.astype(float)
        with np.errstate(divide="ignore", invalid="ignore"):
            result: FloatArray = np.where(drawn > 0, sums / np.maximum(drawn, 1.0), np.nan)
        return result


def _effects(frames: ArmFrames, protocol: str, bases: Sequence[str]) -> _Effects:
    chosen = sorted(c for c in primary_contrasts(frames) if c[0] == protocol)
    where = {base: index for index, base in enumerate(bases)}
    means = np.full((len(chosen), len(bases)), np.nan)
    for row, contrast in enumerate(chosen):
        units, _ = contrast_units(frames, contrast)
        if units.empty:
            continue
        by_base = units.groupby(units[BASE_ID].astype(str))["difference"].mean()
        for base, value in by_base.items():
            means[row, where[str(base)]] = float(value)
    return _Effects(chosen, means)


def _bases(frames: Sequence[ArmFrames]) -> list[str]:
    found: set[str] = set()
    for panel in frames:
        for frame in (panel.scores, panel.verdicts):
            if BASE_ID in frame.columns:
                found.update(str(b) for b in frame[BASE_ID].dropna().unique())
    return sorted(found)


def _largest(estimates: FloatArray) -> FloatArray:
    """The largest absolute estimate per row (NaN where every estimate is NaN)."""
    magnitude = np.abs(estimates)
    with np.errstate(invalid="ignore"):
        result: FloatArray = np.where(
            np.isnan(magnitude).all(axis=-1),
            np.nan,
            np.nanmax(np.where(np.isnan(magnitude), -np.inf, magnitude), axis=-1),
        )
    return result


def _ordinal(rank: int) -> str:
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
    return f"{rank}{suffix}"


def _label(low: int, high: int) -> str:
    return _ordinal(low) if low == high else f"{_ordinal(low)}-{_ordinal(high)}"


def _resampled_ranks(values: FloatArray, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """Ranks (1 = smallest) within each resample (rows), ties broken at random."""
    tie_break = rng.random(values.shape)
    order = np.lexsort((tie_break, np.where(np.isnan(values), np.inf, values)), axis=-1)
    ranks = np.empty(values.shape, dtype=np.int64)
    rows = np.arange(values.shape[0])[:, None]
    ranks[rows, order] = np.arange(1, values.shape[1] + 1)
    return ranks


def _method(protocol: str, n_bases: int, reps: int, confidence: float) -> str:
    what = (
        "the panel consensus's overall score difference"
        if protocol == "single"
        else "the panel consensus's label-swap contrast"
    )
    return (
        f"largest absolute primary effect in {SCALES[protocol]} ({what} of every label pair, "
        "each the mean of its base-scenario means); rank 1 = the smallest; "
        f"{reps} paired resamples of the {n_bases} base scenarios (one draw of bases per "
        "resample, every panel's effects computed on it), ties broken at random; "
        f"{confidence:.0%} expanded percentile intervals of each panel's rank and of its "
        "largest effect (a maximum over contrasts leans high: a ranking aid, not a test)"
    )


def panel_ranks(
    frames_by_panel: Mapping[str, ArmFrames],
    *,
    reps: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, RankInterval]:
    """Each panel's largest absolute primary effect, its rank among the panels (1 = smallest,
    equal effects share the better rank) and its rank interval from the paired cluster
    bootstrap over base scenarios. Below ``MIN_BASES`` bases the rank has no interval."""
    names = [str(name) for name in frames_by_panel]
    frames = list(frames_by_panel.values())
    protocols = {c[0] for panel in frames for c in primary_contrasts(panel)}
    protocol = "single" if "single" in protocols or not protocols else "pair"
    bases = _bases(frames)
    effects = [_effects(panel, protocol, bases) for panel in frames]
    ones = np.ones((1, len(bases)))
    full = [e.estimates(ones)[0] for e in effects]
    largest = [float(_largest(values)) if values.size else np.nan for values in full]
    ranked = [i for i, value in enumerate(largest) if not np.isnan(value)]
    method = _method(protocol, len(bases), reps, confidence)
    reason = too_few_bases(len(bases)) if len(bases) < MIN_BASES else None
    intervals: dict[int, tuple[int, int, Any, Any]] = {}
    if reason is None and ranked:
        rng = np.random.default_rng(seed_for(seed, "panel_ranks", *names))
        counts = cluster_draws(len(bases), reps, rng).astype(float)
        values = np.column_stack([_largest(effects[i].estimates(counts)) for i in ranked])
        ranks = _resampled_ranks(values, rng)
        tail = expanded_tail(confidence, len(bases))
        for column, index in enumerate(ranked):
            low, high = np.quantile(ranks[:, column], [tail, 1.0 - tail], method="inverted_cdf")
            finite = values[:, column][~np.isnan(values[:, column])]
            interval = expanded_interval(finite, confidence, len(bases))
            intervals[index] = (int(low), int(high), interval.low, interval.high)
    result: dict[str, RankInterval] = {}
    for index, name in enumerate(names):
        if index not in ranked:
            result[name] = RankInterval(
                panel=name,
                scale=SCALES[protocol],
                n_bases=len(bases),
                reason=f"no primary contrast in {SCALES[protocol]}",
                rank_label="unranked",
                method=method,
            )
            continue
        column = int(np.nanargmax(np.abs(full[index])))
        contrast = effects[index].contrasts[column]
        rank = 1 + sum(largest[other] < largest[index] for other in ranked)
        low, high, ci_low, ci_high = intervals.get(index, (None, None, None, None))
        label = _ordinal(rank) if low is None or high is None else _label(low, high)
        result[name] = RankInterval(
            panel=name,
            effect_id=f"{contrast[0]}:{contrast[1]}:{contrast[2]}-{contrast[3]}",
            contrast=f"{contrast[1]} {contrast[2]} - {contrast[3]}",
            scale=SCALES[protocol],
            estimate=float(full[index][column]),
            largest_effect=largest[index],
            ci_low=ci_low,
            ci_high=ci_high,
            rank=rank,
            rank_low=low,
            rank_high=high,
            rank_label=label,
            n_bases=len(bases),
            reps=reps if index in intervals else 0,
            reason=reason,
            method=method,
        )
    return result
