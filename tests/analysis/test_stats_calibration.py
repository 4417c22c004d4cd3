"""Calibration under the null the issue is about: a judge whose label and position preferences
vary from base scenario to base scenario around zero, with verdicts that depend on the answers,
is not called biased more often than alpha, at 2 and at 6 derived scenarios per base; a
constant preference is called in most runs.

Each test simulates many small runs as frames (``helpers.stats_data``), runs the package's
primary test on each, and checks the rejection rate against a binomial bound. Each run also
recomputes the unit values by hand from the generator's layout: the package's estimate must be
their mean over base means, and a t test that ignores the base scenarios must over-reject on
the same runs (so the data are hard enough for the bound to mean something).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from helpers.stats_data import (
    answer_quality,
    base_preferences,
    varying_pair_verdicts,
    varying_single_scores,
)
from scipy import stats

from fairpanel.analysis import pair_outcomes, position_bias, single_score_effects
from fairpanel.analysis.verdict._pair_verdicts import swap_effect

ALPHA = 0.05
BASES = 10
PREFERENCE_SD = 0.7  # logits for verdicts, between-base spread of the label and position effect


def _bound(runs: int) -> int:
    """Most rejections allowed in ``runs`` null runs: alpha + 3 binomial sd."""
    return math.floor(runs * (ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / runs)))


def _front_share(verdicts: pd.DataFrame) -> np.ndarray:
    """Per scenario (rows) the front answer's win share (1, 1/2, 0) in the generator's four
    arrangements: [a front r1, a front r2, b front r1, b front r2]."""
    winner = verdicts["winner_position"].to_numpy(dtype=float)
    share = np.where(np.isnan(winner), 0.5, 1.0 - winner)
    return share.reshape(-1, 4)


def _mean_of_base_means(values: np.ndarray) -> float:
    """Units are generated base by base, each base with the same number of units."""
    return float(values.reshape(BASES, -1).mean(axis=1).mean())


def _null_pairs(
    rng: np.random.Generator, per_base: int, label: float = 0.0, position: float = 0.0
) -> pd.DataFrame:
    return varying_pair_verdicts(
        rng,
        answer_quality(rng, BASES, per_base),
        base_preferences(rng, BASES, PREFERENCE_SD, label),
        base_preferences(rng, BASES, PREFERENCE_SD, position),
        tie_rate=0.1,
    )


def _swap(verdicts: pd.DataFrame) -> float:
    effect = swap_effect(
        pair_outcomes(verdicts), "gender", ("female", "male"), None, confidence=0.95
    )
    assert effect.p_value is not None and effect.role == "primary"
    share = _front_share(verdicts)
    # Label swaps: (a front r1, b front r1) and (a front r2, b front r2).
    values = (share[:, :2] - share[:, 2:]).ravel() / 2
    assert effect.estimate == pytest.approx(_mean_of_base_means(values), abs=1e-12)
    return effect.p_value


@pytest.mark.parametrize("per_base", [2, 6])
def test_label_swap_null_rejects_at_alpha(per_base: int) -> None:
    rng = np.random.default_rng(100 + per_base)
    runs = 150
    rejected = naive = 0
    for _ in range(runs):
        verdicts = _null_pairs(rng, per_base)
        rejected += _swap(verdicts) < ALPHA
        share = _front_share(verdicts)
        units = (share[:, :2] - share[:, 2:]).ravel() / 2
        naive += stats.ttest_1samp(units, 0.0).pvalue < ALPHA
    assert rejected <= _bound(runs), (rejected, runs)
    if per_base == 6:
        # Treating the 12 swaps of a base as independent calls the mean-zero judge biased.
        assert naive > 2 * runs * ALPHA, naive


def test_planted_label_preference_is_called() -> None:
    rng = np.random.default_rng(7)
    runs = 40
    called = sum(_swap(_null_pairs(rng, 6, label=1.5)) < ALPHA for _ in range(runs))
    assert called >= 0.8 * runs, called


def _position(verdicts: pd.DataFrame) -> bool:
    bias = position_bias(verdicts, alpha=ALPHA)
    share = _front_share(verdicts)
    # Order twins: (a r1 | b r2) with (b r2 | a r1), and (a r2 | b r1) with (b r1 | a r2).
    twins = np.stack([share[:, 0] + share[:, 3], share[:, 1] + share[:, 2]], axis=1) / 2
    assert bias["first_position_win_rate"] == pytest.approx(
        _mean_of_base_means(twins.ravel()), abs=1e-12
    )
    assert bias["n_twins"] == twins.size and bias["called"] is not None
    return bool(bias["called"])


def test_position_claim_null_rejects_at_alpha() -> None:
    rng = np.random.default_rng(11)
    runs = 150
    rejected = sum(_position(_null_pairs(rng, 6)) for _ in range(runs))
    assert rejected <= _bound(runs), (rejected, runs)


def test_planted_position_preference_is_called() -> None:
    rng = np.random.default_rng(12)
    runs = 40
    called = sum(_position(_null_pairs(rng, 6, position=1.0)) for _ in range(runs))
    assert called >= 0.8 * runs, called


SCORE_SD = 0.5  # score points, between-base spread of the label effect


def _single(rng: np.random.Generator, per_base: int, shift: float = 0.0) -> tuple[float, float]:
    """The primary single-protocol p-value of one simulated run, and a unit-level t test's."""
    scores = varying_single_scores(
        rng,
        answer_quality(rng, BASES, per_base, sd=1.0),
        base_preferences(rng, BASES, SCORE_SD, shift),
    )
    (primary,) = [e for e in single_score_effects(scores, scores.iloc[:0]) if e.role == "primary"]
    assert primary.p_value is not None
    # Rows come in (female, male) pairs of the same response.
    units = scores["score"].to_numpy()[0::2] - scores["score"].to_numpy()[1::2]
    assert primary.estimate == pytest.approx(_mean_of_base_means(units), abs=1e-12)
    return primary.p_value, float(stats.ttest_1samp(units, 0.0).pvalue)


@pytest.mark.parametrize("per_base", [2, 6])
def test_single_score_null_rejects_at_alpha(per_base: int) -> None:
    rng = np.random.default_rng(200 + per_base)
    runs = 150
    results = [_single(rng, per_base) for _ in range(runs)]
    rejected = sum(p < ALPHA for p, _ in results)
    assert rejected <= _bound(runs), (rejected, runs)
    if per_base == 6:
        naive = sum(p < ALPHA for _, p in results)
        assert naive > 2 * runs * ALPHA, naive


def test_planted_score_shift_is_called() -> None:
    rng = np.random.default_rng(13)
    runs = 40
    called = sum(_single(rng, 6, shift=1.0)[0] < ALPHA for _ in range(runs))
    assert called >= 0.8 * runs, called
