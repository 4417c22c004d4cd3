"""Tests for fairpanel.analysis against independent computations on seeded synthetic frames."""

from __future__ import annotations

import io
import json
import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from scipy.stats import chi2_contingency, norm

from fairpanel.analysis import (
    METRICS,
    SCORE_COLUMNS,
    TURN_COLUMNS,
    VERDICT_COLUMNS,
    analyze,
    chi_square_tests,
    failure_rates,
    mean_scores,
    score_difference_matrix,
    win_rates,
)
from fairpanel.cli._tables import render_tables

GENDER = ("female", "male")
RACE = ("Asian", "Black", "Hispanic", "White")
JUDGES = ("critic", "expert", "pragmatist", "skeptic")


def make_scores(
    rng: np.random.Generator,
    categories: dict[str, tuple[str, ...]],
    n_trials: int = 100,
    shift: dict[tuple[str, str], float] | None = None,
    protocol: str = "single",
    rounds: tuple[str, ...] = ("final",),
    half_points: bool = False,
    metrics: tuple[str, ...] = METRICS,
) -> pd.DataFrame:
    """Long scores frame: every identity x trial x judge x round x metric, N(6 + shift, 1.5)."""
    parts = []
    for category, identities in categories.items():
        grid = pd.MultiIndex.from_product(
            [identities, range(n_trials), JUDGES, rounds, metrics],
            names=["identity", "t", "judge", "round_kind", "metric"],
        ).to_frame(index=False)
        grid["category"] = category
        parts.append(grid)
    frame = pd.concat(parts, ignore_index=True)
    planted = shift or {}
    keys = pd.MultiIndex.from_frame(frame[["identity", "metric"]])
    mu = 6.0 + pd.Series(planted, dtype=float).reindex(keys, fill_value=0.0).to_numpy()
    step = 2.0 if half_points else 1.0
    frame["score"] = np.clip(np.round(rng.normal(mu, 1.5) * step) / step, 0.0, 10.0)
    # A pair trial shows two identities together (positions 0 and 1); a single trial shows one.
    frame["trial_key"] = protocol + "-" + frame["category"] + "-" + frame["t"].astype(str)
    if protocol == "single":
        frame["trial_key"] += "-" + frame["identity"]
    frame["protocol"] = protocol
    frame["base_id"] = "base" + (frame["t"] % 5).astype(str)
    frame["scenario_id"] = frame["base_id"] + "-" + (frame["t"] % 10).astype(str)
    order = {label: i for labels in categories.values() for i, label in enumerate(labels)}
    frame["position"] = frame["identity"].map(order) if protocol == "pair" else 0
    frame["response_index"] = frame["position"] + 1
    frame["judge_model"] = "fake-model"
    frame["round"] = frame["round_kind"].map({"first": 0, "discussion": 1, "final": 2})
    return frame.loc[:, list(SCORE_COLUMNS)]


def make_verdicts(
    rng: np.random.Generator,
    n: int,
    favored: str = "female",
    p_win: float = 0.7,
    p_tie: float = 0.1,
) -> pd.DataFrame:
    """Gender pair verdicts with random order; ``favored`` wins a decided pair with ``p_win``."""
    rows = []
    for i in range(n):
        first, second = rng.permutation(GENDER)
        if rng.random() < p_tie:
            winner = None
        else:
            other = second if first == favored else first
            winner = favored if rng.random() < p_win else other
        position = math.nan if winner is None else float(winner != first)
        rows.append(
            {
                "trial_key": f"pair-{i}",
                "base_id": "base0",
                "scenario_id": "base0-0",
                "category": "gender",
                "first_identity": str(first),
                "second_identity": str(second),
                "first_response_index": int(rng.integers(1, 3)),
                "winner_position": position,
                "winner_identity": winner,
            }
        )
    return pd.DataFrame(rows)


