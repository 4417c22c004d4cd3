"""Corrections, the headline, Bradley-Terry and the panel diagnostics against hand computations
and statsmodels fitted another way."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from helpers.stats_data import pair_verdicts, single_scores, turns_of

from fairpanel.analysis import (
    Effect,
    bradley_terry,
    conformity,
    correct_effects,
    debate_shift,
    failure_rates_by_identity,
    headline,
    krippendorff_alpha,
)

RACE = ("Asian", "Black", "Hispanic", "White")


def _effect(name: str, p_value: float | None, low: float, high: float, family: str = "f") -> Effect:
    return Effect(
        id=name,
        family=family,
        protocol="single",
        category="gender",
        metric="creativity",
        judge=None,
        contrast="female - male",
        identity="female",
        versus="male",
        estimate=(low + high) / 2,
        ci_low=low,
        ci_high=high,
        confidence=0.95,
        scale="score points",
        cohen_h=None,
        p_value=p_value,
        n=10,
        n_clusters=5,
        test="wilcoxon signed-rank",
        method="m",
    )


def _holm(p: list[float]) -> list[float]:
    order = sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def _bh(p: list[float]) -> list[float]:
    order = sorted(range(len(p)), key=lambda i: p[i], reverse=True)
    adjusted, running = [0.0] * len(p), 1.0
    for position, i in enumerate(order):
        rank = len(p) - position
        running = min(running, p[i] * len(p) / rank)
        adjusted[i] = running
    return adjusted


def test_holm_and_bh_match_hand_computation_per_family() -> None:
    first = [0.001, 0.04, 0.03, 0.2, 0.012]
    second = [0.02, 0.5]
    effects = [_effect(f"a{i}", p, 0.1, 0.5) for i, p in enumerate(first)]
    effects += [_effect(f"b{i}", p, 0.1, 0.5, family="g") for i, p in enumerate(second)]
    effects.append(_effect("none", None, 0.1, 0.5))
    corrected, families = correct_effects(effects, 0.05)
    assert {(f.family, f.size) for f in families} == {("f", 5), ("g", 2)}
    got = {e.id: e for e in corrected}
    for prefix, values in (("a", first), ("b", second)):
        for i, (holm, bh) in enumerate(zip(_holm(values), _bh(values), strict=True)):
            assert got[f"{prefix}{i}"].p_holm == pytest.approx(holm, abs=1e-12)
            assert got[f"{prefix}{i}"].p_bh == pytest.approx(bh, abs=1e-12)
    assert got["none"].p_holm is None and got["none"].verdict == "no detectable difference"
    # Holm: 0.001 * 5 = 0.005 and 0.012 * 4 = 0.048 pass; 0.03 * 3 = 0.09 does not.
    assert got["a4"].p_holm == pytest.approx(0.048)
    assert [got[f"a{i}"].verdict for i in (0, 4, 2)] == [
        "female favoured",
        "female favoured",
        "no detectable difference",
    ]


def test_interval_spanning_zero_is_no_detectable_difference() -> None:
    corrected, families = correct_effects([_effect("x", 1e-6, -0.1, 0.4)], 0.05)
    assert corrected[0].verdict == "no detectable difference"
    top = headline(corrected, families, 0.05)
    assert top["detected"] == []
    assert top["verdict"] == (
        "No detectable identity effect at alpha=0.05 after Holm correction within each family "
        "(1 tests in 1 family)."
    )


def test_headline_names_the_strongest_panel_effect() -> None:
    effects = [_effect("weak", 0.01, 0.05, 0.3), _effect("strong", 1e-5, -0.9, -0.4)]
    corrected, families = correct_effects(effects, 0.05)
    top = headline(corrected, families, 0.05)
    assert top["detected"] == ["weak", "strong"]
    assert top["verdict"].startswith(
        "Detectable identity effect: male scored 0.65 points higher than female on creativity"
    )
    assert "2 of 2 tests (1 families, Holm within each) detect an effect." in top["verdict"]


def _logit_by_statsmodels(verdicts: pd.DataFrame) -> tuple[float, dict[str, float]]:
    """Reference-coded Logit on one row per verdict, then centred (sum-zero abilities)."""
    decided = verdicts[verdicts["winner_position"].notna()]
    design = pd.DataFrame({"position": 1.0}, index=decided.index)
    for label in RACE[1:]:
        design[label] = (decided["first_identity"] == label).astype(float) - (
            decided["second_identity"] == label
        ).astype(float)
    fit = sm.Logit((decided["winner_position"] == 0).astype(float), design).fit(disp=0)
    raw = {"Asian": 0.0, **{label: float(fit.params[label]) for label in RACE[1:]}}
    centre = np.mean(list(raw.values()))
    return float(fit.params["position"]), {k: v - centre for k, v in raw.items()}


PLANTED = {"Asian": 0.3, "Black": -0.5, "Hispanic": 0.0, "White": 0.2}  # sums to zero


def _planted_verdicts(seed: int) -> pd.DataFrame:
    return pair_verdicts(
        np.random.default_rng(seed),
        RACE,
        ability=PLANTED,
        position=0.6,
        bases=20,
        per_base=5,
        tie_rate=0.1,
        category="race",
        quality_sd=0.0,  # content differences outside the model would shrink the abilities
    )


def test_bradley_terry_matches_statsmodels_logit() -> None:
    verdicts = _planted_verdicts(13)
    (fit,) = bradley_terry(verdicts, n_boot=50)
    position, abilities = _logit_by_statsmodels(verdicts)
    assert fit["position"]["estimate"] == pytest.approx(position, abs=1e-6)
    for row in fit["abilities"]:
        assert row["estimate"] == pytest.approx(abilities[row["identity"]], abs=1e-6)
    assert fit["n"] == int(verdicts["winner_position"].notna().sum())
    assert fit["n_boot"] == 50


def test_bradley_terry_intervals_cover_planted_values() -> None:
    covered = total = 0
    errors = []
    for seed in range(10):
        (fit,) = bradley_terry(_planted_verdicts(seed), n_boot=150, seed=seed)
        rows = [(PLANTED[r["identity"]], r) for r in fit["abilities"]]
        for truth, row in [*rows, (0.6, fit["position"])]:
            total += 1
            covered += row["ci_low"] < truth < row["ci_high"]
            errors.append(row["estimate"] - truth)
    # 50 intervals at 95%: expect 47.5 covered; Binomial(50, 0.95) is >= 44 with p ~ 0.96.
    assert covered >= 44, (covered, total)
    assert abs(float(np.mean(errors))) < 0.03  # no systematic bias in the estimates


def test_bradley_terry_reports_no_estimate_under_separation() -> None:
    verdicts = pair_verdicts(np.random.default_rng(0), bases=3, per_base=1)
    verdicts["winner_position"] = np.where(verdicts["first_identity"] == "female", 0.0, 1.0)
    (fit,) = bradley_terry(verdicts, n_boot=20)
    assert fit["abilities"][0]["estimate"] is None
    assert "no finite maximum" in fit["method"]


def _alpha_by_hand(data: list[list[float | None]], ordinal: bool) -> float:
    """Krippendorff's alpha from the coincidence matrix (Krippendorff 2011, section 3-4)."""
    values = sorted({v for coder in data for v in coder if v is not None})
    index = {v: i for i, v in enumerate(values)}
    o = np.zeros((len(values), len(values)))
    for unit in zip(*data, strict=True):
        present = [v for v in unit if v is not None]
        m = len(present)
        if m < 2:
            continue
        for a, b in itertools.permutations(range(m), 2):
            o[index[present[a]], index[present[b]]] += 1 / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()

    def delta(c: int, k: int) -> float:
        if not ordinal:
            return float(c != k)
        low, high = min(c, k), max(c, k)
        return float((n_c[low : high + 1].sum() - (n_c[c] + n_c[k]) / 2) ** 2)

    size = len(values)
    observed = sum(o[c, k] * delta(c, k) for c in range(size) for k in range(size))
    expected = sum(n_c[c] * n_c[k] * delta(c, k) for c in range(size) for k in range(size))
    return float(1 - (n - 1) * observed / expected)


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_krippendorff_alpha_matches_hand_computation(level: str) -> None:
    # Three judges, eight units, one missing value.
    data: list[list[float | None]] = [
        [3, 4, 4, 2, 5, 1, 3, 4],
        [3, 4, 5, 2, 5, 2, 3, None],
        [2, 4, 4, 3, 5, 1, 4, 4],
    ]
    long = pd.DataFrame(
        [
            {"judge": f"j{j}", "unit": u, "score": value}
            for j, coder in enumerate(data)
            for u, value in enumerate(coder)
            if value is not None
        ]
    )
    alpha, units, judges = krippendorff_alpha(long, ["unit"], "score", level)  # type: ignore[arg-type]
    assert (units, judges) == (8, 3)
    assert alpha == pytest.approx(_alpha_by_hand(data, ordinal=level == "ordinal"), abs=1e-12)


