"""Pair-protocol tests (label swap, win rate among decided pairs, CMH), position bias on
order-swapped twins and the same-label control, checked against verdicts built by hand, scipy's
one-sample t test on base means and statsmodels' StratifiedTable."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from helpers.stats_data import pair_verdicts
from scipy import stats
from scipy.stats import chi2
from statsmodels.stats.contingency_tables import StratifiedTable

from fairpanel.analysis import (
    Effect,
    correct_effects,
    order_consistency,
    pair_outcomes,
    pair_verdict_effects,
    position_bias,
)
from fairpanel.analysis.verdict._controls import same_label_swap_tests
from fairpanel.analysis.verdict._pair_verdicts import cmh_effect, swap_effect, win_rate_effect
from fairpanel.analysis.verdict._position import order_twins

RACE = ("Asian", "Black", "Hispanic", "White")
WIN = {"W": 0.0, "L": 1.0, "T": math.nan}  # the front answer's outcome -> winner_position
SHARE = {"W": 1.0, "T": 0.5, "L": 0.0}  # the front answer's win share


def _row(base: str, scenario: str, front: str, r_front: int, outcome: str) -> dict[str, object]:
    back = "male" if front == "female" else "female"
    winner = WIN[outcome]
    return {
        "trial_key": f"{scenario}-{front}-{r_front}",
        "base_id": base,
        "scenario_id": scenario,
        "category": "gender",
        "first_identity": front,
        "second_identity": back,
        "first_response_index": r_front,
        "second_response_index": 3 - r_front,
        "winner_position": winner,
        "winner_identity": None if math.isnan(winner) else (front if winner == 0.0 else back),
    }


# Label swaps: (base, scenario, response shown first, front answer's outcome labelled female,
# the same answer in the same place labelled male). W win, T tie, L loss.
SWAPS = [
    ("b0", "s0", 1, "W", "L"),  # (1 - 0) / 2 = 0.5
    ("b0", "s0", 2, "T", "T"),  # 0
    ("b1", "s1", 1, "W", "T"),  # 0.25
    ("b1", "s1", 2, "L", "W"),  # -0.5
    ("b2", "s2", 1, "T", "L"),  # 0.25
    ("b3", "s3", 1, "W", "W"),  # 0
    ("b3", "s3", 2, "W", "L"),  # 0.5
    ("b3", "s4", 1, "T", "W"),  # -0.25
    ("b4", "s5", 1, "L", "L"),  # 0
    ("b4", "s5", 2, "W", "T"),  # 0.25
]
# Base means 0.25, -0.125, 0.25, 1/12, 0.125: the estimate is (7/12) / 5 = 7/60.
SWAP_BASE_MEANS = [0.25, -0.125, 0.25, 1 / 12, 0.125]


def _swap_verdicts() -> pd.DataFrame:
    rows = []
    for base, scenario, r_front, under_female, under_male in SWAPS:
        rows.append(_row(base, scenario, "female", r_front, under_female))
        rows.append(_row(base, scenario, "male", r_front, under_male))
    # An arrangement without its label swap: no matched unit, but a decided pair for win rates.
    rows.append(_row("b4", "s6", "female", 1, "W"))
    return pd.DataFrame(rows)


def _corrected(effects: list[Effect]) -> dict[str, Effect]:
    corrected, _ = correct_effects(effects, 0.05)
    return {e.id: e for e in corrected}


def test_swap_effect_is_half_the_win_share_difference_by_hand() -> None:
    outcomes = pair_outcomes(_swap_verdicts())
    effect = swap_effect(outcomes, "gender", ("female", "male"), None, confidence=0.95)
    values = pd.DataFrame(
        {
            "base": [s[0] for s in SWAPS],
            "value": [(SHARE[s[3]] - SHARE[s[4]]) / 2 for s in SWAPS],
        }
    )
    means = values.groupby("base")["value"].mean()
    assert means.tolist() == pytest.approx(SWAP_BASE_MEANS)
    reference = stats.ttest_1samp(means, 0.0)
    interval = reference.confidence_interval(0.95)
    assert effect.estimate == pytest.approx(7 / 60, abs=1e-12)
    assert effect.p_value == pytest.approx(float(reference.pvalue), rel=1e-10)
    assert (effect.ci_low, effect.ci_high) == pytest.approx(
        (interval.low, interval.high), rel=1e-10
    )
    assert (effect.n, effect.n_clusters) == (len(SWAPS), 5)
    # 6 of the 20 matched arrangements were ties.
    assert effect.tie_share == pytest.approx(6 / 20)
    assert effect.role == "primary" and effect.scale == "win share - 0.5"
    assert effect.id == "pair:gender:label_swap:female-male:panel"
    assert effect.cohen_h == pytest.approx(2 * math.asin(math.sqrt(0.5 + 7 / 60)) - math.pi / 2)


def test_swap_sign_follows_the_label_order() -> None:
    outcomes = pair_outcomes(_swap_verdicts())
    forward = swap_effect(outcomes, "gender", ("female", "male"), None, confidence=0.95)
    reverse = swap_effect(outcomes, "gender", ("male", "female"), None, confidence=0.95)
    assert reverse.estimate == pytest.approx(-7 / 60)
    assert reverse.p_value == pytest.approx(forward.p_value)


def test_swap_does_not_match_arrangements_with_the_other_response_in_front() -> None:
    # Female with response 1 in front, male with response 2 in front: not a label swap (the
    # answers' order differs), so there is nothing to match.
    verdicts = pd.DataFrame(
        [_row(f"b{i}", f"s{i}", "female", 1, "W") for i in range(6)]
        + [_row(f"b{i}", f"s{i}", "male", 2, "L") for i in range(6)]
    )
    effects = pair_verdict_effects(pair_outcomes(verdicts))
    assert "pair:gender:label_swap:female-male:panel" not in {e.id for e in effects}


def test_win_rate_counts_ties_apart_and_tests_decided_wins() -> None:
    verdicts = _swap_verdicts()
    effect = win_rate_effect(pair_outcomes(verdicts), "gender", "female", None, confidence=0.95)
    won = np.where(
        verdicts["first_identity"] == "female",
        verdicts["winner_position"] == 0.0,
        verdicts["winner_position"] == 1.0,
    )
    frame = pd.DataFrame(
        {"base": verdicts["base_id"], "won": won, "tie": verdicts["winner_position"].isna()}
    )
    decided = frame[~frame["tie"]]
    means = decided.groupby("base")["won"].mean() - 0.5
    reference = stats.ttest_1samp(means, 0.0)
    assert effect.estimate == pytest.approx(float(means.mean()), abs=1e-12)
    assert effect.p_value == pytest.approx(float(reference.pvalue), rel=1e-10)
    assert effect.n == len(decided) == 15
    assert effect.tie_share == pytest.approx(6 / 21)
    # Counting ties as losses would give another estimate: the ties really are set apart.
    as_losses = frame.assign(won=frame["won"] & ~frame["tie"]).groupby("base")["won"].mean()
    assert float(as_losses.mean()) - 0.5 != pytest.approx(effect.estimate)
    assert effect.role == "secondary" and effect.versus is None


def _tables_by_hand(verdicts: pd.DataFrame, a: str, b: str) -> list[np.ndarray]:
    """Per base, decided a-vs-b verdicts as [[front a won, lost], [front b won, lost]]; strata
    with an empty row carry nothing and are left out."""
    tables = []
    for _, group in verdicts.groupby("base_id"):
        pair = group[group["first_identity"].isin([a, b]) & group["second_identity"].isin([a, b])]
        pair = pair[pair["winner_position"].notna()]
        table = np.array(
            [
                [
                    ((pair["first_identity"] == front) & (pair["winner_position"] == won)).sum()
                    for won in (0.0, 1.0)
                ]
                for front in (a, b)
            ],
            dtype=float,
        )
        if table[0].sum() and table[1].sum():
            tables.append(table)
    return tables


def _cmh_by_formula(tables: list[np.ndarray]) -> tuple[float, float]:
    """Cochran-Mantel-Haenszel p (no continuity correction) and the Mantel-Haenszel odds ratio,
    textbook formulas."""
    numerator = variance = r_sum = s_sum = 0.0
    for (won_a, lost_a), (won_b, lost_b) in tables:
        n = won_a + lost_a + won_b + lost_b
        row_a, col_won = won_a + lost_a, won_a + won_b
        numerator += won_a - row_a * col_won / n
        variance += row_a * (n - row_a) * col_won * (n - col_won) / (n**2 * (n - 1))
        r_sum += won_a * lost_b / n
        s_sum += lost_a * won_b / n
    return float(chi2.sf(numerator**2 / variance, 1)), r_sum / s_sum


@pytest.mark.parametrize("pair", [("Asian", "Black"), ("Black", "White")])
def test_cmh_matches_statsmodels_and_the_textbook_formula(pair: tuple[str, str]) -> None:
    verdicts = pair_verdicts(
        np.random.default_rng(8),
        RACE,
        ability={"White": -0.6},
        position=0.4,
        tie_rate=0.1,
        category="race",
    )
    effect = cmh_effect(pair_outcomes(verdicts), "race", pair, None, 0.9)
    tables = _tables_by_hand(verdicts, *pair)
    reference = StratifiedTable(tables)
    p_value, odds_ratio = _cmh_by_formula(tables)
    assert effect.p_value == pytest.approx(reference.test_null_odds(False).pvalue, rel=1e-9)
    assert effect.p_value == pytest.approx(p_value, rel=1e-9)
    assert effect.estimate == pytest.approx(math.log(odds_ratio), rel=1e-9)
    low, high = reference.logodds_pooled_confint(0.1)
    assert (effect.ci_low, effect.ci_high) == pytest.approx((low, high), rel=1e-9)
    assert effect.n_clusters == len(tables) and effect.n == sum(t.sum() for t in tables)
    assert effect.scale == "log odds ratio" and effect.role == "secondary"


@pytest.mark.parametrize(("favoured", "sign"), [("female", 1.0), ("male", -1.0)])
def test_cmh_one_way_strata_give_a_finite_estimate_and_a_call(favoured: str, sign: float) -> None:
    """Audit C1: every stratum favours one label, so the pooled odds ratio is 0 or infinite;
    the Haldane-corrected estimate keeps the row's direction and the row can be called."""
    rows = [
        _row(f"b{b}", f"s{b}-{d}", front, r_front, "W" if front == favoured else "L")
        for b, d, front, r_front in itertools.product(
            range(6), range(2), ("female", "male"), (1, 2)
        )
    ]
    verdicts = pd.DataFrame(rows)
    effects = _corrected(pair_verdict_effects(pair_outcomes(verdicts)))
    cmh = effects["pair:gender:win_rate:female-male:cmh:panel"]
    # Each base: front female 4 of 4 and front male 0 of 4 (or the reverse); with 0.5 added to
    # every cell the Mantel-Haenszel ratio is (4.5 * 4.5 / 10) / (0.5 * 0.5 / 10) = 81 per
    # stratum, so 81 pooled.
    assert cmh.estimate == pytest.approx(sign * math.log(81.0), rel=1e-12)
    assert cmh.ci_low is not None and cmh.ci_high is not None
    assert cmh.ci_low < cmh.estimate < cmh.ci_high
    tables = _tables_by_hand(verdicts, "female", "male")
    assert cmh.p_value == pytest.approx(StratifiedTable(tables).test_null_odds(False).pvalue)
    assert cmh.p_value < 1e-4
    assert "Haldane" in cmh.method
    assert cmh.verdict == f"exploratory: {favoured} favoured"
    # The primary swap contrast agrees: the label alone decides, +-0.5 in every base.
    swap = effects["pair:gender:label_swap:female-male:panel"]
    assert swap.estimate == pytest.approx(sign * 0.5)
    assert swap.verdict == f"{favoured} favoured"


