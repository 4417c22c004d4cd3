"""The control arms: each reports its own headline, and the same-label arm's pseudo label swaps
are the cluster test the headline uses, checked against a by-hand computation."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairpanel.analysis import (
    ArmResults,
    HeadlineBlock,
    control_false_positives,
    same_label_swap_tests,
)

LABELS = ("Asian", "Black", "White")


def _same_label(
    rng: np.random.Generator, front_bias: dict[str, float], bases: int = 8, tie: float = 0.15
) -> pd.DataFrame:
    """Same-label pairs (x, x) in both response orders over ``bases`` base scenarios; the front
    answer's log-odds of winning depend on the label by ``front_bias``; some verdicts tie."""
    rows = []
    for base in range(bases):
        for derived in range(2):
            quality = {1: rng.normal(0, 0.7), 2: rng.normal(0, 0.7)}
            for label, (front, back) in itertools.product(front_bias, ((1, 2), (2, 1))):
                eta = front_bias[label] + quality[front] - quality[back]
                if rng.random() < tie:
                    position = math.nan
                else:
                    position = 0.0 if rng.random() < 1 / (1 + math.exp(-eta)) else 1.0
                rows.append(
                    {
                        "trial_key": f"{base}-{derived}-{label}-{front}",
                        "base_id": f"b{base}",
                        "scenario_id": f"b{base}-{derived}",
                        "category": "race",
                        "first_identity": label,
                        "second_identity": label,
                        "first_response_index": front,
                        "second_response_index": back,
                        "winner_position": position,
                        "winner_identity": None if math.isnan(position) else label,
                    }
                )
    return pd.DataFrame(rows)


def _by_hand(frame: pd.DataFrame, a: str, b: str) -> tuple[float, float, float, float]:
    """(estimate, ci_low, ci_high, p) written out: match (a, a) with (b, b) on scenario and
    front response, value (o_a - o_b) / 2 with o = 1 / 0.5 / 0, base means, one-sample t."""
    outcome = {0.0: 1.0, 1.0: 0.0}
    values: dict[str, list[float]] = {}
    keyed = {
        (r.first_identity, r.scenario_id, r.first_response_index): r
        for r in frame.itertuples(index=False)
    }
    for (label, scenario, front), row in keyed.items():
        if label != a:
            continue
        other = keyed[(b, scenario, front)]
        o_a = outcome.get(row.winner_position, 0.5)
        o_b = outcome.get(other.winner_position, 0.5)
        values.setdefault(row.base_id, []).append((o_a - o_b) / 2)
    means = np.array([np.mean(v) for _, v in sorted(values.items())])
    result = stats.ttest_1samp(means, 0.0)
    half = stats.t.ppf(0.975, len(means) - 1) * means.std(ddof=1) / math.sqrt(len(means))
    return (
        float(means.mean()),
        float(means.mean() - half),
        float(means.mean() + half),
        float(result.pvalue),
    )


def test_pseudo_swaps_match_a_hand_computed_cluster_t() -> None:
    frame = _same_label(np.random.default_rng(11), {"Asian": 1.5, "Black": -1.5, "White": 0.0})
    result = same_label_swap_tests(frame, alpha=0.05)
    assert result["tests"] == 3 and result["test"] == "cluster t (base-scenario means)"
    rows = {row["contrast"]: row for row in result["rows"]}
    for a, b in itertools.combinations(LABELS, 2):
        estimate, low, high, p_value = _by_hand(frame, a, b)
        row = rows[f"{a} vs {b}"]
        assert row["estimate"] == pytest.approx(estimate)
        assert row["ci_low"] == pytest.approx(low) and row["ci_high"] == pytest.approx(high)
        assert row["p_value"] == pytest.approx(p_value)
        assert row["n_clusters"] == 8 and row["n"] == 32  # 8 bases x 2 scenarios x 2 orders
        assert row["rejected"] == (p_value < 0.05)
    # The planted label dependence (Asian's front answer wins far more) is found.
    assert rows["Asian vs Black"]["rejected"] and rows["Asian vs Black"]["estimate"] > 0
    assert result["rejected"] == sum(row["rejected"] for row in result["rows"])
    assert "unadjusted" in result["method"]


def test_pseudo_swaps_hold_their_level_when_no_label_matters() -> None:
    rng = np.random.default_rng(4)
    null = [same_label_swap_tests(_same_label(rng, dict.fromkeys(LABELS, 0.3))) for _ in range(60)]
    assert all(r["tests"] == 3 for r in null)
    rate = sum(r["rejected"] for r in null) / (3 * 60)
    # 180 tests at 5%: Binomial(180, 0.05) has mean 9, sd 2.9.
    assert rate <= 0.1, rate


def test_too_few_bases_give_no_test_and_say_why() -> None:
    frame = _same_label(np.random.default_rng(2), dict.fromkeys(LABELS, 0.0), bases=3)
    result = same_label_swap_tests(frame)
    assert result["tests"] == 0 and result["rate"] is None
    assert all(row["p_value"] is None for row in result["rows"]) and len(result["rows"]) == 3
    assert result["untested"] and "3 base scenarios" in result["untested"][0]


def _arm(identity_effect: bool | None, *, pair: int = 10) -> ArmResults:
    headline = HeadlineBlock(
        verdict="Detectable identity effect" if identity_effect else "No detectable effect",
        tests=2,
        detected=["pair:control:x"] if identity_effect else [],
        identity_effect=identity_effect,
        position="No position preference detectable.",
        position_bias=False,
    )
    return ArmResults(n_trials={"single": 4, "pair": pair}, headline=headline)


def test_each_arm_reports_its_own_headline() -> None:
    frame = _same_label(np.random.default_rng(5), dict.fromkeys(LABELS, 0.0))
    arms = {"placebo": _arm(True), "same_label": _arm(None), "empty": _arm(None, pair=0)}
    arms["empty"] = ArmResults(n_trials={"single": 0, "pair": 0})
    out = control_false_positives(arms, {"same_label": frame, "placebo": frame.iloc[:0]})
    assert list(out) == ["placebo", "same_label", "note"]  # an arm without trials is left out
    placebo = out["placebo"]
    assert placebo["identity_effect"] is True and placebo["primary_tests"] == 2
    assert placebo["verdict"] == "Detectable identity effect"
    assert placebo["position_bias"] is False and placebo["detected"] == ["pair:control:x"]
    assert placebo["n_verdicts"] == 10 and "label_swap_tests" not in placebo
    assert out["same_label"]["identity_effect"] is None
    assert out["same_label"]["label_swap_tests"]["tests"] == 3
    assert "'a person'" not in out["note"] and "two distinct neutral labels" in out["note"]
