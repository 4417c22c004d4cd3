"""Panels compared on the same trials: paired differences against scipy and hand computations,
a planted difference the paired test finds and an independent comparison misses, one weighted
Holm procedure over everything, and panels that cannot be told apart."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest
from helpers.panel_data import Design, Frames, PanelSpec, panel_frames, relabelled
from scipy import stats
from statsmodels.stats.multitest import multipletests

from fairpanel.analysis import (
    PanelComparison,
    PanelDifferenceRow,
    krippendorff_alpha,
    panel_differences,
    verdict_statistics,
)
from fairpanel.analysis.panels._compare import difference_of_estimates
from fairpanel.analysis.panels._differences import PRIMARY_WEIGHT
from fairpanel.analysis.results._panel_rows import sentence
from fairpanel.analysis.tools._multitest import weighted_holm

DESIGN = Design(bases=15, per_base=12)
PLANTED = 0.25


@functools.cache
def _planted() -> dict[str, Frames]:
    """Two panels on the same trials; haiku's judges add 0.25 points to female - male. Seed 1
    is one of the 38 in 40 seeds whose paired test calls it (the independent comparison called
    it in none)."""
    panels = {"gpt4o-mini": PanelSpec(noise=0.8), "haiku": PanelSpec(shift=PLANTED, noise=0.8)}
    return panel_frames(1, panels, DESIGN)


@functools.cache
def _planted_comparison() -> PanelComparison:
    return panel_differences(_planted())


def _row(comparison: PanelComparison, id_start: str) -> PanelDifferenceRow:
    return next(row for row in comparison.differences if row.id.startswith(id_start))


def _shares(frames: Frames) -> pd.Series:
    """The front answer's win share of every arrangement (tie 1/2), indexed by base, scenario,
    front label and front response."""
    verdicts = frames.verdicts
    winner = verdicts["winner_position"].to_numpy(dtype=float)
    share = np.where(np.isnan(winner), 0.5, 1.0 - winner)
    index = ["base_id", "scenario_id", "first_identity", "first_response_index"]
    return pd.Series(share, index=pd.MultiIndex.from_frame(verdicts[index]))


def _single_by_hand(frames: Frames) -> pd.Series:
    """Per (base, scenario, response): the judges' mean score under female minus under male."""
    scores = frames.scores.groupby(["base_id", "scenario_id", "response_index", "identity"])
    means = scores["score"].mean().unstack("identity")
    return means["female"] - means["male"]


def _swap_by_hand(frames: Frames) -> pd.Series:
    """Per (base, scenario, front response): half the front answer's win share under female
    minus under male (the same answers in the same order, labels swapped)."""
    wide = _shares(frames).unstack("first_identity")
    return (wide["female"] - wide["male"]) / 2.0


def _twins_by_hand(frames: Frames) -> pd.Series:
    """Per order twin: (female r, male 3 - r) shown one way and then the other; the mean of the
    two arrangements' first-shown win shares."""
    wide = _shares(frames).unstack(["first_identity", "first_response_index"])
    return pd.concat(
        [
            (wide[("female", 1)] + wide[("male", 2)]) / 2.0,
            (wide[("female", 2)] + wide[("male", 1)]) / 2.0,
        ]
    )


def _scipy(a: pd.Series, b: pd.Series) -> tuple[float, float, float, float, float, float]:
    """(mean of a's base means, b's, the difference, its t interval, p) by scipy."""
    base_a = a.groupby(level="base_id").mean()
    base_b = b.groupby(level="base_id").mean()
    result = stats.ttest_1samp(base_b - base_a, 0.0)
    interval = result.confidence_interval(0.95)
    return (
        float(base_a.mean()),
        float(base_b.mean()),
        float((base_b - base_a).mean()),
        float(interval.low),
        float(interval.high),
        float(result.pvalue),
    )