def test_cmh_without_a_stratum_holding_both_labels_is_not_tested() -> None:
    verdicts = pd.DataFrame([_row(f"b{i}", f"s{i}", "female", 1, "W") for i in range(6)])
    effect = cmh_effect(pair_outcomes(verdicts), "gender", ("female", "male"), None, 0.95)
    assert effect.p_value is None and effect.estimate is None
    assert effect.verdict == "not tested: no decided strata"


def test_two_label_category_tests_one_win_rate() -> None:
    effects = _corrected(
        pair_verdict_effects(pair_outcomes(pair_verdicts(np.random.default_rng(1))))
    )
    assert "pair:gender:win_rate:female-vs-50%:panel" in effects
    assert "pair:gender:win_rate:male-vs-50%:panel" not in effects
    four = pair_verdict_effects(
        pair_outcomes(pair_verdicts(np.random.default_rng(1), RACE, category="race", bases=5))
    )
    assert sum(e.family == "pair win rates among decided pairs against 50%" for e in four) == 4
    primary = sorted(e.id for e in four if e.role == "primary")
    assert primary == [
        f"pair:race:label_swap:{a}-{b}:panel" for a, b in itertools.combinations(RACE, 2)
    ]


def test_per_judge_rows_are_secondary_and_use_only_parsed_final_turns() -> None:
    verdicts = pair_verdicts(np.random.default_rng(5), ability={"female": 0.5}, bases=6)
    turns = verdicts.assign(judge="critic", protocol="pair", round_kind="final", parse_ok=True)
    # A first-round turn and an unparsed final turn that would flip the judge's verdicts.
    noise = turns.assign(
        winner_position=1.0 - turns["winner_position"], round_kind="first", trial_key="x"
    )
    broken = noise.assign(round_kind="final", parse_ok=False)
    outcomes = pair_outcomes(verdicts, pd.concat([turns, noise, broken], ignore_index=True))
    effects = {e.id: e for e in pair_verdict_effects(outcomes)}
    panel = effects["pair:gender:label_swap:female-male:panel"]
    judge = effects["pair:gender:label_swap:female-male:critic"]
    assert judge.role == "secondary" and panel.role == "primary"
    assert (judge.estimate, judge.p_value, judge.n) == (panel.estimate, panel.p_value, panel.n)


