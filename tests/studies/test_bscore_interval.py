"""The B-score's bootstrap interval over questions: against scipy's bootstrap on the same draws,
against the analytic standard error of a mean of category means, and its invariants (a run's
results, tables and report: tests/report/test_study_report.py)."""

from __future__ import annotations

import hashlib
import statistics

import numpy as np
import pytest
from scipy import stats

from fairpanel.studies.bscore import mean_of_means_interval


def _generator_seed(seed: int, name: str) -> int:
    """The documented derivation: the run's seed and the estimate's name, hashed."""
    return int.from_bytes(hashlib.sha256(f"{seed}\x1f{name}".encode()).digest()[:8], "big")


def _questions(n: int, seed: int = 0) -> list[float]:
    """Top-choice B of ``n`` questions: shares differences, between -1 and 1."""
    return list(np.clip(np.random.default_rng(seed).normal(0.15, 0.3, n), -1, 1))


def test_one_category_is_scipys_percentile_bootstrap_on_the_same_draws() -> None:
    values = _questions(25)
    ours = mean_of_means_interval([values], seed=7, name="top_b", n_boot=4000)
    theirs = stats.bootstrap(
        (np.asarray(values),),
        np.mean,
        n_resamples=4000,
        method="percentile",
        rng=np.random.default_rng(_generator_seed(7, "top_b")),
    ).confidence_interval
    assert ours["mean"] == pytest.approx(statistics.fmean(values))
    assert ours["ci_low"] == pytest.approx(theirs.low, abs=1e-12)
    assert ours["ci_high"] == pytest.approx(theirs.high, abs=1e-12)
    assert ours["n_boot"] == 4000


def test_categories_weigh_the_same_and_the_spread_matches_the_analytic_error() -> None:
    small, large = _questions(12, seed=1), [v - 0.3 for v in _questions(60, seed=2)]
    found = mean_of_means_interval([small, large], seed=3, name="top_b", n_boot=20_000)
    # The mean of the two category means, not of the 72 questions.
    assert found["mean"] == pytest.approx((np.mean(small) + np.mean(large)) / 2)
    assert found["mean"] != pytest.approx(np.mean(small + large))
    # Resampling within categories: SE = sqrt(sum var_c / n_c) / C with the plug-in
    # (ddof = 0) variances the bootstrap resamples; a 95% interval is about +-1.96 SE.
    se = np.sqrt(sum(np.var(g) / len(g) for g in (small, large))) / 2
    width = found["ci_high"] - found["ci_low"]
    assert width == pytest.approx(2 * 1.96 * se, rel=0.05)
    assert found["ci_low"] < found["mean"] < found["ci_high"]


def test_the_interval_narrows_with_more_questions_and_is_seeded() -> None:
    widths = []
    for n in (10, 40, 160):
        found = mean_of_means_interval([_questions(n)], seed=5, name="top_b", n_boot=2000)
        assert found["ci_low"] <= found["mean"] <= found["ci_high"]
        widths.append(found["ci_high"] - found["ci_low"])
    assert widths[0] > widths[1] > widths[2]
    assert widths[2] < widths[0] / 2.5  # about 1 / sqrt(n): a factor 4 over 16x the questions
    again = mean_of_means_interval([_questions(40)], seed=5, name="top_b", n_boot=2000)
    assert again["ci_high"] - again["ci_low"] == widths[1]
    other = mean_of_means_interval([_questions(40)], seed=6, name="top_b", n_boot=2000)
    assert other["ci_low"] != again["ci_low"]


def test_too_few_questions_give_no_interval() -> None:
    assert mean_of_means_interval([[], []], seed=0, name="b")["mean"] is None
    single = mean_of_means_interval([[0.4], []], seed=0, name="b")
    assert single["mean"] == 0.4 and single["ci_low"] is None and single["ci_high"] is None
