"""The score-distribution figure's interval and rows, computed in analysis (the report only
draws them)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairpanel.analysis import mean_interval, no_preference_level, score_distribution


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


def test_score_distribution_cells_are_each_identitys_level_shares_and_t_interval() -> None:
    rng = np.random.default_rng(5)
    rows = [
        {"category": category, "metric": metric, "identity": identity, "score": score}
        for category, identities in (("gender", ("female", "male")), ("race", ("Asian",)))
        for metric in ("accuracy", "creativity")
        for identity in identities
        for score in rng.integers(0, 11, size=9).astype(float) + rng.choice([0.0, 0.5], size=9)
    ]
    rows = [r for r in rows if not (r["identity"] == "Asian" and r["metric"] == "creativity")]
    cells = score_distribution(pd.DataFrame(rows))
    keys = [(c.category, c.metric, c.identity) for c in cells]
    assert keys == sorted({(r["category"], r["metric"], r["identity"]) for r in rows})
    for cell in cells:
        values = np.array(
            [
                r["score"]
                for r in rows
                if (r["category"], r["metric"], r["identity"])
                == (cell.category, cell.metric, cell.identity)
            ]
        )
        levels, counts = np.unique(np.round(values), return_counts=True)
        assert dict(zip(cell.levels, cell.shares, strict=True)) == pytest.approx(
            dict(zip(levels.tolist(), (counts / counts.sum()).tolist(), strict=True))
        )
        assert cell.shares == sorted(cell.shares, reverse=True)  # most frequent level first
        low, high = stats.t.interval(0.95, len(values) - 1, values.mean(), stats.sem(values))
        assert cell.mean == pytest.approx(values.mean())
        assert (cell.ci_low, cell.ci_high) == pytest.approx((max(0.0, low), min(10.0, high)))
