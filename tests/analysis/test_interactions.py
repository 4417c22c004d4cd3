"""Treatment x label interactions: the change of a primary contrast under a treatment, matched
unit by unit across treatments, against a hand computation and scipy's one-sample t test."""

from __future__ import annotations

from dataclasses import dataclass

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
from statsmodels.stats.multitest import multipletests

from fairpanel.analysis import treatment_interactions

BASES, PER_BASE = 8, 3
JUDGES = ("critic", "expert")


@dataclass
class Frames:
    """One arm under one treatment, shaped like ``judging.RunFrames``."""

    scores: pd.DataFrame
    verdicts: pd.DataFrame
    turns: pd.DataFrame
    consensus: pd.DataFrame


def _arms(
    seed: int, baseline: tuple[float, float], treated: tuple[float, float]
) -> tuple[Frames, Frames]:
    """The same scenarios, answers and judge (per-base preferences shared) under two
    treatments; ``baseline`` and ``treated`` are the mean (score shift in points, label effect
    in logits) under each."""
    rng = np.random.default_rng(seed)
    score_quality = answer_quality(rng, BASES, PER_BASE, sd=1.0)
    pair_quality = answer_quality(rng, BASES, PER_BASE)
    score_spread = base_preferences(rng, BASES, 0.3)
    label_spread = base_preferences(rng, BASES, 0.3)
    position = base_preferences(rng, BASES, 0.3, 0.5)
    arms = []
    for treatment, (shift, label) in (("none", baseline), ("debias", treated)):
        scores = varying_single_scores(
            rng, score_quality, score_spread + shift, judges=JUDGES, treatment=treatment
        )
        verdicts = varying_pair_verdicts(
            rng, pair_quality, label_spread + label, position, treatment=treatment, tie_rate=0.1
        )
        arms.append(Frames(scores, verdicts, pd.DataFrame(), pd.DataFrame()))
    return arms[0], arms[1]


def _score_units(frames: Frames) -> np.ndarray:
    """Per (scenario, response): the judges' mean of female - male (rows come in (female,
    male) pairs, one block per judge)."""
    blocks = frames.scores["score"].to_numpy().reshape(len(JUDGES), -1)
    return (blocks[:, 0::2] - blocks[:, 1::2]).mean(axis=0)


def _swap_units(frames: Frames) -> np.ndarray:
    """Per label swap, (female front's win share - male front's) / 2; the generator's rows per
    scenario are [female front r1, female front r2, male front r1, male front r2]."""
    winner = frames.verdicts["winner_position"].to_numpy(dtype=float)
    share = np.where(np.isnan(winner), 0.5, 1.0 - winner).reshape(-1, 4)
    return ((share[:, :2] - share[:, 2:]) / 2).ravel()


def _by_hand(change: np.ndarray) -> tuple[float, float]:
    means = change.reshape(BASES, -1).mean(axis=1)
    return float(means.mean()), float(stats.ttest_1samp(means, 0.0).pvalue)


def test_a_planted_change_is_estimated_by_hand_and_called() -> None:
    baseline, treated = _arms(1, baseline=(1.5, 1.5), treated=(0.0, 0.0))
    effects = {e.protocol: e for e in treatment_interactions(baseline, treated, treatment="debias")}
    assert set(effects) == {"single", "pair"}
    single, pair = effects["single"], effects["pair"]
    estimate, p_value = _by_hand(_score_units(treated) - _score_units(baseline))
    assert single.estimate == pytest.approx(estimate, abs=1e-12)
    assert single.p_value == pytest.approx(p_value, rel=1e-9)
    assert (single.n, single.n_clusters) == (BASES * PER_BASE * 2, BASES)
    estimate, p_value = _by_hand(_swap_units(treated) - _swap_units(baseline))
    assert pair.estimate == pytest.approx(estimate, abs=1e-12)
    assert pair.p_value == pytest.approx(p_value, rel=1e-9)
    assert (pair.n, pair.n_clusters) == (BASES * PER_BASE * 2, BASES)
    # The treatment removed a preference for female: negative, and called (Holm over the two).
    holm = multipletests([single.p_value, pair.p_value], method="holm")[1]
    assert (single.p_holm, pair.p_holm) == pytest.approx(tuple(holm))
    for effect in (single, pair):
        assert effect.role == "interaction"
        assert effect.estimate is not None and effect.estimate < 0
        assert effect.verdict == "male favoured"
    assert single.id == "interaction:debias:single:gender:female-male"
    assert pair.id == "interaction:debias:pair:gender:female-male"
    assert single.scale == "score points" and pair.scale == "win share - 0.5"


def test_equal_effects_under_both_treatments_are_not_called() -> None:
    baseline, treated = _arms(2, baseline=(1.5, 1.5), treated=(1.5, 1.5))
    effects = treatment_interactions(baseline, treated, treatment="debias")
    assert len(effects) == 2
    for effect in effects:
        assert effect.verdict == "no detectable difference", effect
        assert abs(effect.estimate or 0.0) < 0.25
    # Each treatment on its own shows the same strong preference, so a test of either arm
    # against zero would be called: the interaction test compares the arms.
    for arm in (baseline, treated):
        estimate, p_value = _by_hand(_score_units(arm))
        assert estimate > 1.0 and p_value < 1e-3


def test_units_are_matched_across_treatments_not_pooled() -> None:
    baseline, treated = _arms(3, baseline=(1.0, 1.0), treated=(0.0, 0.0))
    # The treated arm lost its last base scenario: only the units present in both are matched.
    kept = treated.verdicts["base_id"] != f"b{BASES - 1}"
    partial = Frames(treated.scores, treated.verdicts.loc[kept], treated.turns, treated.consensus)
    pair = next(
        e
        for e in treatment_interactions(baseline, partial, treatment="debias")
        if e.protocol == "pair"
    )
    change = (_swap_units(treated) - _swap_units(baseline)).reshape(BASES, -1)[:-1]
    means = change.mean(axis=1)
    assert pair.n_clusters == BASES - 1 and pair.n == change.size
    assert pair.estimate == pytest.approx(float(means.mean()), abs=1e-12)
