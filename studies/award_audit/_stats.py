"""The award audit's statistics: exact binomial tests of the choice split, the follow-up
chi-square, and how equivocal answers spread over name pairs. Pure functions over counts.

The binomial p-value is scipy's two-sided exact test, which for p0 = 0.5 is the
Wilson-Sterne (minimum-likelihood) method the seed study names; the mid-p variant is given
beside it because one of the study's published values (GPT-4, level 5) matches only that.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy import stats

__all__ = [
    "MIN_CELL",
    "binomial_split",
    "bonferroni",
    "equivocal_spread",
    "followup_independence",
]

MIN_CELL = 5
"""The seed study ran its chi-square only when every observed cell held at least 5."""


def _mid_p(k: int, n: int) -> float:
    """Two-sided mid-p of a fair-coin binomial (symmetric, so twice the smaller tail)."""
    low = min(k, n - k)
    tail = float(stats.binom.cdf(low, n, 0.5)) - 0.5 * float(stats.binom.pmf(low, n, 0.5))
    return min(1.0, 2.0 * tail)


def binomial_split(k: int, n: int) -> dict[str, Any]:
    """Test ``k`` choices of the first group out of ``n`` non-equivocal ones against 1/2."""
    if n == 0:
        return {
            "k": 0,
            "n": 0,
            "share": None,
            "ci_low": None,
            "ci_high": None,
            "p_exact": None,
            "p_mid": None,
        }
    result = stats.binomtest(k, n, 0.5, alternative="two-sided")
    interval = result.proportion_ci(confidence_level=0.95, method="exact")
    return {
        "k": k,
        "n": n,
        "share": k / n,
        "ci_low": float(interval.low),
        "ci_high": float(interval.high),
        "p_exact": float(result.pvalue),
        "p_mid": _mid_p(k, n),
    }


def bonferroni(p_values: Sequence[float | None]) -> list[float | None]:
    """Bonferroni over the tests that were run (None: not tested, not counted)."""
    size = sum(p is not None for p in p_values)
    return [None if p is None else min(1.0, p * size) for p in p_values]


def followup_independence(
    table: Mapping[str, Mapping[str, int]], classes: Sequence[str]
) -> dict[str, Any]:
    """Chi-square test of independence of chosen group (rows) and explanation class (columns).

    Run only when every observed cell holds at least ``MIN_CELL`` (the seed study's rule);
    otherwise the counts are reported with the reason the test was skipped.
    """
    rows = list(table)
    observed = np.array([[table[row].get(c, 0) for c in classes] for row in rows], dtype=float)
    base: dict[str, Any] = {
        "observed": {row: {c: int(table[row].get(c, 0)) for c in classes} for row in rows},
        "n": int(observed.sum()),
        "min_cell": int(observed.min()) if observed.size else 0,
    }
    if observed.size == 0 or observed.min() < MIN_CELL:
        return {
            **base,
            "tested": False,
            "chi2": None,
            "df": None,
            "p_value": None,
            "note": f"not tested: a cell holds fewer than {MIN_CELL}",
        }
    chi2, p_value, df, _ = stats.chi2_contingency(observed, correction=False)
    return {
        **base,
        "tested": True,
        "chi2": float(chi2),
        "df": int(df),
        "p_value": float(p_value),
        "note": "Pearson chi-square test of independence",
    }


def equivocal_spread(by_pair: Mapping[str, Sequence[bool]]) -> dict[str, Any]:
    """Do some name pairs draw more equivocal answers than others?

    A chi-square test of homogeneity on the pairs x {equivocal, chosen} table and a
    Kruskal-Wallis test on the 0/1 equivocal indicators grouped by pair (the seed study
    names Kruskal-Wallis without its unit; this is our reading). Pairs with no answers are
    left out; with fewer than two pairs, or no variation, nothing is tested.
    """
    groups = {pair: [int(x) for x in flags] for pair, flags in by_pair.items() if flags}
    rates = {pair: sum(flags) / len(flags) for pair, flags in groups.items()}
    result: dict[str, Any] = {
        "rates": rates,
        "pairs": len(groups),
        "chi_square": None,
        "kruskal_wallis": None,
    }
    counts = np.array([[sum(f), len(f) - sum(f)] for f in groups.values()], dtype=float)
    if len(groups) < 2 or (counts.sum(axis=0) == 0).any():
        result["note"] = "not tested: fewer than two name pairs or no variation"
        return result
    chi2, p_value, df, _ = stats.chi2_contingency(counts, correction=False)
    result["chi_square"] = {"chi2": float(chi2), "df": int(df), "p_value": float(p_value)}
    statistic, kw_p = stats.kruskal(*groups.values())
    result["kruskal_wallis"] = {"h": float(statistic), "p_value": float(kw_p)}
    result["note"] = "expected counts may be small; read with care on small runs"
    return result
