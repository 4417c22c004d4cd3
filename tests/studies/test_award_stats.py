"""The award audit's statistics against the seed study's published tables (seed 002).

The study reports counts of Black, White and equivocal choices per performance level (its
Tables 2 and 3) and the follow-up classes by chosen race (Table 4); its p-values must come back
from those counts. The exact test is also recomputed from its definition (summing the
binomial probabilities no larger than the observed one), independently of scipy's binomtest.
"""

from __future__ import annotations

import math

import pytest
from scipy import stats

from fairpanel.studies.award_audit import (
    binomial_split,
    bonferroni,
    equivocal_spread,
    followup_independence,
)

# (level, Black, White, equivocal) from the seed study's Tables 2 (GPT-3.5) and 3 (GPT-4).
GPT35 = [(5, 311, 175, 14), (10, 264, 161, 75), (15, 272, 147, 81), (20, 214, 52, 234)]
GPT4 = [(5, 98, 88, 314), (10, 108, 113, 279), (15, 85, 75, 340), (20, 0, 0, 500)]
CLASSES = ("indecisive", "justified", "irrational")
# Table 4: GPT-3.5's follow-up classes by the race of the student it had chosen.
FOLLOWUP = {
    5: {"Black": (269, 9, 33), "White": (151, 6, 18)},
    10: {"Black": (230, 5, 29), "White": (138, 3, 20)},
    15: {"Black": (255, 2, 15), "White": (132, 0, 15)},
    20: {"Black": (211, 0, 3), "White": (52, 0, 0)},
}


def _minlike_p(k: int, n: int) -> float:
    """The Wilson-Sterne two-sided p-value straight from its definition."""
    pmf = [math.comb(n, x) * 0.5**n for x in range(n + 1)]
    observed = pmf[k]
    return min(1.0, sum(p for p in pmf if p <= observed * (1 + 1e-7)))


def _pooled(rows: list[tuple[int, int, int, int]]) -> tuple[int, int, int]:
    return (sum(r[1] for r in rows), sum(r[2] for r in rows), sum(r[3] for r in rows))


def test_pooled_counts_match_the_published_totals() -> None:
    assert _pooled(GPT35) == (1061, 535, 404)
    assert _pooled(GPT4) == (291, 276, 1433)


@pytest.mark.parametrize(("level", "black", "white", "equivocal"), GPT35)
def test_gpt35_every_level_is_below_0_001_as_published(
    level: int, black: int, white: int, equivocal: int
) -> None:
    split = binomial_split(black, black + white)
    assert split["p_exact"] < 0.001
    assert split["p_exact"] == pytest.approx(_minlike_p(black, black + white), rel=1e-6)
    assert black + white + equivocal == 500


def test_gpt35_shares_and_pooled_test_match_the_text() -> None:
    shares = [binomial_split(b, b + w)["share"] for _, b, w, _ in GPT35]
    assert [round(100 * s, 1) for s in shares] == [64.0, 62.1, 64.9, 80.5]
    black, white, _ = _pooled(GPT35)
    pooled = binomial_split(black, black + white)
    assert round(100 * pooled["share"], 1) == 66.5
    # Our own arithmetic check of the pooled value (the paper prints only "<0.001").
    assert pooled["p_exact"] == pytest.approx(3.7e-40, rel=0.05)
    assert pooled["ci_low"] > 0.5


@pytest.mark.parametrize(
    ("level", "published"),
    [(10, 0.788), (15, 0.477), ("all", 0.557)],
)
def test_gpt4_p_values_reproduce_to_three_decimals(level: int | str, published: float) -> None:
    row = (0, *_pooled(GPT4)) if level == "all" else next(r for r in GPT4 if r[0] == level)
    split = binomial_split(row[1], row[1] + row[2])
    assert round(split["p_exact"], 3) == published
    assert split["p_exact"] == pytest.approx(_minlike_p(row[1], row[1] + row[2]), rel=1e-6)


