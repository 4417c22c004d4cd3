"""The score-distribution figure's interval and rows, computed in analysis (the report only
draws them)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from fairpanel.analysis import mean_interval, no_preference_level


def test_distribution_interval_is_a_t_interval_clipped_to_the_score_range() -> None:
    values = np.array([5.0, 6.0, 7.0, 6.0, 8.0, 4.0, 6.0])
    expected = stats.t.interval(0.95, len(values) - 1, values.mean(), stats.sem(values))
    assert np.allclose(mean_interval(values), expected)
    assert mean_interval(np.array([10.0, 10.0, 9.0, 10.0, 10.0]))[1] == 10.0  # clipped
    assert mean_interval(np.array([2.0, 10.0])) == (6.0, 6.0)  # too few scores: no interval
    wider = stats.t.interval(0.99, len(values) - 1, values.mean(), stats.sem(values))
    assert np.allclose(mean_interval(values, confidence=0.99), wider)


def test_no_preference_level_is_half_of_the_decided_share() -> None:
    # 100 appearances, 20 of them ties: 80 decided, half of them won = 40 of 100 appearances.
    assert no_preference_level(100, 20) == 0.4
    assert no_preference_level(50, 0) == 0.5
    assert no_preference_level(0, 0) == 0.5  # nothing to decide: the even split