def verdicts_with(wins: int, losses: int, ties: int) -> pd.DataFrame:
    """Female vs male verdicts with exact counts of female wins, losses and ties."""
    outcomes = [0.0] * wins + [1.0] * losses + [math.nan] * ties
    frame = make_verdicts(np.random.default_rng(0), len(outcomes))
    frame["first_identity"], frame["second_identity"] = "female", "male"
    frame["winner_position"] = outcomes
    frame["winner_identity"] = [
        None if math.isnan(p) else ("female" if p == 0.0 else "male") for p in outcomes
    ]
    return frame


def make_turns(n: int, fail_every: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "trial_key": [f"t{i // 4}" for i in range(n)],
            "protocol": ["single" if i % 2 else "pair" for i in range(n)],
            "category": "gender",
            "judge": [JUDGES[(i // 2) % 4] for i in range(n)],
            "round_kind": "final",
            "parse_ok": [i % fail_every != 0 for i in range(n)],
        }
    )


def wilson(wins: int, n: int, confidence: float) -> tuple[float, float]:
    """Wilson score interval written out: (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)."""
    z = norm.ppf(1 - (1 - confidence) / 2)
    p = wins / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half) / (1 + z * z / n), (centre + half) / (1 + z * z / n)


def half_up(x: float) -> int:
    return int(Decimal(str(x)).quantize(Decimal(1), rounding=ROUND_HALF_UP))


@pytest.fixture
def shifted() -> pd.DataFrame:
    rng = np.random.default_rng(20250701)
    return make_scores(
        rng,
        {"gender": GENDER, "race": RACE},
        shift={("female", "creativity"): 1.0, ("Black", "accuracy"): 0.5},
        rounds=("first", "final"),
        half_points=True,
    )


def test_chi_square_matches_independent_crosstab(shifted: pd.DataFrame) -> None:
    results = chi_square_tests(shifted)
    assert [(r.category, r.metric) for r in results] == [
        (c, m) for c in ("gender", "race") for m in METRICS
    ]
    final = shifted[shifted["round_kind"] == "final"]
    for res in results:
        sub = final[(final["category"] == res.category) & (final["metric"] == res.metric)]
        levels = sub["score"].map(half_up)
        table = pd.crosstab(sub["identity"], levels)
        expected = chi2_contingency(table.to_numpy(), correction=False)
        n = int(table.to_numpy().sum())
        v = math.sqrt(expected.statistic / (n * (min(table.shape) - 1)))
        assert res.identities == list(table.index)
        assert res.levels == [int(c) for c in table.columns]
        assert res.table == table.to_numpy().tolist()
        assert res.chi2 == pytest.approx(expected.statistic, rel=1e-12)
        assert res.p_value == pytest.approx(expected.pvalue, rel=1e-9, abs=1e-300)
        assert res.dof == expected.dof
        assert res.cramers_v == pytest.approx(v, rel=1e-12)
        assert res.n == n == len(sub)
        assert "chi2_contingency" in res.method
        assert isinstance(res.chi2, float)
    by_key = {(r.category, r.metric): r for r in results}
    assert by_key["gender", "creativity"].p_value is not None
    assert by_key["gender", "creativity"].p_value < 0.001
    assert len(by_key["race", "accuracy"].identities) == 4


def test_rounding_is_half_up() -> None:
    frame = make_scores(np.random.default_rng(1), {"gender": GENDER}, n_trials=1)
    frame = frame[frame["metric"] == "creativity"].copy()
    frame["score"] = [6.5, 6.5, 7.5, 7.5, 6.5, 7.5, 7.5, 7.5]
    res = chi_square_tests(frame)[0]
    assert res.levels == [7, 8]
    assert res.table == [[2, 2], [1, 3]]
    # A 2 x 2 table is where Yates' correction would kick in; the plain Pearson statistic is used.
    plain = chi2_contingency(np.array([[2, 2], [1, 3]]), correction=False)
    assert res.chi2 == pytest.approx(plain.statistic)
    assert res.dof == 1


def test_difference_matrix_recovers_planted_shift(shifted: pd.DataFrame) -> None:
    matrix = score_difference_matrix(shifted, "gender", "creativity")
    assert matrix.identities == ["female", "male"]
    assert matrix.matrix[0][1] == pytest.approx(1.0, abs=0.2)
    assert matrix.matrix[1][0] == pytest.approx(-matrix.matrix[0][1])  # type: ignore[operator]
    assert matrix.matrix[0][0] == 0.0
    final = shifted[(shifted["round_kind"] == "final") & (shifted["category"] == "race")]
    means = final.groupby("identity")["score"].mean()
    overall = score_difference_matrix(shifted, "race")
    assert overall.metric == "overall"
    assert overall.counts == [len(final) // 4] * 4
    for i, x in enumerate(RACE):
        for j, y in enumerate(RACE):
            assert overall.matrix[i][j] == pytest.approx(means[x] - means[y], abs=1e-12)
    empty = score_difference_matrix(shifted, "religion")
    assert empty.identities == []
    assert empty.matrix == []
    assert empty.note


def test_mean_scores_match_groupby(shifted: pd.DataFrame) -> None:
    table = mean_scores(shifted)
    final = shifted[shifted["round_kind"] == "final"]
    assert list(table.index) == ["female", "male", "Asian", "Black", "Hispanic", "White"]
    assert list(table["category"]) == ["gender"] * 2 + ["race"] * 4
    for identity, row in table.iterrows():
        rows = final[final["identity"] == identity]
        for metric in METRICS:
            expected = rows.loc[rows["metric"] == metric, "score"].mean()
            assert row[metric] == pytest.approx(expected, abs=1e-12)
        assert row["overall"] == pytest.approx(rows["score"].mean(), abs=1e-12)
        assert row["n"] == len(rows)
        assert row["n_trials"] == rows["trial_key"].nunique()
    creativity = table["creativity"]
    assert float(creativity["female"]) - float(creativity["male"]) > 0.8
    assert table.attrs["method"]


def test_null_rejection_rate_is_nominal() -> None:
    rng = np.random.default_rng(7)
    rejections = 0
    for _ in range(200):
        frame = make_scores(rng, {"gender": GENDER}, metrics=("creativity",))
        res = chi_square_tests(frame)[0]
        assert res.metric == "creativity"
        assert res.p_value is not None
        rejections += res.p_value < 0.05
    print(f"null rejection rate at alpha 0.05: {rejections / 200:.3f}")
    assert 0.01 <= rejections / 200 <= 0.10


@pytest.mark.parametrize(
    ("wins", "losses", "ties", "confidence"),
    [(3, 7, 0, 0.95), (0, 10, 0, 0.95), (50, 40, 10, 0.95), (12, 3, 5, 0.90), (20, 0, 0, 0.99)],
)
def test_wilson_interval_matches_formula(
    wins: int, losses: int, ties: int, confidence: float
) -> None:
    results = {r.identity: r for r in win_rates(verdicts_with(wins, losses, ties), confidence)}
    n = wins + losses + ties
    decided = wins + losses
    for identity, k in (("female", wins), ("male", losses)):
        res = results[identity]
        # The rate and its interval rest on the decided pairs; ties sit beside them.
        assert (res.appearances, res.wins, res.ties, res.n) == (n, k, ties, decided)
        assert res.losses == decided - k
        assert res.rate == pytest.approx(k / decided)
        assert res.tie_share == pytest.approx(ties / n)
        low, high = wilson(k, decided, confidence)
        assert res.ci_low == pytest.approx(low, abs=1e-12)
        assert res.ci_high == pytest.approx(high, abs=1e-12)
        assert res.confidence == confidence
        assert "wilson" in res.method


def test_win_rates_recover_planted_probability() -> None:
    verdicts = make_verdicts(np.random.default_rng(3), 600, p_win=0.7, p_tie=0.1)
    results = {r.identity: r for r in win_rates(verdicts)}
    female = results["female"]
    won = verdicts["winner_identity"] == "female"
    assert female.wins == int(won.sum())
    assert female.ties == int(verdicts["winner_position"].isna().sum())
    assert female.appearances == 600 == results["male"].appearances
    assert female.wins + results["male"].wins + female.ties == 600
    assert female.ci_low < 0.7 < female.ci_high  # p_win, the planted rate among decided pairs
    assert female.tie_share == pytest.approx(female.ties / 600)
    assert results["male"].ci_high < 0.5 < female.ci_low


def test_win_rates_count_ties_apart_by_hand() -> None:
    # Three pairs written out: female wins one, male wins one, one ties (NaN position). Among
    # decided pairs each wins half, whatever the tie; every pair tied leaves no rate at all.
    verdicts = verdicts_with(1, 1, 1)
    results = {r.identity: r for r in win_rates(verdicts)}
    for identity in ("female", "male"):
        res = results[identity]
        assert (res.wins, res.losses, res.ties, res.appearances) == (1, 1, 1, 3)
        assert res.rate == 0.5 and res.tie_share == pytest.approx(1 / 3) and res.n == 2
    all_ties = win_rates(verdicts_with(0, 0, 4))
    assert all(r.rate is None and r.ci_low is None and r.tie_share == 1.0 for r in all_ties)


def test_win_rates_skip_same_label_and_check_consistency() -> None:
    verdicts = verdicts_with(2, 1, 0)
    same = verdicts.iloc[[0]].assign(second_identity="female", trial_key="same")
    results = win_rates(pd.concat([verdicts, same], ignore_index=True))
    assert [(r.identity, r.appearances, r.wins) for r in results] == [
        ("female", 3, 2),
        ("male", 3, 1),
    ]
    broken = verdicts.assign(winner_identity="male")
    with pytest.raises(ValueError, match="disagrees"):
        win_rates(broken)
    with pytest.raises(ValueError, match="winner_position"):
        win_rates(verdicts.assign(winner_position=2.0))


def test_failure_rates_match_groupby() -> None:
    turns = make_turns(48, fail_every=5)
    results = failure_rates(turns)
    expected = (
        turns.assign(failed=~turns["parse_ok"])
        .groupby(["protocol", "category", "judge"])["failed"]
        .agg(["sum", "count"])
    )
    assert len(results) == len(expected) == 8
    counts = {
        key: (int(failed), int(total))
        for key, failed, total in zip(
            expected.index, expected["sum"], expected["count"], strict=True
        )
    }
    for res in results:
        failed, total = counts[res.protocol, res.category, res.judge]
        assert (res.failures, res.turns, res.n) == (failed, total, total)
        assert res.rate == pytest.approx(failed / total)
    with pytest.raises(ValueError, match="parse_ok"):
        failure_rates(turns.assign(parse_ok="False"))


def test_degenerate_tables_give_notes() -> None:
    rng = np.random.default_rng(5)
    one = make_scores(rng, {"gender": ("female",)}, n_trials=5)
    results = chi_square_tests(one)
    assert len(results) == 4
    assert all(r.p_value is None and r.chi2 is None and r.note for r in results)
    flat = make_scores(rng, {"gender": GENDER}, n_trials=5).assign(score=7.0)
    res = chi_square_tests(flat)[0]
    assert res.p_value is None
    assert res.levels == [7]
    assert "level" in (res.note or "")
    no_metric = make_scores(rng, {"gender": GENDER}, n_trials=5)
    no_metric = no_metric[no_metric["metric"] != "efficiency"]
    by_metric = {r.metric: r for r in chi_square_tests(no_metric)}
    assert by_metric["efficiency"].n == 0
    assert by_metric["efficiency"].p_value is None
    assert json.dumps([r.to_dict() for r in results], allow_nan=False)


@pytest.mark.parametrize("empty", ["no-columns", "with-columns"])
def test_analyze_on_empty_frames(empty: str) -> None:
    def frame(columns: tuple[str, ...]) -> pd.DataFrame:
        return pd.DataFrame(columns=list(columns)) if empty == "with-columns" else pd.DataFrame()

    report = analyze(frame(SCORE_COLUMNS), frame(VERDICT_COLUMNS), frame(TURN_COLUMNS))
    assert report["n_trials"] == {"single": 0, "pair": 0}
    assert report["single"]["chi_square"] == []
    assert report["single"]["score_difference"] == {}
    assert report["single"]["mean_scores"]["rows"] == []
    assert report["pair"]["win_rates"] == []
    assert report["failures"] == []
    assert report["effects"] == []
    assert report["headline"]["detected"] == []
    assert "no paired data" in report["headline"]["verdict"]
    json.dumps(report, allow_nan=False)
    # Headline, mean scores, chi-square, win rates; no effects table without effects.
    titles = [t.title for t in render_tables(report)]
    assert titles[0] == "Headline"
    assert len(titles) == 4


def test_analyze_full_report_is_json(shifted: pd.DataFrame) -> None:
    rng = np.random.default_rng(11)
    pair_scores = make_scores(rng, {"gender": GENDER}, n_trials=30, protocol="pair")
    pair_scores = pair_scores[
        ~((pair_scores["identity"] == "male") & (pair_scores["trial_key"] == "pair-gender-0"))
    ]
    single = shifted[~((shifted["identity"] == "White") & (shifted["metric"] == "efficiency"))]
    scores = pd.concat([single, pair_scores], ignore_index=True)
    turns = make_turns(40, fail_every=3)
    report = analyze(scores, make_verdicts(rng, 50), turns)
    text = json.dumps(report, allow_nan=False)
    assert json.loads(text) == report
    assert report["n_trials"]["single"] == shifted["trial_key"].nunique() + 10
    assert report["n_trials"]["pair"] == 30 + 50 + 10
    white = [r for r in report["single"]["mean_scores"]["rows"] if r["identity"] == "White"]
    assert white[0]["efficiency"] is None
    assert set(report["single"]["score_difference"]) == {"gender", "race"}
    pair_chi = report["pair"]["chi_square"]
    assert [r["n"] for r in pair_chi] == [len(pair_scores) // 4] * 4
    assert all(r["protocol"] == "pair" for r in pair_chi)
    assert len(report["pair"]["win_rates"]) == 2
    console = Console(file=io.StringIO(), width=200)
    for table in render_tables(report):
        console.print(table)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert "<0.0001" in output
    assert "Hispanic" in output
    assert "Pair win rates" in output


@pytest.mark.parametrize(
    ("which", "column"), [("scores", "judge_model"), ("verdicts", "winner_position")]
)
def test_missing_column_is_named(which: str, column: str, shifted: pd.DataFrame) -> None:
    scores, verdicts = shifted, verdicts_with(1, 1, 1)
    if which == "scores":
        scores = scores.drop(columns=column)
    else:
        verdicts = verdicts.drop(columns=column)
    with pytest.raises(ValueError, match=column):
        analyze(scores, verdicts, make_turns(4, 2))
    with pytest.raises(ValueError, match="parse_ok"):
        failure_rates(make_turns(4, 2).drop(columns="parse_ok"))


def test_bad_values_and_arguments_are_rejected(shifted: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="outside"):
        mean_scores(shifted.assign(score=11.0))
    with pytest.raises(ValueError, match="unknown metric"):
        mean_scores(shifted.assign(metric="Creativity"))
    with pytest.raises(ValueError, match="protocol"):
        chi_square_tests(shifted, protocol="pairs")
    with pytest.raises(ValueError, match="metric"):
        score_difference_matrix(shifted, "gender", "speed")
    with pytest.raises(ValueError, match="confidence"):
        win_rates(verdicts_with(1, 1, 0), confidence=95)
