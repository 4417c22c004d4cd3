"""The manipulation arms' bias profile against statistics computed by hand (pandas, scipy)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairpanel.analysis import MANIPULATION_COLUMNS, MIN_BASES, BiasProfileRow, bias_profile
from fairpanel.analysis.tools._resample import bootstrap_cluster_means, seed_for


def _frame(
    label: str,
    differences: Sequence[Sequence[float]],
    *,
    protocol: str = "single",
    seed: int = 0,
    kind: str = "verbosity",
    control: bool = False,
    prefix: str = "",
) -> pd.DataFrame:
    """Main and twin rows of ``label``: base b has one pair per entry of ``differences[b]``,
    the twin's value that much above its main trial's (a random level, shared by the pair)."""
    rng = np.random.default_rng(seed)
    rows = []
    for b, pairs in enumerate(differences):
        for i, difference in enumerate(pairs):
            level = float(rng.uniform(3.0, 6.0)) if protocol == "single" else 0.5
            for arm, value in (("main", level), ("manipulation", level + difference)):
                rows.append(
                    {
                        "pair_key": f"{prefix}{protocol}-b{b}-{i}",
                        "manipulation": label,
                        "kind": "none" if control else kind,
                        "control": control,
                        "protocol": protocol,
                        "panel": "p",
                        "base_id": f"base{b}",
                        "scenario_id": f"base{b}-s{i}",
                        "arm": arm,
                        "score": value if protocol == "single" else 5.0,
                        "won": np.nan if protocol == "single" else value,
                    }
                )
    return pd.DataFrame(rows, columns=MANIPULATION_COLUMNS)


def _by_hand(frame: pd.DataFrame) -> tuple[float, np.ndarray]:
    """Mean of base means of twin minus main, from a merge and two groupbys."""
    value = frame["score"].where(frame["protocol"] == "single", frame["won"])
    frame = frame.assign(value=value)
    main = frame[frame["arm"] == "main"].set_index("pair_key")
    twin = frame[frame["arm"] == "manipulation"].set_index("pair_key")
    joined = twin[["base_id", "value"]].merge(
        main[["value"]], left_index=True, right_index=True, suffixes=("", "_main")
    )
    joined["difference"] = joined["value"] - joined["value_main"]
    means = joined.dropna().groupby("base_id")["difference"].mean().to_numpy()
    return float(means.mean()), means


def _only(rows: list[BiasProfileRow]) -> BiasProfileRow:
    assert len(rows) == 1
    return rows[0]


@pytest.fixture(scope="module")
def normal_bases() -> tuple[np.ndarray, BiasProfileRow]:
    """Twelve bases, uneven pair counts, normal differences around 0.4 points."""
    rng = np.random.default_rng(7)
    differences = [list(rng.normal(0.4, 0.6, int(rng.integers(1, 5)))) for _ in range(12)]
    frame = _frame("verbosity-2x", differences)
    return frame, _only(bias_profile(frame, seed=3))


def test_estimate_is_the_mean_of_base_means(
    normal_bases: tuple[pd.DataFrame, BiasProfileRow],
) -> None:
    frame, row = normal_bases
    estimate, _ = _by_hand(frame)
    assert row.estimate == pytest.approx(estimate, abs=1e-12)
    # Each base weighs the same: the mean over pairs would differ with uneven counts.
    pairs = frame.groupby("pair_key")["score"].agg(lambda s: s.iloc[1] - s.iloc[0])
    assert abs(pairs.mean() - estimate) > 1e-6
    assert row.n_bases == 12 and row.n_pairs == len(pairs)
    assert (row.manipulation, row.kind, row.protocol, row.control) == (
        "verbosity-2x", "verbosity", "single", False,
    )  # fmt: skip
    assert row.measure == "score" and "0-10" in row.scale


def test_interval_is_the_bootstrap_of_base_means_and_near_the_t_interval(
    normal_bases: tuple[pd.DataFrame, BiasProfileRow],
) -> None:
    frame, row = normal_bases
    _, means = _by_hand(frame)
    # The very bootstrap the package already has, with the row's own seed.
    same = bootstrap_cluster_means(
        means, seed=seed_for(3, "bias_profile", "verbosity-2x", "single")
    )
    assert (row.ci_low, row.ci_high) == pytest.approx((same.low, same.high), abs=1e-12)
    t_test = stats.ttest_1samp(means, 0.0)
    t_low, t_high = t_test.confidence_interval(0.95)
    assert row.ci_low is not None and row.ci_high is not None
    width, t_width = row.ci_high - row.ci_low, t_high - t_low
    assert abs(width - t_width) / t_width < 0.15
    assert row.ci_low < means.mean() < row.ci_high
    # p agrees with the t test's in direction and size, and with its own interval.
    assert row.p_value is not None
    assert np.sign(row.estimate) == np.sign(t_test.statistic)
    assert row.p_value == pytest.approx(float(t_test.pvalue), rel=0.35)
    assert (row.p_value < 0.05) == (row.ci_low > 0 or row.ci_high < 0)


def test_intervals_cover_the_true_mean() -> None:
    """Over 200 data sets of 10 bases with normal base means around 0.3, about 95% cover."""
    rng = np.random.default_rng(11)
    frame = _frame("authority", [[0.0]] * 10)
    twin = (frame["arm"] == "manipulation").to_numpy()
    covered = 0
    for run in range(200):
        score = frame["score"].to_numpy().copy()
        score[twin] += rng.normal(0.3, 1.0, 10)
        row = _only(bias_profile(frame.assign(score=score), seed=run))
        covered += row.ci_low is not None and row.ci_low <= 0.3 <= (row.ci_high or 0.0)
    assert 0.9 <= covered / 200 <= 0.99


def test_a_planted_shift_is_called_with_its_direction() -> None:
    rng = np.random.default_rng(2)
    up = _frame("authority", [list(rng.normal(1.0, 0.5, 2)) for _ in range(10)])
    steps = [[-0.5, -0.5, 0.0, -0.5], [-1.0, -0.5, 0.0, 0.0], [-0.5, -1.0, -0.5, -0.5]]
    down = _frame("bandwagon", [steps[b % 3] for b in range(9)], protocol="pair")
    rows = bias_profile(pd.concat([up, down], ignore_index=True), seed=1)
    assert [(r.manipulation, r.protocol) for r in rows] == [
        ("authority", "single"), ("bandwagon", "pair"),
    ]  # fmt: skip
    assert all(r.called for r in rows)
    assert rows[0].verdict == "authority favoured"
    assert rows[1].verdict == "bandwagon disfavoured"
    assert rows[1].estimate == pytest.approx(_by_hand(down)[0])
    assert rows[1].measure == "win share"
    assert "Holm over the panel's 2 tested" in rows[0].method


def test_holm_adjusts_over_the_tested_rows() -> None:
    rng = np.random.default_rng(5)
    small = _frame("verbosity-2x", [[d] for d in rng.normal(0.6, 1.0, 12)], prefix="a")
    large = _frame("authority", [[d] for d in rng.normal(0.1, 1.0, 12)], prefix="b")
    rows = bias_profile(pd.concat([small, large], ignore_index=True), seed=4)
    p = np.array([row.p_value for row in rows], dtype=float)
    first = int(np.argmin(p))
    assert rows[first].p_holm == pytest.approx(min(1.0, 2.0 * p[first]))
    assert rows[1 - first].p_holm == pytest.approx(max(min(1.0, 2.0 * p[first]), p[1 - first]))
    assert all(row.called == (row.p_holm is not None and row.p_holm < 0.05) for row in rows)


def test_too_few_bases_is_not_tested_and_stays_out_of_the_family() -> None:
    few = _frame("register", [[1.0, 1.2]] * (MIN_BASES - 1), prefix="a")
    many = _frame("authority", [[d] for d in np.linspace(-1.0, 1.4, 8)], prefix="b")
    rows = bias_profile(pd.concat([few, many], ignore_index=True))
    assert rows[0].p_value is None and rows[0].p_holm is None and rows[0].ci_low is None
    assert rows[0].verdict.startswith(f"not tested: {MIN_BASES - 1} base scenarios")
    assert rows[0].estimate == pytest.approx(1.1) and not rows[0].called
    assert rows[1].p_holm == rows[1].p_value  # a family of one


def test_row_order_seeds_and_incomplete_pairs() -> None:
    control = _frame("same-text", [[0.0, 0.1]] * 6, control=True, prefix="c")
    pair = _frame("verbosity-2x", [[0.5, 0.0]] * 6, protocol="pair", prefix="v")
    single = _frame("verbosity-2x", [[0.3, 0.1]] * 6, seed=1, prefix="v")
    other = _frame("authority", [[0.2]] * 6, prefix="a")
    frame = pd.concat([control, pair, single, other], ignore_index=True)
    # One twin lost (an incomplete pair) and one main score absent: neither counts.
    frame = frame.drop(
        index=frame.index[(frame["pair_key"] == "asingle-b0-0") & (frame["arm"] == "manipulation")]
    )
    frame.loc[(frame["pair_key"] == "vsingle-b1-1") & (frame["arm"] == "main"), "score"] = np.nan
    rows = bias_profile(frame, seed=9)
    assert [(r.manipulation, r.protocol, r.control) for r in rows] == [
        ("verbosity-2x", "single", False),
        ("verbosity-2x", "pair", False),
        ("authority", "single", False),
        ("same-text", "single", True),
    ]
    assert rows[3].kind == "none"
    assert [r.n_pairs for r in rows] == [11, 12, 5, 12]
    assert rows[2].n_bases == 5
    # A row's result is its own: dropping the other manipulations leaves it unchanged.
    alone = _only(bias_profile(frame[frame["manipulation"] == "same-text"], seed=9))
    assert (alone.estimate, alone.ci_low, alone.ci_high, alone.p_value) == (
        rows[3].estimate, rows[3].ci_low, rows[3].ci_high, rows[3].p_value,
    )  # fmt: skip
    assert bias_profile(frame, seed=9) == rows
    # Categorical columns (what a store reader may hand over) read as their text does.
    text = ["pair_key", "manipulation", "kind", "protocol", "base_id", "arm"]
    assert bias_profile(frame.astype(dict.fromkeys(text, "category")), seed=9) == rows
    # Rows in another order give the same profile (bases are numbered by name).
    assert bias_profile(frame.iloc[::-1], seed=9)[0] == rows[2]


def test_incomplete_input_raises() -> None:
    frame = _frame("authority", [[0.1]] * 6)
    with pytest.raises(ValueError, match="won"):
        bias_profile(frame.drop(columns=["won"]))
    with pytest.raises(ValueError, match="'arm'"):
        bias_profile(frame.assign(arm="injection"))
    with pytest.raises(ValueError, match="'control'"):
        bias_profile(frame.assign(control="False"))
    with pytest.raises(ValueError, match="several panels"):
        bias_profile(frame.assign(panel=["a", "b"] * 6))
    assert bias_profile(frame.iloc[0:0]) == []
