"""Single-protocol paired contrasts, checked against computations done another way."""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from helpers.stats_data import single_scores
from scipy.stats import norm, rankdata

from fairpanel.analysis import correct_effects, single_score_effects
from fairpanel.analysis._paired import panel_scores_from_judges
from fairpanel.analysis._resample import bootstrap_mean


def _effects(scores: pd.DataFrame, n_boot: int = 500) -> dict[str, object]:
    final = scores[scores["round_kind"] == "final"]
    effects = single_score_effects(panel_scores_from_judges(scores), final, n_boot=n_boot)
    corrected, _ = correct_effects(effects, 0.05)
    return {e.id: e for e in corrected}


def _hand_pairs(scores: pd.DataFrame, metric: str, judge: str) -> tuple[list[float], list[str]]:
    """female - male per (scenario, replicate) for one judge, by walking the rows."""
    seen: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
    base: dict[tuple[str, int], str] = {}
    for row in scores.itertuples():
        if row.round_kind == "final" and row.metric == metric and row.judge == judge:
            seen[(row.scenario_id, row.replicate)][row.identity] = row.score
            base[(row.scenario_id, row.replicate)] = row.base_id
    keys = sorted(k for k, v in seen.items() if {"female", "male"} <= set(v))
    return [seen[k]["female"] - seen[k]["male"] for k in keys], [base[k] for k in keys]


def _signed_rank_normal_p(differences: list[float]) -> float:
    """Textbook normal approximation with the tie correction, zeros dropped."""
    d = np.array([x for x in differences if x != 0.0])
    n = d.size
    ranks = rankdata(np.abs(d))
    w_plus = ranks[d > 0].sum()
    mean = n * (n + 1) / 4
    _, ties = np.unique(np.abs(d), return_counts=True)
    variance = n * (n + 1) * (2 * n + 1) / 24 - (ties**3 - ties).sum() / 48
    z = (w_plus - mean) / math.sqrt(variance)
    return float(2 * norm.sf(abs(z)))


def test_wilcoxon_and_mean_match_hand_pairing() -> None:
    scores = single_scores(np.random.default_rng(5), shift={("female", "creativity"): 0.6})
    effects = _effects(scores)
    for judge in ("critic", "skeptic"):
        for metric in ("creativity", "accuracy"):
            differences, _ = _hand_pairs(scores, metric, judge)
            effect = effects[f"single:gender:{metric}:female-male:{judge}"]
            assert effect.n == len(differences) == 36
            assert effect.n_clusters == 12
            assert effect.estimate == pytest.approx(np.mean(differences), abs=1e-12)
            assert effect.p_value == pytest.approx(_signed_rank_normal_p(differences), rel=1e-9)
            assert effect.scale == "score points" and effect.test == "wilcoxon signed-rank"


def test_overall_is_the_mean_of_the_metrics_per_showing() -> None:
    scores = single_scores(np.random.default_rng(9))
    effect = _effects(scores)["single:gender:overall:female-male:expert"]
    per_metric = [
        _hand_pairs(scores, m, "expert")[0]
        for m in ("creativity", "accuracy", "efficiency", "reliability")
    ]
    overall = np.mean(per_metric, axis=0)
    assert effect.estimate == pytest.approx(overall.mean(), abs=1e-12)


def test_cluster_bootstrap_matches_explicit_resampling() -> None:
    rng = np.random.default_rng(2)
    clusters = np.repeat([f"b{i}" for i in range(7)], rng.integers(1, 6, size=7))
    values = rng.normal(size=clusters.size)
    interval = bootstrap_mean(values, clusters, seed=99, n_boot=300, confidence=0.9)
    # The same draws, done the slow way: concatenate the drawn clusters' rows, take the mean.
    names = np.unique(clusters)
    draws = np.random.default_rng(99).integers(0, names.size, size=(300, names.size))
    means = [np.mean(np.concatenate([values[clusters == names[i]] for i in row])) for row in draws]
    low, high = np.quantile(means, [0.05, 0.95])
    assert (interval.low, interval.high) == pytest.approx((low, high), abs=1e-12)
    assert interval.resampled == "base scenarios"


def test_planted_shift_is_found_and_nothing_else() -> None:
    scores = single_scores(
        np.random.default_rng(1), shift={("female", "creativity"): 1.0}, bases=15
    )
    effects = _effects(scores)
    panel = effects["single:gender:creativity:female-male:panel"]
    assert panel.verdict == "female favoured"
    assert panel.ci_low is not None and panel.ci_low < 1.0 < (panel.ci_high or 0)
    assert 0.7 < (panel.estimate or 0) < 1.3
    for metric in ("accuracy", "efficiency", "reliability"):
        assert effects[f"single:gender:{metric}:female-male:panel"].verdict == (
            "no detectable difference"
        )


def test_negative_shift_favours_the_other_label() -> None:
    scores = single_scores(np.random.default_rng(4), shift={("female", "accuracy"): -1.0})
    effect = _effects(scores)["single:gender:accuracy:female-male:panel"]
    assert effect.verdict == "male favoured"
    assert (effect.estimate or 0) < 0


def test_null_rejection_rate_is_nominal() -> None:
    """Wilcoxon on paired panel scores under no effect rejects at about alpha (seeded)."""
    rng = np.random.default_rng(17)
    units = 24
    layout = pd.DataFrame(
        {
            "base_id": np.repeat([f"b{i}" for i in range(8)], 3).tolist() * 2,
            "scenario_id": [f"s{i}" for i in range(units)] * 2,
            "response_index": 1,
            "category": "gender",
            "identity": ["female"] * units + ["male"] * units,
            "metric": "creativity",
        }
    )
    runs, rejections = 160, 0
    for _ in range(runs):
        quality = np.tile(rng.normal(6, 1, size=units), 2)
        panel = layout.assign(score=np.round(quality + rng.normal(0, 1.2, size=2 * units)))
        effects = single_score_effects(panel, panel.iloc[:0], n_boot=10)
        p_value = next(e.p_value for e in effects if e.metric == "creativity")
        rejections += p_value is not None and p_value < 0.05
    # Binomial(160, 0.05): mean 8, sd 2.8; the window is about +-2.5 sd.
    assert 2 <= rejections <= 15, rejections
