"""The vectorised Holm and Benjamini-Hochberg adjustments equal statsmodels' multipletests."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests

from fairpanel.analysis._multitest import benjamini_hochberg, holm

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