def test_planted_label_effect_is_found_by_every_test() -> None:
    verdicts = pair_verdicts(
        np.random.default_rng(12),
        ability={"female": 0.6, "male": -0.6},
        position=0.8,
        bases=15,
        per_base=4,
    )
    effects = _corrected(pair_verdict_effects(pair_outcomes(verdicts)))
    assert effects["pair:gender:label_swap:female-male:panel"].verdict == "female favoured"
    for suffix in ("female-vs-50%", "female-male:cmh"):
        verdict = effects[f"pair:gender:win_rate:{suffix}:panel"].verdict
        assert verdict == "exploratory: female favoured"


def _twin_verdicts(twins: list[tuple[str, str, list[float]]]) -> pd.DataFrame:
    """Per scenario four arrangements: (female 1, male 2) and its order twin (male 2,
    female 1), (male 1, female 2) and its twin (female 2, male 1); ``first_won`` per
    arrangement in that order (1 first shown won, 0.5 tie, 0 lost)."""
    order = [("female", 1), ("male", 2), ("male", 1), ("female", 2)]
    letter = {1.0: "W", 0.5: "T", 0.0: "L"}
    return pd.DataFrame(
        [
            _row(base, scenario, front, r_front, letter[won])
            for base, scenario, first_won in twins
            for (front, r_front), won in zip(order, first_won, strict=True)
        ]
    )


