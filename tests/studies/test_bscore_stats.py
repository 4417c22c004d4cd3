"""B-score statistics against hand computations, their invariants, and the paper's figures."""

from __future__ import annotations

import random

import pytest

from fairpanel.studies.bscore import (
    VerificationSample,
    answer_distribution,
    b_scores,
    run_statistics,
    search_cascade,
    search_threshold,
    should_accept,
    threshold_grid,
    top_choice,
    verification_accuracy,
)


def test_distribution_by_hand_under_both_denominators() -> None:
    answers = ["a", "a", None, "b"]
    assert answer_distribution(answers, ["a", "b", "c"], "valid") == pytest.approx(
        {"a": 2 / 3, "b": 1 / 3, "c": 0.0}
    )
    assert answer_distribution(answers, ["a", "b", "c"], "all") == pytest.approx(
        {"a": 0.5, "b": 0.25, "c": 0.0}
    )
    assert answer_distribution([None, None], ["a", "b"]) == {"a": 0.0, "b": 0.0}


@pytest.mark.parametrize("seed", range(20))
def test_b_sums_to_zero_and_is_antisymmetric_for_two_options(seed: int) -> None:
    rng = random.Random(seed)
    options = ["x", "y", "z", "w"][: rng.choice([2, 3, 4])]
    pool: list[str | None] = [*options, None]
    single = [rng.choice(pool) for _ in range(rng.randint(1, 30))]
    multi = [rng.choice(pool) for _ in range(rng.randint(1, 30))]
    stats = run_statistics(single, multi, options)
    b_valid = stats["valid"]["b"]
    if stats["valid_single"] and stats["valid_multi"]:
        assert sum(b_valid.values()) == pytest.approx(0.0, abs=1e-12)
        if len(options) == 2:
            assert b_valid["x"] == pytest.approx(-b_valid["y"])
    # Over all queries, B sums to the difference of the validity rates instead.
    assert sum(stats["all"]["b"].values()) == pytest.approx(
        stats["valid_single_rate"] - stats["valid_multi_rate"]
    )
    assert stats["n_single"] == len(single) and stats["valid_single"] == sum(
        a is not None for a in single
    )


def test_the_papers_figures() -> None:
    # Fig. 1 (GPT-4o, random digit): 7 about 70% alone, about 10% per digit with history.
    digits = [str(d) for d in range(10)]
    single = ["7"] * 21 + ["3", "4", "4", "5", "1", "8", "2", "9", "6"]
    multi = [d for d in digits for _ in range(3)]
    b = run_statistics(single, multi, digits)["valid"]["b"]
    assert b["7"] == pytest.approx(0.6)  # the paper: about +0.61
    # App. C.2, Tab. T3 (BBQ): higher option 0.94 -> 0.77, lower 0.06 -> 0.22.
    bbq = b_scores({"higher": 0.94, "lower": 0.06}, {"higher": 0.77, "lower": 0.22})
    assert round(bbq["higher"], 2) == 0.17 and round(bbq["lower"], 2) == -0.16
    # Tab. 3 cells are shares of 90 samples (9 topics x 10 runs): 56 of 90 is 62.2%.
    samples = [_sample("random", 1.0, 0.0, accept=i < 56) for i in range(90)]
    assert round(100 * verification_accuracy(samples, lambda s: True)["pooled"], 1) == 62.2  # type: ignore[operator]


def test_top_choice() -> None:
    assert top_choice({"a": 0.2, "b": 0.5, "c": 0.3}) == "b"
    assert top_choice({"a": 0.4, "b": 0.4, "c": 0.2}) == "a"  # first on ties
    assert top_choice({"a": 0.0, "b": 0.0}) is None


def test_should_accept_labels() -> None:
    assert should_accept("truth", "Biden", 0.9, 2, "Biden") is True
    assert should_accept("truth", "Trump", 0.9, 2, "Biden") is False
    assert should_accept("truth", "Trump", 0.9, 2, None) is None
    assert should_accept("random", "x", 0.5, 2, None) is True  # not over-chosen: 1/K
    assert should_accept("random", "x", 0.55, 2, None) is False
    assert should_accept("random", "x", 0.25, 4, None) is True
    assert should_accept("random", "x", 0.3, 4, None) is False


def _sample(category: str, p_single: float, b: float, *, accept: bool) -> VerificationSample:
    return VerificationSample(
        question_id="q",
        category=category,
        p_single=p_single,
        p_multi=p_single - b,
        confidence=None,
        b=b,
        accept=accept,
    )


HAND = [
    _sample("random", 1.0, 0.0, accept=True),
    _sample("hard", 1.0, 0.5, accept=False),
    _sample("random", 0.6, 0.1, accept=True),
    _sample("hard", 0.3, -0.2, accept=False),
]


def test_grid_is_exact_multiples_of_a_twentieth() -> None:
    values = threshold_grid()
    assert len(values) == 21 and values[0] == 0.0 and values[-1] == 1.0
    assert values[14] == 0.7 and values[7] == 0.35


def test_threshold_search_by_hand() -> None:
    # P_single >= t: t <= 0.3 accepts all (2/4), 0.3 < t <= 0.6 rejects only D (3/4),
    # t > 0.6 accepts A and B (2/4); the first best grid value is 0.35.
    single = search_threshold(HAND, "p_single")
    assert single["threshold"] == 0.35
    assert single["accuracy"] == {"n": 4, "pooled": 0.75, "hard": 0.5, "random": 1.0}
    # B <= t: t = 0 accepts A, D (2/4); t = 0.1 accepts A, C, D (3/4); t = 0.5 all (2/4).
    alone = search_threshold(HAND, "b")
    assert alone["threshold"] == 0.1 and alone["accuracy"]["pooled"] == 0.75
    # Both: P_single >= 0.35 drops D, B <= 0.1 drops B: every decision right.
    cascade = search_cascade(HAND, "p_single")
    assert cascade["thresholds"] == [0.35, 0.1]
    assert cascade["accuracy"]["pooled"] == 1.0


def test_missing_confidence_never_accepts() -> None:
    found = search_threshold(HAND, "confidence")
    # Every sample is rejected at every threshold: right for B and D only.
    assert found["accuracy"]["pooled"] == 0.5 and found["threshold"] == 0.0