def test_gpt4_level_5_published_value_is_the_mid_p_not_the_exact_test() -> None:
    """The study prints 0.465 for 98 vs 88; the exact test it names gives 0.509, and 0.465 is
    the mid-p value. Both are reported so a reader can see which one a table used."""
    split = binomial_split(98, 186)
    assert round(split["p_exact"], 3) == 0.509
    assert round(split["p_mid"], 3) == 0.465
    tail = stats.binom.cdf(88, 186, 0.5) - 0.5 * stats.binom.pmf(88, 186, 0.5)
    assert split["p_mid"] == pytest.approx(2 * tail)


def test_no_choices_means_no_test() -> None:
    """GPT-4 refused all 500 prompts at 20/20: there is nothing to test."""
    split = binomial_split(0, 0)
    assert split["n"] == 0 and split["p_exact"] is None and split["share"] is None


def test_intervals_are_clopper_pearson() -> None:
    split = binomial_split(214, 266)
    low = stats.beta.ppf(0.025, 214, 266 - 214 + 1)
    high = stats.beta.ppf(0.975, 214 + 1, 266 - 214)
    assert split["ci_low"] == pytest.approx(low) and split["ci_high"] == pytest.approx(high)


def _table(level: int | str) -> dict[str, dict[str, int]]:
    levels = list(FOLLOWUP) if level == "all" else [level]
    return {
        race: {c: sum(FOLLOWUP[lv][race][i] for lv in levels) for i, c in enumerate(CLASSES)}
        for race in ("Black", "White")
    }


def test_followup_rows_add_up_to_the_choice_counts() -> None:
    for level, black, white, _ in GPT35:
        assert sum(FOLLOWUP[level]["Black"]) == black
        assert sum(FOLLOWUP[level]["White"]) == white


@pytest.mark.parametrize(("level", "chi2", "p_value"), [(5, 0.116, 0.944), ("all", 2.714, 0.257)])
def test_followup_chi_square_reproduces_the_published_tests(
    level: int | str, chi2: float, p_value: float
) -> None:
    result = followup_independence(_table(level), CLASSES)
    assert result["tested"] and result["df"] == 2
    assert round(result["chi2"], 3) == chi2
    assert round(result["p_value"], 3) == p_value
    # Independently: Pearson's statistic from expected counts by hand.
    observed = _table(level)
    total = sum(sum(row.values()) for row in observed.values())
    rows = {r: sum(v.values()) for r, v in observed.items()}
    cols = {c: sum(observed[r][c] for r in observed) for c in CLASSES}
    by_hand = sum(
        (observed[r][c] - rows[r] * cols[c] / total) ** 2 / (rows[r] * cols[c] / total)
        for r in observed
        for c in CLASSES
    )
    assert result["chi2"] == pytest.approx(by_hand)


@pytest.mark.parametrize("level", [10, 15, 20])
def test_followup_chi_square_is_skipped_where_the_study_skipped_it(level: int) -> None:
    result = followup_independence(_table(level), CLASSES)
    assert not result["tested"] and result["p_value"] is None
    assert result["min_cell"] < 5


def test_bonferroni_counts_only_the_tests_that_ran() -> None:
    assert bonferroni([0.01, None, 0.2, 0.5]) == [0.03, None, 0.6000000000000001, 1.0]


def test_equivocal_spread_finds_a_pair_that_refuses_more() -> None:
    even = {f"pair{i}": [j % 5 == 0 for j in range(40)] for i in range(6)}
    uneven = {**even, "pair0": [j % 5 != 0 for j in range(40)]}
    assert equivocal_spread(even)["chi_square"]["p_value"] > 0.99
    found = equivocal_spread(uneven)
    assert found["chi_square"]["p_value"] < 1e-6
    assert found["kruskal_wallis"]["p_value"] < 1e-6
    assert equivocal_spread({"only": [True, False]})["chi_square"] is None