def test_a_planted_difference_is_called_paired_and_not_as_independent_estimates() -> None:
    comparison = _planted_comparison()
    row = _row(comparison, "panel_diff:single:gender:female-male:gpt4o-mini-vs-haiku")
    assert row.kind == "single" and row.scale == "score points"
    assert row.called is True and row.p_adjusted is not None and row.p_adjusted < 0.05
    assert row.ci_low is not None and row.ci_high is not None
    assert row.ci_low <= PLANTED <= row.ci_high
    assert row.bootstrap_ci_low is not None and row.bootstrap_ci_high is not None
    assert row.bootstrap_ci_low <= PLANTED <= row.bootstrap_ci_high
    assert row.bootstrap_ci_low > 0.0
    # Each panel's own primary effect, as its own results.json reports it, compared as
    # independent estimates (what `fairpanel compare` does with two runs): the scenarios' pull,
    # which both panels share, sits in both intervals, and the same 0.25 is not called.
    own = {}
    for name, frames in _planted().items():
        result = verdict_statistics(
            frames.scores, frames.verdicts, frames.turns, None, secondary=False
        )
        effect = next(
            e for e in result["effects"] if e["id"] == "single:gender:overall:female-male:panel"
        )
        own[name] = (effect["estimate"], effect["ci_low"], effect["ci_high"])
    difference, low, high, p_value = difference_of_estimates(own["haiku"], own["gpt4o-mini"])
    assert difference == pytest.approx(row.difference, abs=1e-9)
    assert p_value is not None and p_value > 0.05
    assert low < 0.0 < high
    # The paired interval is several times narrower than the independent one.
    assert (row.ci_high - row.ci_low) * 3 < high - low
    assert row.sentence.startswith(
        "haiku's gender effect (female - male) is 0.23 points larger than gpt4o-mini's "
        "(95% CI 0.15 to 0.32; adjusted p="
    )
    # Nothing else was planted: the other kinds are not called.
    assert comparison.called == [row.id]
    # The block results.json will carry round-trips through JSON as it is.
    assert PanelComparison.model_validate_json(comparison.model_dump_json()) == comparison


def test_every_paired_difference_is_scipys_t_test_on_base_means_by_hand() -> None:
    frames = _planted()
    comparison = _planted_comparison()
    a, b = frames["gpt4o-mini"], frames["haiku"]
    cases = {
        "panel_diff:single:": (_single_by_hand(a), _single_by_hand(b)),
        "panel_diff:pair:": (_swap_by_hand(a), _swap_by_hand(b)),
        "panel_diff:position:": (_twins_by_hand(a), _twins_by_hand(b)),
    }
    for prefix, (by_a, by_b) in cases.items():
        row = _row(comparison, prefix)
        estimate_a, estimate_b, difference, low, high, p_value = _scipy(by_a, by_b)
        assert row.estimate_a == pytest.approx(estimate_a, abs=1e-12), prefix
        assert row.estimate_b == pytest.approx(estimate_b, abs=1e-12), prefix
        assert row.difference == pytest.approx(difference, abs=1e-12), prefix
        assert (row.ci_low, row.ci_high) == pytest.approx((low, high), rel=1e-9), prefix
        assert row.p_value == pytest.approx(p_value, rel=1e-9), prefix
        assert (row.n_units, row.n_bases) == (len(by_a), DESIGN.bases), prefix
        assert row.test == "cluster t (base-scenario means)"
    assert _row(comparison, "panel_diff:pair:").scale == "win share - 0.5"
    assert _row(comparison, "panel_diff:position:").estimate_a == pytest.approx(0.5, abs=0.1)


