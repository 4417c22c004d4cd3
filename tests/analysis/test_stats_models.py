"""The primary and secondary families, the headline, Bradley-Terry and the panel diagnostics
against hand computations and statsmodels fitted another way."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from helpers.stats_data import pair_verdicts, single_scores, turns_of
from statsmodels.stats.multitest import multipletests

from fairpanel.analysis import (
    MIN_BASES,
    Effect,
    bradley_terry,
    conformity,
    correct_effects,
    debate_shift,
    failure_rates_by_identity,
    headline,
    krippendorff_alpha,
    verdict_statistics,
)

RACE = ("Asian", "Black", "Hispanic", "White")


def _effect(
    name: str,
    p_value: float | None,
    estimate: float,
    *,
    role: str = "primary",
    category: str = "gender",
    scale: str = "score points",
) -> Effect:
    return Effect(
        id=name,
        family="single score differences",
        protocol="single",
        category=category,
        metric="overall",
        judge=None,
        contrast="female - male",
        identity="female",
        versus="male",
        estimate=estimate,
        ci_low=estimate - 0.25,
        ci_high=estimate + 0.25,
        confidence=0.95,
        scale=scale,
        cohen_h=None,
        p_value=p_value,
        n=10,
        n_clusters=6,
        test="cluster t (base-scenario means)",
        method="m",
        verdict="no detectable difference" if p_value is not None else "not tested: why",
        role=role,
    )


# Primary p-values across two categories. Holm over the whole family: 0.001 x 5, 0.012 x 4 =
# 0.048, then 0.02 x 3 = 0.06: two calls. Holm within race alone would call r1 (0.02 x 2).
PRIMARY = {"g1": 0.001, "g2": 0.012, "g3": 0.2, "r1": 0.02, "r2": 0.3}
SECONDARY = {"s1": 0.02, "s2": 0.5, "s3": 0.004, "s4": 0.03}


def test_holm_over_the_whole_primary_family_and_bh_over_the_secondary() -> None:
    effects = [
        _effect(name, p, 0.3, category="race" if name[0] == "r" else "gender")
        for name, p in PRIMARY.items()
    ]
    effects += [_effect(name, p, 0.3, role="secondary") for name, p in SECONDARY.items()]
    effects.append(_effect("untested", None, 0.3))
    corrected, families = correct_effects(effects, 0.05)
    got = {e.id: e for e in corrected}
    for family in (PRIMARY, SECONDARY):
        p = list(family.values())
        holm = multipletests(p, method="holm")[1]
        bh = multipletests(p, method="fdr_bh")[1]
        for name, p_holm, p_bh in zip(family, holm, bh, strict=True):
            assert got[name].p_holm == pytest.approx(p_holm, abs=1e-12)
            assert got[name].p_bh == pytest.approx(p_bh, abs=1e-12)
    assert got["r1"].p_holm == pytest.approx(0.06)
    called = {name for name, e in got.items() if e.verdict == "female favoured"}
    assert called == {"g1", "g2"}
    # BH over the secondary family: 0.004 x 4, 0.02 x 2, 0.03 x 4/3 -> 0.016, 0.04, 0.04.
    exploratory = {n for n, e in got.items() if e.verdict == "exploratory: female favoured"}
    assert exploratory == {"s1", "s3", "s4"}
    assert got["untested"].p_holm is None and got["untested"].verdict == "not tested: why"
    assert [(f.role, f.size) for f in families] == [("primary", 5), ("secondary", 4)]
    assert families[0].method.startswith("Holm over all 5 primary tests")
    assert families[1].method.startswith("Benjamini-Hochberg over the 4 secondary tests")
    top = headline(corrected, families, 0.05, n_bases=6)
    assert top["identity_effect"] is True
    assert (top["tests"], top["secondary_tests"]) == (5, 4)
    assert top["detected"] == ["g1", "g2"]
    assert sorted(top["exploratory"]) == ["s1", "s3", "s4"]
    assert top["procedure"] == families[0].method


def test_a_secondary_row_never_makes_the_identity_verdict() -> None:
    effects = [_effect("primary", 0.5, 0.1), _effect("judge", 1e-9, 2.0, role="secondary")]
    corrected, families = correct_effects(effects, 0.05)
    assert corrected[1].verdict == "exploratory: female favoured"
    top = headline(corrected, families, 0.05, n_bases=6)
    assert top["identity_effect"] is False
    assert (top["detected"], top["exploratory"]) == ([], ["judge"])
    assert top["verdict"].startswith(
        "No detectable identity effect at alpha=0.05 (Holm over the 1 primary panel-level tests"
    )
    assert top["verdict"].endswith(
        "Exploratory: 1 of 1 secondary tests (per metric, per judge; Benjamini-Hochberg) flag a "
        "difference; they do not change the verdict."
    )


def test_a_primary_row_with_a_zero_estimate_is_not_called() -> None:
    corrected, _ = correct_effects([_effect("flat", 0.0, 0.0)], 0.05)
    assert corrected[0].verdict == "no detectable difference"


def test_headline_names_the_strongest_primary_effect() -> None:
    effects = [_effect("weak", 0.01, 0.175), _effect("strong", 1e-5, -0.65)]
    corrected, families = correct_effects(effects, 0.05)
    top = headline(corrected, families, 0.05, n_bases=6)
    assert top["detected"] == ["weak", "strong"]
    assert top["verdict"].startswith(
        "Detectable identity effect: male scored 0.65 points higher than female on overall"
    )
    assert top["verdict"].endswith("2 of the 2 primary tests detect an effect.")
    swap = _effect("swap", 1e-4, 0.125, scale="win share - 0.5")
    corrected, families = correct_effects([swap], 0.05)
    assert (
        "the answer labelled female won 62% of the comparisons"
        in (headline(corrected, families, 0.05)["verdict"])
    )


def _too_few(bases: int) -> dict[str, Any]:
    rng = np.random.default_rng(3)
    scores = single_scores(rng, bases=bases, per_base=2, shift={("female", "accuracy"): 3.0})
    verdicts = pair_verdicts(rng, bases=bases, per_base=2, ability={"female": 3.0})
    return verdict_statistics(scores, verdicts, turns_of(scores))


def test_too_few_bases_give_no_verdict_not_a_clean_bill() -> None:
    result = _too_few(3)
    top = result["headline"]
    assert top["identity_effect"] is None and top["tests"] == 0
    assert (top["n_bases"], top["min_bases"]) == (3, MIN_BASES)
    assert top["verdict"].startswith(
        "No verdict: 3 base scenarios, and a verdict must generalise over scenarios (at least 5 "
        "are needed)."
    )
    primary = [e for e in result["effects"] if e["role"] == "primary"]
    assert len(primary) == 2
    assert all(e["verdict"].startswith("not tested: 3 base scenarios") for e in primary)
    assert all(e["p_value"] is None and e["ci_low"] is None for e in primary)
    assert top["position_bias"] is None
    assert top["position"].startswith("No verdict on position bias: 3 base scenarios")
    # The same planted effects with enough bases are called.
    called = _too_few(MIN_BASES)["headline"]
    assert called["identity_effect"] is True and called["tests"] == 2


def test_too_few_bases_test_nothing_at_all() -> None:
    result = _too_few(3)
    assert result["multiple_comparisons"] == []
    assert all(e["p_value"] is None for e in result["effects"])
    assert result["headline"]["exploratory"] == []


def test_no_paired_data_gives_no_verdict() -> None:
    empty = verdict_statistics(pd.DataFrame(), pd.DataFrame(), pd.DataFrame())
    assert empty["headline"]["identity_effect"] is None
    assert empty["headline"]["verdict"] == (
        "No verdict: no identity contrast could be tested, the run has no paired data."
    )
    assert empty["effects"] == [] and empty["position_bias"] == {}
    lonely = single_scores(np.random.default_rng(2), ("female",), bases=6)
    result = verdict_statistics(lonely, pd.DataFrame(), turns_of(lonely))
    assert result["headline"]["identity_effect"] is None
    assert result["headline"]["skipped"] == [
        "single protocol, category gender: one identity (female), so no contrast to test"
    ]


def test_verdict_statistics_separates_primary_and_secondary() -> None:
    rng = np.random.default_rng(7)
    scores = single_scores(rng, bases=6, per_base=2, shift={("female", "creativity"): 3.0})
    verdicts = pair_verdicts(rng, bases=6, per_base=2, position=2.0)
    result = verdict_statistics(scores, verdicts, turns_of(scores))
    effects = {e["id"]: e for e in result["effects"]}
    primary = {k for k, e in effects.items() if e["role"] == "primary"}
    assert primary == {
        "single:gender:overall:female-male:panel",
        "pair:gender:label_swap:female-male:panel",
    }
    top = result["headline"]
    assert top["detected"] == ["single:gender:overall:female-male:panel"]
    assert top["identity_effect"] is True and top["tests"] == 2
    assert top["secondary_tests"] == sum(
        e["role"] == "secondary" and e["p_value"] is not None for e in effects.values()
    )
    sizes = {f["role"]: f["size"] for f in result["multiple_comparisons"]}
    assert sizes == {"primary": 2, "secondary": top["secondary_tests"]}
    # Position is its own claim, outside the identity verdict.
    assert top["position_bias"] is True and result["position_bias"]["called"] is True
    assert top["position"] == result["position_bias"]["verdict"]
    assert "position" not in top["verdict"].lower()


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


def test_headline_interval_follows_the_direction_of_the_sentence() -> None:
    corrected, families = correct_effects([_effect("strong", 1e-5, -0.65)], 0.05)
    verdict = headline(corrected, families, 0.05, n_bases=6)["verdict"]
    assert "male scored 0.65 points higher than female on overall (95% CI 0.40 to 0.90" in verdict
