"""Label-bias metrics and calibration against the digest's worked numbers and independent
computations (pandas / numpy, done differently from the implementation)."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from fairpanel.studies.label_bias import (
    LabelOutcome,
    bias_score,
    calibrate,
    class_accuracies,
    label_aware_mean,
    label_bias_view,
    leave_one_out_priors,
    rsd,
)


def _hard(gold: str, predicted: str, labels: str) -> LabelOutcome:
    return LabelOutcome(gold, {label: float(label == predicted) for label in labels})


def test_rsd_worked_examples() -> None:
    four = [_hard(g, p, "AB") for g, p in zip("AAAB", "AAAA", strict=True)]
    assert class_accuracies(four) == {"A": 1.0, "B": 0.0}
    assert rsd(four) == pytest.approx(0.6667, abs=1e-4)
    six = [_hard(g, p, "ABC") for g, p in zip("AAABBC", "AABBAA", strict=True)]
    assert rsd(six) == pytest.approx(0.56656, abs=1e-5)
    wrong = [_hard(g, p, "AB") for g, p in zip("AB", "BA", strict=True)]
    assert rsd(wrong) == 0.0  # accuracy 0: RSD is 0 (the paper's code)
    assert rsd([_hard("A", "A", "AB")]) is None  # one class: nothing to compare


def test_bias_score_and_label_aware_mean_worked_examples() -> None:
    held_out = [
        LabelOutcome("A", {"A": 0.8, "B": 0.2}),
        LabelOutcome("A", {"A": 0.6, "B": 0.4}),
        LabelOutcome("B", {"A": 0.5, "B": 0.5}),
    ]
    assert label_aware_mean(held_out, "AB") == pytest.approx({"A": 0.6, "B": 0.4})
    assert bias_score(held_out, "AB") == pytest.approx(0.1)
    demos = [
        LabelOutcome(g, {"A": a, "B": 1 - a})
        for g, a in zip("AAAB", (0.9, 0.7, 0.8, 0.4), strict=True)
    ]
    assert label_aware_mean(demos, "AB") == pytest.approx({"A": 0.6, "B": 0.4})
    naive = np.mean([[o.probs["A"], o.probs["B"]] for o in demos], axis=0)
    assert naive == pytest.approx([0.7, 0.3])


def test_calibration_worked_example() -> None:
    prior, probs = {"A": 0.6, "B": 0.4}, {"A": 0.55, "B": 0.45}
    assert calibrate(probs, prior) == pytest.approx({"A": 0.44898, "B": 0.55102}, abs=1e-5)
    assert calibrate(probs, prior, "softmax") == pytest.approx(
        {"A": 0.44810, "B": 0.55190}, abs=1e-5
    )


@pytest.mark.parametrize("seed", range(5))
def test_metrics_match_an_independent_computation(seed: int) -> None:
    rng = random.Random(seed)
    labels = ["x", "y", "z"]
    rows = []
    for _ in range(60):
        weights = [rng.random() ** 2 for _ in labels]
        rows.append((rng.choice(labels), [w / sum(weights) for w in weights]))
    outcomes = [LabelOutcome(g, dict(zip(labels, p, strict=True))) for g, p in rows]
    frame = pd.DataFrame([p for _, p in rows], columns=labels)
    frame["gold"] = [g for g, _ in rows]
    frame["hit"] = [labels[int(np.argmax(p))] == g for g, p in rows]  # continuous: no ties
    per_class = frame.groupby("gold")["hit"].mean()
    assert rsd(outcomes) == pytest.approx(per_class.std(ddof=0) / frame["hit"].mean())
    mean = frame.groupby("gold")[labels].mean().mean(axis=0).to_numpy()
    assert bias_score(outcomes, labels) == pytest.approx(0.5 * np.abs(mean - 1 / 3).sum())


def test_ties_count_for_each_tied_label() -> None:
    tied = [LabelOutcome("A", {"A": 0.5, "B": 0.5}), LabelOutcome("B", {"A": 0.5, "B": 0.5})]
    assert class_accuracies(tied) == {"A": 0.5, "B": 0.5} and rsd(tied) == 0.0


def test_leave_one_out_priors_by_hand() -> None:
    outcomes = [
        LabelOutcome("A", {"A": 1.0, "B": 0.0}, group="g1", samples=2),
        LabelOutcome("B", {"A": 0.5, "B": 0.5}, group="g1", samples=2),
        LabelOutcome("A", {"A": 0.5, "B": 0.5}, group="g2", samples=2),
        LabelOutcome("B", {"A": 0.0, "B": 1.0}, group="g2", samples=2),
    ]
    priors = leave_one_out_priors(outcomes, "AB")
    assert priors is not None
    # g1 is calibrated with g2 alone: label-aware mean (0.25, 0.75) from 4 samples,
    # smoothed with half a sample per label: (4 * 0.25 + 0.5) / 5 = 0.3.
    assert priors["g1"] == pytest.approx({"A": 0.3, "B": 0.7})
    assert priors["g2"] == pytest.approx({"A": 0.7, "B": 0.3})
    assert leave_one_out_priors(outcomes[:2], "AB") is None


def test_contextual_calibration_removes_a_multiplicative_label_prior() -> None:
    """Probabilities tilted by a fixed prior (as from a judge that favours A in every
    context) are restored by dividing out the prior the content-free inputs reveal."""
    rng = random.Random(3)
    tilt = {"A": 0.75, "B": 0.25}
    outcomes, clean_outcomes = [], []
    for index in range(200):
        gold = "AB"[index % 2]
        clean = 0.55 + 0.4 * rng.random()
        true = {gold: clean, "B" if gold == "A" else "A": 1 - clean}
        clean_outcomes.append(LabelOutcome(gold, true))
        tilted = {k: true[k] * tilt[k] for k in "AB"}
        total = sum(tilted.values())
        outcomes.append(
            LabelOutcome(gold, {k: v / total for k, v in tilted.items()}, context="c", samples=1)
        )
    view = label_bias_view(outcomes, "AB", content_free={"c": (tilt, 10_000)})
    before, after = view["before"], view["contextual"]
    assert before["bias_score"] > 0.15 and before["rsd"] > 0.3
    # Calibration gives back the untilted probabilities (up to the prior's smoothing).
    assert after["bias_score"] == pytest.approx(bias_score(clean_outcomes, "AB"), abs=1e-3)
    assert after["bias_score"] < 0.05 and after["rsd"] == pytest.approx(0.0)
    assert after["accuracy"] == 1.0
