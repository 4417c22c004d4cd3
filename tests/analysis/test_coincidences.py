"""Alpha from value counts without the package's (N, V, V) temporary, against
``krippendorff.alpha`` itself: same coincidences, same alpha, on random data with missing
values, units one judge coded, two or many judges, few and many values."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from krippendorff.krippendorff import _coincidences as package_coincidences

from fairpanel.analysis.tools._coincidences import alpha_from_counts, coincidences


def _reliability(seed: int, judges: int, units: int, values: int, missing: float) -> np.ndarray:
    """A judges x units matrix of integer-valued scores (NaN missing), judges agreeing more
    than chance so alpha is neither 0 nor 1."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, values, units)
    noise = rng.integers(-1, 2, (judges, units)) * (rng.random((judges, units)) < 0.4)
    data = np.clip(truth + noise, 0, values - 1).astype(float)
    data[rng.random((judges, units)) < missing] = np.nan
    data[:, : min(3, units)] = np.nan  # units nobody coded
    data[1:, min(3, units) : min(6, units)] = np.nan  # units one judge coded
    return data


def _counts(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    domain = np.unique(data[~np.isnan(data)])
    counts = (data.T[..., np.newaxis] == domain[np.newaxis, np.newaxis, :]).sum(axis=1)
    return counts.astype(np.int64), domain


CASES = [
    (0, 2, 40, 2, 0.0),  # two judges, two values
    (1, 2, 200, 11, 0.2),  # two judges, missing values
    (2, 3, 500, 11, 0.1),  # the report's panels: three judges, 0-10 scores
    (3, 7, 300, 5, 0.5),  # many judges, half missing
    (4, 3, 50, 3, 0.0),
]


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
@pytest.mark.parametrize("case", CASES)
def test_alpha_equals_the_packages_to_the_last_bit(
    case: tuple[int, int, int, int, float], level: str
) -> None:
    data = _reliability(*case)
    counts, domain = _counts(data)
    assert np.array_equal(coincidences(counts), package_coincidences(counts))
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    got = alpha_from_counts(counts, domain, level)  # type: ignore[arg-type]
    assert got == float(expected)
    assert 0.0 < got < 1.0


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_perfect_and_unusual_values(level: str) -> None:
    # Judges who always agree: alpha 1; non-integer, unevenly spaced values keep their order.
    agreeing = np.array([[1.0, 2.0, 3.0, np.nan, 2.0], [1.0, 2.0, 3.0, 3.0, np.nan]])
    counts, domain = _counts(agreeing)
    assert alpha_from_counts(counts, domain, level) == 1.0  # type: ignore[arg-type]
    uneven = np.array([[0.5, 7.25, 9.0, 0.5, np.nan], [0.5, 9.0, 7.25, 9.0, 0.5]])
    counts, domain = _counts(uneven)
    expected = krippendorff.alpha(reliability_data=uneven, level_of_measurement=level)
    assert alpha_from_counts(counts, domain, level) == float(expected)  # type: ignore[arg-type]


def test_a_value_only_one_unit_holds_and_a_unit_of_one_value() -> None:
    # One value everywhere but a single unit: the coincidences still sum unit by unit.
    data = np.array([[4.0] * 9 + [5.0], [4.0] * 9 + [4.0], [np.nan] * 9 + [5.0]])
    counts, domain = _counts(data)
    assert np.array_equal(coincidences(counts), package_coincidences(counts))
    for level in ("nominal", "ordinal"):
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert alpha_from_counts(counts, domain, level) == float(expected)  # type: ignore[arg-type]
