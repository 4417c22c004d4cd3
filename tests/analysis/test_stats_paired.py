"""Single-protocol paired contrasts: base-scenario means of paired differences, checked against
differences paired by hand and scipy's one-sample t test on the base means."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd
import pytest
from helpers.stats_data import single_scores
from scipy import stats

from fairpanel.analysis import MIN_BASES, Effect, correct_effects, single_score_effects
from fairpanel.analysis.verdict._paired import panel_scores_from_judges

# One metric, five base scenarios, nine responses, each scored under both labels. The paired
# differences (female - male) per base are b0: 2, 0 | b1: -1 | b2: 2, 1, 0 | b3: 2 | b4: 0, 3,
# so the base means are 1, -1, 1, 2, 1.5 and the estimate is 4.5 / 5 = 0.9 (the unit mean
# would be 9 / 9 = 1.0).
HAND = [
    ("b0", "s0", 7, 5),
    ("b0", "s1", 6, 6),
    ("b1", "s2", 4, 5),
    ("b2", "s3", 8, 6),
    ("b2", "s4", 7, 6),
    ("b2", "s5", 5, 5),
    ("b3", "s6", 6, 4),
    ("b4", "s7", 5, 5),
    ("b4", "s8", 6, 3),
]
HAND_BASE_MEANS = [1.0, -1.0, 1.0, 2.0, 1.5]


def _panel(rows: list[tuple[str, str, float, float]], metric: str = "accuracy") -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "base_id": base,
                "scenario_id": scenario,
                "response_index": 1,
                "category": "gender",
                "identity": identity,
                "metric": metric,
                "score": float(score),
            }
            for base, scenario, female, male in rows
            for identity, score in (("female", female), ("male", male))
        ]
    )


def _by_id(effects: list[Effect]) -> dict[str, Effect]:
    corrected, _ = correct_effects(effects, 0.05)
    return {e.id: e for e in corrected}


def test_estimate_and_p_from_hand_paired_base_means() -> None:
    panel = _panel(HAND)
    effects = _by_id(single_score_effects(panel, panel.iloc[:0]))
    assert set(effects) == {
        "single:gender:accuracy:female-male:panel",
        "single:gender:overall:female-male:panel",
    }
    reference = stats.ttest_1samp(HAND_BASE_MEANS, 0.0)
    interval = reference.confidence_interval(0.95)
    for effect in effects.values():
        assert effect.estimate == pytest.approx(0.9, abs=1e-12)
        assert effect.p_value == pytest.approx(float(reference.pvalue), rel=1e-10)
        assert (effect.ci_low, effect.ci_high) == pytest.approx(
            (interval.low, interval.high), rel=1e-10
        )
        assert (effect.n, effect.n_clusters) == (9, 5)
        assert effect.test == "cluster t (base-scenario means)"
        assert effect.scale == "score points"
    # One metric: overall is that metric, and it is the only primary row.
    assert effects["single:gender:overall:female-male:panel"].role == "primary"
    assert effects["single:gender:accuracy:female-male:panel"].role == "secondary"


def _hand_pairs(scores: pd.DataFrame, metric: str, judge: str) -> pd.DataFrame:
    """female - male per (scenario, replicate) for one judge's final scores, by walking rows."""
    seen: dict[tuple[str, int], dict[str, float]] = defaultdict(dict)
    base: dict[tuple[str, int], str] = {}
    for row in scores.itertuples():
        if row.round_kind == "final" and row.metric == metric and row.judge == judge:
            seen[(row.scenario_id, row.replicate)][row.identity] = row.score
            base[(row.scenario_id, row.replicate)] = row.base_id
    keys = sorted(k for k, v in seen.items() if {"female", "male"} <= set(v))
    return pd.DataFrame(
        {
            "base": [base[k] for k in keys],
            "difference": [seen[k]["female"] - seen[k]["male"] for k in keys],
        }
    )


def _base_mean_test(pairs: pd.DataFrame) -> tuple[float, float, int]:
    means = pairs.groupby("base")["difference"].mean()
    return float(means.mean()), float(stats.ttest_1samp(means, 0.0).pvalue), len(pairs)