TWINS = [
    ("b0", "s0", [1.0, 1.0, 0.5, 1.0]),  # twins 1 and 0.75
    ("b1", "s1", [1.0, 0.0, 0.0, 0.5]),  # 0.5, 0.25
    ("b2", "s2", [1.0, 0.5, 1.0, 1.0]),  # 0.75, 1
    ("b2", "s3", [0.0, 0.0, 1.0, 0.0]),  # 0, 0.5
    ("b3", "s4", [0.5, 0.5, 1.0, 0.0]),  # 0.5, 0.5
    ("b4", "s5", [1.0, 1.0, 1.0, 1.0]),  # 1, 1
]
# Base means 0.875, 0.375, 0.5625, 0.5, 1: the rate is 3.3125 / 5 = 0.6625.
TWIN_BASE_MEANS = [0.875, 0.375, 0.5625, 0.5, 1.0]


def test_position_bias_on_hand_built_twins_with_ties() -> None:
    verdicts = _twin_verdicts(TWINS)
    # A lone arrangement has no order twin: it counts among the verdicts, not the twins.
    verdicts = pd.concat([verdicts, pd.DataFrame([_row("b4", "s9", "female", 1, "L")])])
    bias = position_bias(verdicts)
    reference = stats.ttest_1samp(TWIN_BASE_MEANS, 0.5)
    interval = reference.confidence_interval(0.95)
    assert bias["first_position_win_rate"] == pytest.approx(0.6625, abs=1e-12)
    assert bias["p_value"] == pytest.approx(float(reference.pvalue), rel=1e-10)
    assert (bias["ci_low"], bias["ci_high"]) == pytest.approx(
        (interval.low, interval.high), rel=1e-10
    )
    assert (bias["n_twins"], bias["n_swapped_pairs"], bias["n_clusters"]) == (12, 12, 5)
    assert bias["tie_share"] == pytest.approx(5 / 24)
    assert (bias["n"], bias["n_ties"]) == (20, 5)
    assert bias["called"] is False  # p ~ 0.2
    assert bias["verdict"].startswith("No detectable position bias: the answer shown first won")
    assert bias["test"] == "cluster t (base-scenario means)"
    # Each base weighs the same: the mean over the 12 twins would be 7.75 / 12.
    assert bias["first_position_win_rate"] != pytest.approx(7.75 / 12, abs=1e-3)


