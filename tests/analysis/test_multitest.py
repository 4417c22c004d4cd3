"""The vectorised Holm and Benjamini-Hochberg adjustments equal statsmodels' multipletests, and
weighted Holm equals the closed testing procedure it shortcuts."""

from __future__ import annotations

import itertools
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from fairpanel.analysis.tools._multitest import benjamini_hochberg, holm, weighted_holm

P_VALUES = st.lists(
    st.one_of(
        st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
        st.sampled_from([0.0, 0.01, 0.04, 0.05, 0.5, 1.0]),  # ties and bounds
    ),
    min_size=1,
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(P_VALUES)
def test_holm_and_bh_equal_statsmodels(values: list[float]) -> None:
    p = np.array(values, dtype=float)
    # multipletests runs gc.collect() on every call (the reason for our own version); skipping
    # it here changes no number and keeps the test fast.
    with mock.patch("gc.collect", return_value=0):
        expected_holm = multipletests(p, method="holm")[1]
        expected_bh = multipletests(p, method="fdr_bh")[1]
    assert holm(p) == pytest.approx(expected_holm, abs=1e-12)
    assert benjamini_hochberg(p) == pytest.approx(expected_bh, abs=1e-12)


def test_a_worked_example() -> None:
    # Four tests by hand: Holm multiplies the sorted p by 4, 3, 2, 1 and keeps the running
    # maximum; BH multiplies by 4/1, 4/2, 4/3, 4/4 and keeps the running minimum from the top.
    p = np.array([0.04, 0.01, 0.03, 0.02])
    assert holm(p) == pytest.approx([0.06, 0.04, 0.06, 0.06])
    assert benjamini_hochberg(p) == pytest.approx([0.04, 0.04, 0.04, 0.04])


def _closed_testing(p: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Adjusted p-values by brute force: every intersection of hypotheses tested by weighted
    Bonferroni (reject when some p_j <= alpha w_j / W_J), a hypothesis's adjusted p the largest
    local p over the intersections that contain it."""
    m = p.size
    adjusted = np.zeros(m)
    for size in range(1, m + 1):
        for subset in itertools.combinations(range(m), size):
            index = list(subset)
            local = min(1.0, float(np.min(p[index] / w[index]) * w[index].sum()))
            adjusted[index] = np.maximum(adjusted[index], local)
    return adjusted


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
            st.floats(min_value=0.01, max_value=5.0, allow_nan=False),
        ),
        min_size=1,
        max_size=7,
    )
)
def test_weighted_holm_equals_closed_testing(pairs: list[tuple[float, float]]) -> None:
    p = np.array([value for value, _ in pairs])
    w = np.array([weight for _, weight in pairs])
    assert weighted_holm(p, w) == pytest.approx(_closed_testing(p, w), abs=1e-9)
    with mock.patch("gc.collect", return_value=0):
        plain = multipletests(p, method="holm")[1]
    assert weighted_holm(p, np.ones_like(p)) == pytest.approx(plain, abs=1e-12)


def test_weighted_holm_gives_the_heavier_test_more_alpha() -> None:
    # Weights 0.4, 0.4, 0.1, 0.1 (sum 1), taken in order of p / w: 0.02 x 1 / 0.4 = 0.05
    # (plain Holm: x3 = 0.06), 0.03 / 0.4 x 0.6 = 0.045 (raised to the running 0.05),
    # 0.01 / 0.1 x 0.2 = 0.02 (0.05), 0.5 / 0.1 x 0.1 = 0.5. The light test pays more.
    p = np.array([0.02, 0.03, 0.01, 0.5])
    w = np.array([0.4, 0.4, 0.1, 0.1])
    assert weighted_holm(p, w) == pytest.approx([0.05, 0.05, 0.05, 0.5])
    assert holm(p) == pytest.approx([0.06, 0.06, 0.04, 0.5])
    with pytest.raises(ValueError, match="positive"):
        weighted_holm(p, np.array([1.0, 0.0, 1.0, 1.0]))