def test_weighted_holm_runs_once_over_every_difference_of_every_pair_of_panels() -> None:
    panels = {
        "a": PanelSpec(noise=0.8),
        "b": PanelSpec(shift=0.6, noise=0.8, fail_rate=0.15),
        "c": PanelSpec(noise=0.8, position=1.0),
    }
    comparison = panel_differences(panel_frames(7, panels, DESIGN), bootstrap_reps=500)
    rows = comparison.differences
    kinds = ("single", "pair", "position", "parse_failures", "agreement", "agreement")
    assert [r.kind for r in rows if r.panel_a == "a" and r.panel_b == "b"] == list(kinds)
    assert [(r.panel_a, r.panel_b) for r in rows][:: len(kinds)] == [
        ("a", "b"),
        ("a", "c"),
        ("b", "c"),
    ]
    assert len({r.id for r in rows}) == len(rows) == 3 * len(kinds) == comparison.tests
    # The six primary differences share 80% of alpha, the twelve others 20%.
    primary = [r.kind in ("single", "pair") for r in rows]
    weights = np.where(primary, PRIMARY_WEIGHT / 6, (1 - PRIMARY_WEIGHT) / 12)
    assert [r.weight for r in rows] == pytest.approx(list(weights), rel=1e-12)
    p_values = np.array([float(r.p_value) for r in rows if r.p_value is not None])
    adjusted = weighted_holm(p_values, weights)
    assert [r.p_adjusted for r in rows] == pytest.approx(list(adjusted), rel=1e-12)
    assert [r.called for r in rows] == list(adjusted < 0.05)
    assert comparison.called == [r.id for r in rows if r.called]
    assert comparison.procedure.startswith("weighted Holm over all 18 tested panel differences")
    # Plain Holm over the same p-values never calls a primary difference weighted Holm misses.
    plain = multipletests(p_values, alpha=0.05, method="holm")[0]
    missed = zip(plain, rows, primary, strict=True)
    assert not any(p and first and not r.called for p, r, first in missed)
    called = set(comparison.called)
    # b's planted shift against both others; b's parse failures against both others; c's
    # position bias against both others.
    for expected in (
        "panel_diff:single:gender:female-male:a-vs-b",
        "panel_diff:single:gender:female-male:b-vs-c",
        "panel_diff:parse_failures:a-vs-b",
        "panel_diff:parse_failures:b-vs-c",
        "panel_diff:position:a-vs-c",
        "panel_diff:position:b-vs-c",
    ):
        assert expected in called
    failures = _row(comparison, "panel_diff:parse_failures:a-vs-b")
    assert failures.estimate_a == 0.0 and failures.estimate_b == pytest.approx(0.15, abs=0.02)
    # Every trial unit once: single (scenario x response x label) and pair (4 arrangements).
    assert failures.n_units == DESIGN.bases * DESIGN.per_base * (2 * 2 + 4)
    position = _row(comparison, "panel_diff:position:a-vs-c")
    assert position.sentence.startswith(
        "c's position bias (first-shown win share of order-swapped twins) is "
    )
    assert position.difference is not None and position.difference > 0.1
    assert "larger than a's" in position.sentence or "other way" in position.sentence
    # A t row's p and its interval agree.
    for row in rows:
        if row.kind != "agreement" and row.ci_low is not None and row.ci_high is not None:
            assert (float(row.p_value or 1.0) < 0.05) == (not row.ci_low <= 0.0 <= row.ci_high)


def test_identical_panels_give_zero_and_are_not_separable() -> None:
    one = _planted()["gpt4o-mini"]
    comparison = panel_differences({"one": one, "again": relabelled(one, "again")})
    assert comparison.called == [] and comparison.tests == 6
    for row in comparison.differences:
        assert row.difference == 0.0, row.id
        assert row.estimate_a == row.estimate_b, row.id
        assert (row.ci_low, row.ci_high) == (0.0, 0.0), row.id
        assert (row.bootstrap_ci_low, row.bootstrap_ci_high) == (0.0, 0.0), row.id
        assert row.p_value == 1.0 and row.called is False, row.id
        assert "is not separable from one's" in row.sentence, row.id


def test_units_are_matched_on_the_design_not_on_row_order_or_trial_keys() -> None:
    frames = _planted()
    shuffled = {
        name: Frames(
            *(f.sample(frac=1.0, random_state=3) for f in (p.scores, p.verdicts, p.turns)),
            p.consensus,
        )
        for name, p in frames.items()
    }
    expected = _planted_comparison().differences
    got = panel_differences(shuffled).differences
    assert [r.id for r in got] == [r.id for r in expected]
    for new, old in zip(got, expected, strict=True):
        assert new.difference == pytest.approx(old.difference, abs=1e-12)
        assert new.p_value == pytest.approx(old.p_value, rel=1e-9)