def test_a_position_interval_stays_within_zero_and_one() -> None:
    # Base means 1, 1, 1, 1 and 0.25 (first shown won almost always): the t interval on five
    # bases reaches past 100%; a share cannot, so the interval ends at 1 and p is the t test's.
    strong = [(f"b{i}", f"s{i}", [1.0, 1.0, 1.0, 1.0]) for i in range(4)]
    verdicts = _twin_verdicts([*strong, ("b4", "s4", [0.0, 0.0, 0.0, 1.0])])
    bias = position_bias(verdicts)
    reference = stats.ttest_1samp([1.0, 1.0, 1.0, 1.0, 0.25], 0.5)
    assert reference.confidence_interval(0.95).high > 1.0
    assert bias["ci_high"] == 1.0
    assert bias["ci_low"] == pytest.approx(reference.confidence_interval(0.95).low, rel=1e-10)
    assert bias["p_value"] == pytest.approx(float(reference.pvalue), rel=1e-10)
    assert "to 100%" in bias["verdict"]


def test_order_twins_pair_each_arrangement_with_its_reverse() -> None:
    twins = order_twins(_twin_verdicts(TWINS[:1]))
    per_twin = sorted(
        ((twins["first_won"] + twins["first_won_swapped"]) / 2).tolist(), reverse=True
    )
    assert per_twin == [1.0, 0.75]
    winners = set(twins["winner"]) | set(twins["winner_swapped"])
    assert winners == {"female|1", "male|2", "female|2", "-"}


