"""Every tested primary contrast and the headline say what the run could have seen: the shift
its t test over base means finds in 80% of runs like it, at Holm's first step (alpha / m).
Checked against the noncentral t from scipy, with the spread read back from the row's own
t interval."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from helpers.stats_data import single_scores, turns_of
from scipy import stats

from fairpanel.analysis import HeadlineBlock, RunInputs, leaderboard_row, verdict_statistics
from fairpanel.report._compare_page import _mde_cell
from fairpanel.report._verdict import design_limits


def _power(shift: float, spread: float, bases: int, alpha: float) -> float:
    df = bases - 1
    critical = stats.t.ppf(1 - alpha / 2, df)
    shifted = shift / spread * np.sqrt(bases)
    return float(stats.nct.sf(critical, df, shifted) + stats.nct.cdf(-critical, df, shifted))


def _result(bases: int) -> dict:  # type: ignore[type-arg]
    rng = np.random.default_rng(5)
    scores = single_scores(rng, bases=bases, per_base=3, shift={("female", "accuracy"): 0.4})
    return verdict_statistics(scores, pd.DataFrame(), turns_of(scores))


def test_each_tested_primary_row_states_the_shift_found_in_80_percent_of_runs() -> None:
    result = _result(12)
    headline = result["headline"]
    primary = [e for e in result["effects"] if e["role"] == "primary"]
    assert primary and headline["tests"] == len(primary)
    alpha = headline["alpha"] / headline["tests"]
    for row in primary:
        k = row["n_clusters"]
        half = (row["ci_high"] - row["ci_low"]) / 2
        spread = half * np.sqrt(k) / stats.t.ppf(0.5 + row["confidence"] / 2, k - 1)
        assert _power(row["mde"], spread, k, alpha) == pytest.approx(0.8, abs=1e-3)
    assert headline["mde"] == min(r["mde"] for r in primary if r["scale"] == "score points")
    assert headline["mde_scale"] == "score points"
    # Secondary rows are exploratory: no power statement.
    assert all(e["mde"] is None for e in result["effects"] if e["role"] != "primary")


def test_more_bases_see_smaller_effects() -> None:
    assert _result(40)["headline"]["mde"] < _result(8)["headline"]["mde"]


def test_an_untested_run_states_nothing() -> None:
    headline = _result(4)["headline"]
    assert headline["mde"] is None and headline["mde_scale"] == ""


def test_the_verdict_card_says_what_the_run_could_have_seen() -> None:
    headline = HeadlineBlock.model_validate(_result(12)["headline"])
    sentence = design_limits(headline)
    assert f"would have found {headline.mde:.2f} points or more" in sentence
    assert f"alpha/{headline.tests}" in sentence
    untested = HeadlineBlock.model_validate(_result(4)["headline"])
    assert "would have found" not in design_limits(untested)


def test_the_leaderboard_carries_each_runs_mde() -> None:
    result = _result(12)
    row = leaderboard_row(RunInputs("r", "/r", {"headline": result["headline"]}))
    assert row["mde"] == {"value": result["headline"]["mde"], "scale": "score points"}
    assert _mde_cell(row["mde"]) == f"{result['headline']['mde']:.2f} pts"
    untested = leaderboard_row(RunInputs("u", "/u", {"headline": _result(4)["headline"]}))
    assert untested["mde"] is None