def test_agreement_is_krippendorffs_alpha_and_its_difference_is_paired() -> None:
    panels = {"sharp": PanelSpec(noise=0.5, flip=0.05), "noisy": PanelSpec(noise=2.0, flip=0.4)}
    frames = panel_frames(5, panels, DESIGN)
    comparison = panel_differences(frames)
    scores = _row(comparison, "panel_diff:agreement:single:scores:sharp-vs-noisy")
    verdicts = _row(comparison, "panel_diff:agreement:pair:verdicts:sharp-vs-noisy")
    for name, estimate in (("sharp", scores.estimate_a), ("noisy", scores.estimate_b)):
        own = frames[name].scores
        alpha, _, _ = krippendorff_alpha(
            own, ["trial_key", "position", "metric"], "score", "ordinal"
        )
        assert estimate == pytest.approx(alpha, abs=1e-12)
    for name, estimate in (("sharp", verdicts.estimate_a), ("noisy", verdicts.estimate_b)):
        own = frames[name].turns
        pair = own.loc[(own["protocol"] == "pair") & own["winner_position"].notna()]
        alpha, _, _ = krippendorff_alpha(pair, ["trial_key"], "winner_position", "nominal")
        assert estimate == pytest.approx(alpha, abs=1e-12)
    for row in (scores, verdicts):
        assert row.called is True and row.difference is not None and row.difference < -0.2
        assert row.ci_high is not None and row.ci_high < 0.0
        assert (row.ci_low, row.ci_high) == (row.bootstrap_ci_low, row.bootstrap_ci_high)
        assert row.test == "paired cluster bootstrap (base scenarios)"
        assert "lower than sharp's" in row.sentence
    assert scores.n_bases == DESIGN.bases


def test_below_five_bases_the_differences_are_estimated_but_not_tested() -> None:
    panels = {"a": PanelSpec(), "b": PanelSpec(shift=2.0)}
    comparison = panel_differences(panel_frames(2, panels, Design(bases=4, per_base=3)))
    assert comparison.tests == 0 and comparison.called == []
    for row in comparison.differences:
        assert row.p_value is None and row.p_adjusted is None and row.called is None, row.id
        assert row.ci_low is None and row.bootstrap_ci_low is None, row.id
        assert row.reason is not None and row.reason.startswith("4 base scenarios"), row.id
        assert row.difference is not None, row.id
        assert " was not compared with a's: 4 base scenarios" in row.sentence, row.id
    assert comparison.warnings == [
        "6 difference(s) not tested: 4 base scenarios: too few to generalise over scenarios "
        "(need 5)"
    ]


def _called(**fields: float | str) -> PanelDifferenceRow:
    base: dict[str, object] = {
        "id": "x",
        "kind": "single",
        "panel_a": "gpt4o-mini",
        "panel_b": "haiku",
        "category": "gender",
        "contrast": "female - male",
        "scale": "score points",
        "p_value": 0.001,
        "p_adjusted": 0.004,
        "called": True,
        "n_bases": 15,
    }
    return PanelDifferenceRow.model_validate(base | fields)


def test_sentences_say_larger_or_smaller_by_the_size_of_the_effect() -> None:
    toward_zero = _called(
        estimate_a=0.55, estimate_b=0.14, difference=-0.41, ci_low=-0.63, ci_high=-0.18
    )
    assert sentence(toward_zero, 0.05).startswith(
        "haiku's gender effect (female - male) is 0.41 points smaller than gpt4o-mini's "
        "(95% CI 0.18 to 0.63; adjusted p=0.004;"
    )
    # Panel a favours male: a more negative b is a larger effect.
    away = _called(estimate_a=-0.3, estimate_b=-0.7, difference=-0.4, ci_low=-0.6, ci_high=-0.2)
    assert "is 0.40 points larger than gpt4o-mini's (95% CI 0.20 to 0.60;" in sentence(away, 0.05)
    crossed = _called(estimate_a=-0.1, estimate_b=0.3, difference=0.4, ci_low=0.2, ci_high=0.6)
    assert "points the other way from gpt4o-mini's" in sentence(crossed, 0.05)
    quiet = _called(
        estimate_a=0.2, estimate_b=0.1, difference=-0.1, ci_low=-0.3, ci_high=0.1, called=False
    )
    assert "is not separable from gpt4o-mini's at alpha=0.05: difference -0.10 points" in (
        sentence(quiet, 0.05)
    )
    rate = _called(
        kind="parse_failures",
        scale="share of judge turns",
        estimate_a=0.02,
        estimate_b=0.12,
        difference=0.1,
        ci_low=0.05,
        ci_high=0.15,
    )
    assert "is 10.0 percentage points higher than gpt4o-mini's (95% CI 5.0 to 15.0;" in (
        sentence(rate, 0.05)
    )