def test_no_twins_or_too_few_bases_give_no_position_verdict() -> None:
    # Label swaps only: response 1 always in front, under both labels; never the reverse.
    swaps_only = _swap_verdicts()
    bias = position_bias(swaps_only.loc[swaps_only["first_response_index"] == 1])
    assert bias["called"] is None and bias["n_twins"] == 0 and bias["p_value"] is None
    assert bias["verdict"] == "No verdict on position bias: no matched units."
    few = position_bias(_twin_verdicts(TWINS[:3]))
    assert few["called"] is None and few["n_twins"] == 6
    assert few["verdict"] == (
        "No verdict on position bias: 3 base scenarios: too few to generalise over scenarios "
        "(need 5)."
    )


def test_position_bias_alone_is_not_an_identity_effect() -> None:
    verdicts = pair_verdicts(np.random.default_rng(21), position=1.5, bases=15, per_base=4)
    effects = _corrected(pair_verdict_effects(pair_outcomes(verdicts)))
    assert all(e.verdict == "no detectable difference" for e in effects.values())
    bias = position_bias(verdicts)
    assert bias["called"] is True and bias["p_value"] < 1e-4
    assert bias["verdict"].startswith("Position bias: the answer shown first won")
    assert bias["ci_low"] > 0.5


def test_order_consistency_by_hand() -> None:
    verdicts = pair_verdicts(np.random.default_rng(2), tie_rate=0.2, bases=4)
    winner: dict[tuple[str, str, int], str] = {}
    for row in verdicts.itertuples():
        if row.winner_position == 0.0:
            won = f"{row.first_identity}{row.first_response_index}"
        elif row.winner_position == 1.0:
            won = f"{row.second_identity}{row.second_response_index}"
        else:
            won = "tie"
        winner[(row.scenario_id, row.first_identity, row.first_response_index)] = won
    agree = total = 0
    for (scenario, front, response), won in winner.items():
        back = "male" if front == "female" else "female"
        if front == "female":  # the order swap puts the other candidate in front
            total += 1
            agree += won == winner[(scenario, back, 3 - response)]
    assert order_consistency(verdicts) == (agree / total, total)


def _same_label(rng: np.random.Generator, front_bias: dict[str, float]) -> pd.DataFrame:
    """Same-label pairs (x, x) in both response orders; the front answer's log-odds of winning
    may depend on the label (``front_bias``), which only a label-dependent judge would do."""
    rows = []
    for base in range(12):
        for derived in range(3):
            quality = {1: rng.normal(0, 0.7), 2: rng.normal(0, 0.7)}
            for label, (r_front, r_back) in itertools.product(front_bias, ((1, 2), (2, 1))):
                eta = front_bias[label] + quality[r_front] - quality[r_back]
                won = 0.0 if rng.random() < 1 / (1 + math.exp(-eta)) else 1.0
                rows.append(
                    {
                        "trial_key": f"{base}-{derived}-{label}-{r_front}",
                        "base_id": f"b{base}",
                        "scenario_id": f"b{base}-{derived}",
                        "category": "race",
                        "first_identity": label,
                        "second_identity": label,
                        "first_response_index": r_front,
                        "second_response_index": r_back,
                        "winner_position": won,
                        "winner_identity": label,
                    }
                )
    return pd.DataFrame(rows)


def test_same_label_arm_rejection_rate() -> None:
    rng = np.random.default_rng(4)
    null = [
        same_label_swap_tests(_same_label(rng, dict.fromkeys(RACE, 0.3)), 0.05) for _ in range(25)
    ]
    assert all(r["tests"] == 6 for r in null)
    rate = sum(r["rejected"] for r in null) / (6 * 25)
    assert rate <= 0.1, rate
    planted = same_label_swap_tests(
        _same_label(rng, {"Asian": 2.0, "Black": -2.0, "Hispanic": 0.0, "White": 0.0}), 0.05
    )
    # Asian vs Black differ most; the pipeline's baseline flags a label-dependent judge.
    assert planted["rejected"] >= 1
