"""Krippendorff's alpha from per-unit value counts without the units x values x values array.

The krippendorff package builds its coincidence matrix from an (N, V, V) temporary: at a
million judge turns that is hundreds of thousands of units times 121 score pairs, most of them
zero, and it dominated the agreement block. A unit's coincidences are nonzero only for pairs of
values some judge gave it (at most judges squared pairs), so those pairs are listed and summed
with a bincount. The bincount adds each cell's terms in unit order, one after the other, as the
package's sum over the unit axis does, and each term is the same division, so the matrix and
the alpha computed from it are the package's to the last bit
(tests/analysis/test_coincidences.py checks that against ``krippendorff.alpha``).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import numpy.typing as npt

__all__ = ["Level", "alpha_from_counts", "coincidences"]

FloatArray = npt.NDArray[np.float64]
Level = Literal["nominal", "ordinal"]


def coincidences(counts: npt.NDArray[np.int64]) -> FloatArray:
    """The (V, V) coincidence matrix of per-unit value counts (N, V): the sum over units of
    ``(c c' - diag(c)) / (m - 1)``, ``m`` the unit's number of values (at least 2)."""
    n_units, n_values = counts.shape
    pairable = np.maximum(counts.sum(axis=1), 2)
    unit, value = np.nonzero(counts)  # row-major: units ascending, values within a unit
    count = counts[unit, value]
    per_unit = np.bincount(unit, minlength=n_units)
    start = np.cumsum(per_unit) - per_unit
    # Every ordered pair of a unit's nonzero entries (an entry with itself included).
    partners = per_unit[unit]
    left = np.repeat(np.arange(unit.size), partners)
    offset = np.arange(left.size) - np.repeat(np.cumsum(partners) - partners, partners)
    right = start[unit[left]] + offset
    same = value[left] == value[right]
    numerator = count[left] * count[right] - np.where(same, count[left], 0)
    terms = numerator.astype(np.float64) / (pairable[unit[left]] - 1).astype(np.float64)
    cells = value[left] * n_values + value[right]
    summed = np.bincount(cells, weights=terms, minlength=n_values * n_values)
    matrix: FloatArray = np.asarray(summed, dtype=np.float64).reshape(n_values, n_values)
    return matrix


def _distances(domain: FloatArray, level: Level, n_v: FloatArray) -> FloatArray:
    """The package's squared distances between values (nominal: differ or not; ordinal: the
    pairable values between two ranks, less half of the two ends), computed as it does."""
    if level == "nominal":
        different: FloatArray = (domain[:, np.newaxis] != domain[np.newaxis, :]).astype(np.float64)
        return different
    indices = np.arange(len(domain))
    i1, i2 = indices[:, np.newaxis], indices[np.newaxis, :]
    i1, i2 = np.minimum(i1, i2), np.maximum(i1, i2)
    ranges = np.dstack((i1, i2 + 1))
    between = np.add.reduceat(np.append(n_v, 0), ranges.reshape(-1))[::2].reshape(*i1.shape)
    ordinal: FloatArray = (between - np.divide(n_v[i1] + n_v[i2], 2, dtype=np.float64)) ** 2
    return ordinal


def alpha_from_counts(counts: npt.NDArray[np.int64], domain: FloatArray, level: Level) -> float:
    """``krippendorff.alpha(value_counts=counts, value_domain=domain, level_of_measurement=level)``
    with the coincidences above. The caller guarantees what the package checks: at least two
    values in ``domain`` and a unit with two values."""
    observed = coincidences(counts)
    n_v = observed.sum(axis=0)
    expected = np.divide(np.outer(n_v, n_v) - np.diagflat(n_v), n_v.sum() - 1, dtype=np.float64)
    distance = _distances(np.asarray(domain), level, n_v)
    return float(1 - (observed * distance).sum() / (expected * distance).sum())
