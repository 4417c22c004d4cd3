"""Holm (plain and weighted) and Benjamini-Hochberg adjusted p-values, and Bonferroni for one.

statsmodels' ``multipletests`` gives the same numbers (tests/test_multitest.py checks it), but
each call runs ``gc.collect()``, which on a run's analysis (dozens of families, a large heap of
frames) cost more than every test it corrects.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["benjamini_hochberg", "bonferroni", "holm", "weighted_holm"]

FloatArray = np.ndarray[Any, np.dtype[np.float64]]


def holm(p_values: FloatArray) -> FloatArray:
    """Holm's step-down adjustment: the running maximum of (m - rank + 1) x p over the sorted
    p-values, capped at 1, in the input order (``weighted_holm`` with equal weights)."""
    p = np.asarray(p_values, dtype=float)
    return weighted_holm(p, np.ones_like(p))


def weighted_holm(p_values: FloatArray, weights: FloatArray) -> FloatArray:
    """Holm's weighted step-down adjustment (Holm 1979): one family-wise procedure in which a
    test with a larger weight gets a larger share of alpha.

    It is closed testing with weighted Bonferroni local tests, so the family-wise error over
    every test stays at alpha whatever the weights; they only move power to where it matters
    (the primary contrasts of a panel comparison, say, over its position and agreement
    differences), and a rejected test's weight flows on to the rest. Step j takes the test with
    the smallest p / weight among those left and multiplies it by the weight still left; the
    adjusted p is the running maximum, capped at 1. Equal weights give plain Holm.
    """
    p = np.asarray(p_values, dtype=float)
    w = np.asarray(weights, dtype=float)
    if p.shape != w.shape:
        raise ValueError(f"{p.size} p-values but {w.size} weights")
    if p.size and not bool(np.all(w > 0.0)):
        raise ValueError("weights must be positive")
    order = np.argsort(p / w, kind="mergesort")
    remaining = np.cumsum(w[order][::-1])[::-1]
    stepped = np.maximum.accumulate(p[order] / w[order] * remaining)
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def benjamini_hochberg(p_values: FloatArray) -> FloatArray:
    """Benjamini-Hochberg step-up adjustment: the running minimum, from the largest p down, of
    m / rank x p, capped at 1, in the input order."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p, kind="mergesort")
    m = p.size
    scaled = p[order] * m / np.arange(1, m + 1)
    stepped = np.minimum.accumulate(scaled[::-1])[::-1]
    adjusted = np.empty_like(p)
    adjusted[order] = np.minimum(stepped, 1.0)
    return adjusted


def bonferroni(p_value: float, tests: int) -> float:
    """Bonferroni's adjustment of one of ``tests`` p-values (the simplest valid correction for
    the smallest of them): p x tests, capped at 1."""
    return min(1.0, p_value * tests)
