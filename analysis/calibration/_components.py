"""Where the noise of a primary contrast comes from: between base scenarios or within them.

The headline tests each primary contrast with a t test on base-scenario means, so its power
depends on the sd of those means, s_D. A one-way random-effects model of the unit contrasts
(unit u of base b: ``y = mu + a_b + e_bu``, ``a_b ~ N(0, sigma_b)``, ``e_bu ~ N(0, sigma_w)``)
splits it: ``s_D^2 = sigma_b^2 + sigma_w^2 / k`` with k units per base. More derived scenarios or
replicates shrink only the second term; only more base scenarios shrink what the first leaves.
So a pilot run's two components say which of the two a design should buy.

The components are estimated by the method of moments of the one-way ANOVA (unbalanced: k is
the ANOVA's n0), the estimator that needs no iteration and equals REML on balanced data when
it is not truncated at zero. Units are exactly those the verdict averages
(``analysis.verdict.contrast_units``: the consensus's overall score difference of one response
under two labels, or the label-swap contrast of one pair of answers in one order).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from fairpanel.analysis._frames import BASE_ID, jsonable
from fairpanel.analysis.verdict import SCALES, ArmFrames, contrast_units, primary_contrasts

__all__ = [
    "POOLED",
    "AnovaSums",
    "VarianceComponents",
    "anova_sums",
    "contrast_components",
    "pooled",
]

POOLED = "pooled"
"""The ``contrast`` of a protocol's row that pools its primary contrasts."""


@dataclass(frozen=True, slots=True)
class AnovaSums:
    """The one-way ANOVA's sums of squares over base scenarios, which pool by addition."""

    between: float
    """Sum over bases of n_b (base mean - grand mean)^2."""
    within: float
    """Sum over units of (unit - its base mean)^2."""
    bases: int
    units: int
    n0: float
    """The ANOVA's units per base: (N - sum n_b^2 / N) / (B - 1), the mean n_b when balanced."""
    base_means_sd: float
    """The sd of the base means (ddof 1), the spread the cluster t test divides by."""

    @property
    def between_df(self) -> int:
        return self.bases - 1

    @property
    def within_df(self) -> int:
        return self.units - self.bases


def anova_sums(values: npt.ArrayLike, clusters: npt.ArrayLike) -> AnovaSums:
    """The one-way ANOVA of ``values`` grouped by ``clusters`` (NaN values left out)."""
    array = np.asarray(values, dtype=float)
    keep = ~np.isnan(array)
    array = array[keep]
    _, codes = np.unique(np.asarray(clusters, dtype=object)[keep].astype(str), return_inverse=True)
    counts = np.bincount(codes).astype(float)
    means = np.bincount(codes, weights=array) / counts if counts.size else np.empty(0)
    total = array.size
    bases = counts.size
    grand = float(array.mean()) if total else math.nan
    n0 = (total - float((counts**2).sum()) / total) / (bases - 1) if bases > 1 else math.nan
    return AnovaSums(
        between=float((counts * (means - grand) ** 2).sum()),
        within=float(((array - means[codes]) ** 2).sum()),
        bases=bases,
        units=total,
        n0=n0,
        base_means_sd=float(means.std(ddof=1)) if bases > 1 else math.nan,
    )


@dataclass(frozen=True, slots=True)
class VarianceComponents:
    """One primary contrast's (or one protocol's pooled) between- and within-base sds.

    ``between_sd`` is sigma_b, the sd of the contrast's true base means; ``within_sd`` is
    sigma_w, the sd of one unit's contrast around its base's mean; ``units_per_base`` is k. NaN
    where the data cannot tell (fewer than two bases, or one unit per base)."""

    protocol: str
    category: str | None
    contrast: str
    scale: str
    bases: int
    units: int
    units_per_base: float
    between_sd: float
    within_sd: float
    base_means_sd: float
    """The observed sd of the base means (a pooled row: the root mean of its contrasts')."""

    def spread(self, units_per_base: float) -> float:
        """The sd of one base's mean contrast with ``units_per_base`` units:
        sqrt(sigma_b^2 + sigma_w^2 / k)."""
        return math.sqrt(self.between_sd**2 + self.within_sd**2 / units_per_base)

    @property
    def between_share(self) -> float:
        """sigma_b^2's share of s_D^2 at the run's own k: what more units per base could not
        remove."""
        total = self.spread(self.units_per_base) ** 2
        return self.between_sd**2 / total if total > 0 else math.nan

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON (NaN as None), with ``between_share``."""
        row: dict[str, Any] = jsonable({**asdict(self), "between_share": self.between_share})
        return row

    @classmethod
    def from_sums(
        cls,
        sums: Sequence[AnovaSums],
        *,
        protocol: str,
        category: str | None = None,
        contrast: str = POOLED,
    ) -> VarianceComponents:
        """Method-of-moments sds from one contrast's sums, or several contrasts' pooled."""
        return _components(sums, protocol, category, contrast)


def _components(
    sums: Sequence[AnovaSums], protocol: str, category: str | None, contrast: str
) -> VarianceComponents:
    """Mean squares from the summed sums and degrees of freedom (one contrast's, or a
    protocol's contrasts' pooled), n0 averaged over the between df; sigma_b^2 = (MSB - MSW) /
    n0 truncated at zero, sigma_w^2 = MSW."""
    between_df = sum(s.between_df for s in sums)
    within_df = sum(s.within_df for s in sums)
    within_ms = sum(s.within for s in sums) / within_df if within_df > 0 else math.nan
    between_ms = sum(s.between for s in sums) / between_df if between_df > 0 else math.nan
    n0 = sum(s.n0 * s.between_df for s in sums) / between_df if between_df > 0 else math.nan
    between_var = max(0.0, (between_ms - within_ms) / n0) if within_df > 0 else math.nan
    observed = [s.base_means_sd**2 for s in sums if not math.isnan(s.base_means_sd)]
    return VarianceComponents(
        protocol=protocol,
        category=category,
        contrast=contrast,
        scale=SCALES[protocol],
        bases=max((s.bases for s in sums), default=0),
        units=sum(s.units for s in sums),
        units_per_base=n0,
        between_sd=math.sqrt(between_var),
        within_sd=math.sqrt(within_ms),
        base_means_sd=math.sqrt(sum(observed) / len(observed)) if observed else math.nan,
    )


def contrast_components(frames: ArmFrames) -> list[VarianceComponents]:
    """Each primary contrast's variance components in ``frames`` (one arm under one treatment
    and one panel, as the headline reads them), sorted by protocol, category and labels, then
    one ``POOLED`` row per protocol that pools its contrasts' sums of squares. Contrasts
    without units are left out."""
    rows: list[VarianceComponents] = []
    by_protocol: dict[str, list[AnovaSums]] = {}
    for contrast in sorted(primary_contrasts(frames)):
        protocol, category, identity, versus = contrast
        units, _keys = contrast_units(frames, contrast)
        if units.empty:
            continue
        sums = anova_sums(units["difference"].to_numpy(dtype=float), units[BASE_ID].to_numpy())
        if sums.units == 0:
            continue
        by_protocol.setdefault(protocol, []).append(sums)
        rows.append(_components([sums], protocol, category, f"{identity} - {versus}"))
    for protocol, sums_list in sorted(by_protocol.items()):
        rows.append(_components(sums_list, protocol, None, POOLED))
    return rows


def pooled(rows: Iterable[VarianceComponents], protocol: str) -> VarianceComponents | None:
    """The ``POOLED`` row of ``protocol`` among ``rows``, if there is one."""
    return next((r for r in rows if r.protocol == protocol and r.contrast == POOLED), None)