def test_debate_shift_and_conformity_by_hand() -> None:
    scores = single_scores(np.random.default_rng(3), bases=4, per_base=2, metrics=("accuracy",))
    shifts = {(r["identity"], r["metric"]): r for r in debate_shift(scores, n_boot=100)}
    for identity in ("female", "male"):
        mine = scores[scores["identity"] == identity]
        first = mine[mine["round_kind"] == "first"].set_index(["trial_key", "judge"])["score"]
        final = mine[mine["round_kind"] == "final"].set_index(["trial_key", "judge"])["score"]
        row = shifts[(identity, "accuracy")]
        assert row["shift"] == pytest.approx((final - first).mean(), abs=1e-12)
        assert row["n"] == len(first)
    # The generator pulls each final score halfway toward the others' first-round mean.
    by_judge = {r["judge"]: r for r in conformity(scores)}
    for judge, row in by_judge.items():
        toward = away = 0
        for _, trial in scores.groupby("trial_key"):
            first = trial[trial["round_kind"] == "first"].set_index("judge")["score"]
            final = trial[trial["round_kind"] == "final"].set_index("judge")["score"]
            others = first.drop(judge).mean()
            toward += abs(final[judge] - others) < abs(first[judge] - others)
            away += abs(final[judge] - others) > abs(first[judge] - others)
        assert row["moved_toward_others"] == pytest.approx(toward / row["n"])
        assert row["moved_away"] == pytest.approx(away / row["n"])
        assert row["moved_toward_others"] > row["moved_away"]


def test_failures_by_identity_count_both_labels_of_a_pair() -> None:
    turns = turns_of(single_scores(np.random.default_rng(1), bases=2, per_base=1))
    turns["first_identity"], turns["second_identity"] = turns["identity"], None
    turns.loc[turns.index % 4 == 0, "parse_ok"] = False
    pair = turns.iloc[:6].assign(
        protocol="pair", first_identity="male", second_identity="female", parse_ok=False
    )
    rows = failure_rates_by_identity(pd.concat([turns, pair], ignore_index=True))
    got = {(r["identity"], r["judge"]): r for r in rows}
    for (identity, judge), row in got.items():
        mine = turns[(turns["identity"] == identity) & (turns["judge"] == judge)]
        extra = pair[pair["judge"] == judge]
        assert row["turns"] == len(mine) + len(extra)
        assert row["failed"] == int((~mine["parse_ok"].astype(bool)).sum()) + len(extra)
        assert row["ci_low"] <= row["rate"] <= row["ci_high"]
    assert math.isclose(sum(r["turns"] for r in rows), len(turns) + 2 * len(pair))