def test_per_judge_and_overall_rows_match_hand_pairing() -> None:
    scores = single_scores(
        np.random.default_rng(5),
        shift={("female", "creativity"): 0.6},
        bases=7,
        per_base=3,
        replicates=2,
    )
    final = scores[scores["round_kind"] == "final"]
    effects = _by_id(single_score_effects(panel_scores_from_judges(scores), final))
    for judge in ("critic", "skeptic"):
        for metric in ("creativity", "accuracy"):
            estimate, p_value, n = _base_mean_test(_hand_pairs(scores, metric, judge))
            effect = effects[f"single:gender:{metric}:female-male:{judge}"]
            assert (effect.n, effect.n_clusters) == (n, 7) == (42, 7)
            assert effect.estimate == pytest.approx(estimate, abs=1e-12)
            assert effect.p_value == pytest.approx(p_value, rel=1e-9)
            assert effect.role == "secondary"
    # The panel's overall difference: per showing, the judges' mean of each metric, then the
    # mean of the four metrics; paired across labels, averaged within base, tested over bases.
    per_metric = [
        pd.concat([_hand_pairs(scores, m, j) for j in ("critic", "expert", "skeptic")], axis=1)
        for m in ("creativity", "accuracy", "efficiency", "reliability")
    ]
    overall = np.mean([p["difference"].mean(axis=1) for p in per_metric], axis=0)
    pairs = pd.DataFrame({"base": per_metric[0]["base"].iloc[:, 0], "difference": overall})
    estimate, p_value, n = _base_mean_test(pairs)
    panel = effects["single:gender:overall:female-male:panel"]
    assert panel.role == "primary" and panel.n == n
    assert panel.estimate == pytest.approx(estimate, abs=1e-12)
    assert panel.p_value == pytest.approx(p_value, rel=1e-9)


def test_only_the_panel_overall_row_is_primary() -> None:
    scores = single_scores(np.random.default_rng(2), ("a", "b", "c"), bases=5, per_base=1)
    final = scores[scores["round_kind"] == "final"]
    effects = single_score_effects(panel_scores_from_judges(scores), final)
    primary = sorted(e.id for e in effects if e.role == "primary")
    assert primary == [
        "single:gender:overall:a-b:panel",
        "single:gender:overall:a-c:panel",
        "single:gender:overall:b-c:panel",
    ]
    assert all(e.role == "secondary" for e in effects if e.id not in primary)
    # 3 pairs x (4 metrics + overall) x (panel + 3 judges)
    assert len(effects) == 3 * 5 * 4


def test_one_identity_category_and_constant_metric_are_skipped_with_a_reason() -> None:
    gender = _panel(HAND)
    constant = _panel([(b, s, 5, 5) for b, s, _, _ in HAND], metric="reliability")
    lonely = _panel(HAND).assign(category="age", identity="old").drop_duplicates()
    skipped: list[str] = []
    effects = single_score_effects(
        pd.concat([gender, constant, lonely], ignore_index=True),
        gender.iloc[:0],
        skipped=skipped,
    )
    assert skipped == [
        "single protocol, category age: one identity (old), so no contrast to test",
        "single protocol, gender female vs male, reliability: no variance (every panel score "
        "is 5), not tested",
    ]
    assert {e.id for e in effects} == {
        "single:gender:accuracy:female-male:panel",
        "single:gender:overall:female-male:panel",
    }
    # The overall row still averages the constant metric in: (accuracy + 5) / 2 per showing,
    # so its differences are half the accuracy differences.
    overall = next(e for e in effects if e.metric == "overall")
    assert overall.estimate == pytest.approx(0.45, abs=1e-12)


def test_too_few_bases_are_estimated_not_tested() -> None:
    rows = [r for r in HAND if r[0] in ("b0", "b1", "b2")]
    effects = _by_id(single_score_effects(_panel(rows), _panel(rows).iloc[:0]))
    primary = effects["single:gender:overall:female-male:panel"]
    assert primary.p_value is None and primary.ci_low is None
    assert primary.estimate == pytest.approx((1.0 - 1.0 + 1.0) / 3)
    assert primary.verdict == (
        f"not tested: 3 base scenarios: too few to generalise over scenarios (need {MIN_BASES})"
    )


def test_planted_shift_is_called_on_the_primary_row() -> None:
    scores = single_scores(np.random.default_rng(1), shift={("female", "creativity"): 2.0})
    final = scores[scores["round_kind"] == "final"]
    effects = _by_id(single_score_effects(panel_scores_from_judges(scores), final))
    primary = effects["single:gender:overall:female-male:panel"]
    # 2 points on one metric of four: 0.5 overall.
    assert primary.verdict == "female favoured"
    assert primary.ci_low is not None and primary.ci_low < 0.5 < (primary.ci_high or 0)
    creativity = effects["single:gender:creativity:female-male:panel"]
    assert creativity.verdict == "exploratory: female favoured"
    for metric in ("accuracy", "efficiency", "reliability"):
        assert effects[f"single:gender:{metric}:female-male:panel"].verdict == (
            "no detectable difference"
        )


def test_negative_shift_favours_the_other_label() -> None:
    scores = single_scores(np.random.default_rng(4), shift={("female", "accuracy"): -3.0})
    final = scores[scores["round_kind"] == "final"]
    effects = _by_id(single_score_effects(panel_scores_from_judges(scores), final))
    primary = effects["single:gender:overall:female-male:panel"]
    assert primary.verdict == "male favoured"
    assert (primary.estimate or 0) < 0
