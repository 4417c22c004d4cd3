"""The analyses rewritten on integer codes against the pandas formulations they replace: the
same groups in the same order and the same numbers, on text and on categorical columns (the
report's frames), with categories out of text order, repeated keys and missing values."""

from __future__ import annotations

from typing import Any

import krippendorff
import numpy as np
import pandas as pd
import pytest

from fairpanel.analysis import (
    conformity,
    debate_shift,
    failure_rates,
    failure_rates_by_identity,
    krippendorff_alpha,
)
from fairpanel.analysis._frames import METRICS, _distinct_texts, _unknown_metrics, validate_scores
from fairpanel.analysis._summary import _distinct_shared_codes
from fairpanel.analysis.judges._debate import first_and_final
from fairpanel.analysis.judges._failures import (
    _identity_counts,
    _identity_counts_pandas,
    parse_flags,
)
from fairpanel.analysis.malibu._chisq import round_half_up, score_level_table
from fairpanel.analysis.tools._codes import sort_codes
from fairpanel.analysis.tools._resample import bootstrap_mean, cluster_codes

TEXT = ["trial_key", "protocol", "base_id", "category", "identity", "judge", "metric"]


def _scores(seed: int, categorical: bool) -> pd.DataFrame:
    """Scores of two rounds kinds with some first-round rows repeated (a retried turn) and,
    when categorical, categories in reverse text order."""
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    for trial in range(30):
        protocol = ["single", "pair"][trial % 2]
        for judge in ("j1", "j2", "j3"):
            for kind, number in (("first", 1), ("discussion", 2), ("final", 3)):
                for metric in ("creativity", "accuracy"):
                    for position, identity in enumerate(["male", "female"][: 1 + trial % 2]):
                        rows.append(
                            {
                                "trial_key": f"t{trial:02d}",
                                "protocol": protocol,
                                "base_id": f"b{trial % 4}",
                                "category": "gender",
                                "identity": identity if trial % 3 else "female",
                                "position": position,
                                "judge": judge,
                                "round": number,
                                "round_kind": kind,
                                "metric": metric,
                                "score": float(rng.integers(0, 11)) + rng.choice([0.0, 0.25]),
                            }
                        )
    frame = pd.DataFrame(rows)
    frame = pd.concat([frame, frame.loc[frame["round_kind"] == "first"].iloc[::17]])
    frame = frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    if categorical:
        for column in TEXT:
            names = sorted(frame[column].unique(), reverse=True)
            frame[column] = pd.Categorical(frame[column], categories=names)
    return frame


def _reference_debate(scores: pd.DataFrame) -> list[tuple[Any, ...]]:
    """The pandas formulation: a merge of first and final rounds and a groupby."""
    keys = ["trial_key", "protocol", "base_id", "category", "identity", "position", "judge"]
    first = scores.loc[scores["round_kind"] == "first", [*keys, "metric", "score"]]
    final = scores.loc[scores["round_kind"] == "final", [*keys, "metric", "score"]]
    both = first.merge(final, on=[*keys, "metric"], suffixes=("_first", "_final"))
    overall = both.groupby(keys, as_index=False)[["score_first", "score_final"]].mean()
    long = pd.concat([both, overall.assign(metric="overall")], ignore_index=True)
    out = []
    for name, group in long.groupby(["protocol", "category", "identity", "metric"], sort=True):
        change = (group["score_final"] - group["score_first"]).to_numpy(dtype=float)
        interval = bootstrap_mean(
            change, group["base_id"].to_numpy(), seed=1, confidence=0.9, n_boot=200
        )
        out.append(
            (*map(str, name), group["score_first"].mean(), change.mean(), len(group), interval.low)
        )
    return out


@pytest.mark.parametrize("categorical", [False, True])
def test_debate_shift_and_first_and_final_match_merge_and_groupby(categorical: bool) -> None:
    scores = _scores(3, categorical)
    rows = debate_shift(scores, confidence=0.9, seed=0, n_boot=200)
    mine = [
        (r["protocol"], r["category"], r["identity"], r["metric"], r["first_mean"], r["shift"])
        for r in rows
    ]
    reference = _reference_debate(scores)
    assert [row[:6] for row in reference] == mine
    assert [row[6] for row in reference] == [r["n"] for r in rows]
    assert any(r["metric"] == "overall" for r in rows)
    keys = [c for c in scores.columns if c not in ("round", "round_kind", "score")]
    merged = (
        scores.loc[scores["round_kind"] == "first", [*keys, "score"]]
        .merge(scores.loc[scores["round_kind"] == "final", [*keys, "score"]], on=keys)
        .to_numpy()
    )
    both = first_and_final(scores)
    assert len(both) > scores["trial_key"].nunique()  # the repeated first rows pair twice
    assert both[[*keys, "score_first", "score_final"]].to_numpy().tolist() == merged.tolist()


@pytest.mark.parametrize("categorical", [False, True])
def test_conformity_matches_groupby_and_join(categorical: bool) -> None:
    scores = _scores(5, categorical)
    candidate = ["trial_key", "position", "metric"]
    first = scores.loc[scores["round_kind"] == "first"]
    totals = first.groupby(candidate)["score"].agg(["sum", "count"])
    keys = [c for c in scores.columns if c not in ("round", "round_kind", "score")]
    both = first[[*keys, "score"]].merge(
        scores.loc[scores["round_kind"] == "final", [*keys, "score"]],
        on=keys,
        suffixes=("_first", "_final"),
    )
    both = both.join(totals, on=candidate)
    both = both.loc[both["count"] >= 2]
    others = (both["sum"] - both["score_first"]) / (both["count"] - 1)
    toward = (both["score_final"] - others).abs() < (both["score_first"] - others).abs()
    expected = [
        (str(judge), float(group.mean()), len(group))
        for judge, group in toward.groupby(both["judge"], sort=True)
    ]
    rows = conformity(scores)
    assert [(r["judge"], r["moved_toward_others"], r["n"]) for r in rows] == expected


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_krippendorff_alpha_matches_the_judges_by_units_matrix(level: str) -> None:
    scores = _scores(7, categorical=True)
    scores.loc[scores.index[::23], "score"] = np.nan  # a missing value is skipped by first()
    unit = ["trial_key", "round", "position"]
    values = scores.groupby([*unit, "judge"])["score"].first().astype(float)
    data = values.unstack("judge").to_numpy(dtype=float).T
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    alpha, units, judges = krippendorff_alpha(scores, unit, "score", level)  # type: ignore[arg-type]
    assert alpha == pytest.approx(expected, rel=1e-12)
    assert judges == 3
    assert units == int((~np.isnan(data)).sum(axis=0).__ge__(2).sum())


def test_cluster_codes_number_clusters_as_sorted_text() -> None:
    cases: list[Any] = [
        np.array(["b", "a", "c", "a"], dtype=object),
        np.array([10, 9, 10, 2]),
        pd.Categorical(["x", "y", "x"], categories=["z", "y", "x"]),
        pd.Series(pd.Categorical(["b", "a", "b"])),
        np.array(["a", None, "b"], dtype=object),
    ]
    for clusters in cases:
        _, expected = np.unique(np.asarray(clusters).astype(str), return_inverse=True)
        codes, k = cluster_codes(clusters)
        assert codes.tolist() == expected.tolist()
        assert k == expected.max() + 1


@pytest.mark.parametrize("categorical", [False, True])
def test_failure_counts_match_the_pandas_groupby(categorical: bool) -> None:
    rng = np.random.default_rng(0)
    n = 400
    turns = pd.DataFrame(
        {
            "trial_key": [f"t{i % 50}" for i in range(n)],
            "protocol": rng.choice(["single", "pair"], n),
            "category": rng.choice(["gender", "race"], n),
            "judge": rng.choice(["j2", "j1", "j10"], n),
            "round_kind": "final",
            "parse_ok": rng.random(n) > 0.2,
            "first_identity": rng.choice(["male", "female", "Asian"], n),
            "second_identity": rng.choice(["male", "female", "White"], n),
        }
    )
    turns.loc[turns.index[::7], "second_identity"] = None
    if categorical:  # the two label columns share their categories, as in the report's frames
        labels = ["male", "female", "White", "Asian"]
        for column in ("protocol", "category", "judge", "first_identity", "second_identity"):
            names = labels if "identity" in column else None
            turns[column] = pd.Categorical(turns[column], categories=names)
    failed = ~parse_flags(turns)
    assert _identity_counts(turns, failed) == _identity_counts_pandas(turns, failed)
    assert len(failure_rates_by_identity(turns)) == len(_identity_counts_pandas(turns, failed))
    keyed = turns.assign(failed=failed).astype({c: str for c in ("protocol", "category", "judge")})
    expected = keyed.groupby(["protocol", "category", "judge"])["failed"].agg(["size", "sum"])
    got = [((r.protocol, r.category, r.judge), r.turns, r.failures) for r in failure_rates(turns)]
    assert got == [(key, int(row["size"]), int(row["sum"])) for key, row in expected.iterrows()]


def test_score_level_table_matches_groupby_and_unstack() -> None:
    scores = _scores(9, categorical=True)
    keys = pd.DataFrame(
        {"identity": scores["identity"].astype(str), "level": round_half_up(scores["score"])}
    )
    expected = keys.groupby(["identity", "level"]).size().unstack("level", fill_value=0)
    table = score_level_table(scores)
    assert table.to_numpy().tolist() == expected.sort_index().to_numpy().tolist()
    assert list(table.index) == sorted(expected.index)
    assert list(table.columns) == sorted(expected.columns)


def test_integer_codes_match_a_sorted_factorize() -> None:
    rng = np.random.default_rng(11)
    columns = [
        pd.Series(rng.integers(-3, 4, 300)),  # negative values, ties
        pd.Series(np.array([7, 7, 2, 9, 2], dtype=np.uint8)),
        pd.Series(np.array([0, 10**12, 5])),  # a range too wide for the table
        pd.Series(np.array([4, 4, 4])),  # one value
    ]
    rows = np.array([2, 0, 1])
    for column in columns:
        expected, uniques = pd.factorize(column, sort=True)
        codes, n = sort_codes(column)
        assert codes.tolist() == expected.tolist()
        assert n == len(uniques)
        assert sort_codes(column, rows)[0].tolist() == expected[rows].tolist()


def test_validation_reads_the_distinct_metrics_as_unique_does() -> None:
    values = pd.Series(["accuracy", None, "accuracy", "creativity"], dtype=object)
    categorical = pd.Series(
        pd.Categorical(values, categories=["reliability", "creativity", "accuracy", "other"])
    )
    for column in (values, categorical, categorical.dropna(), values.dropna()):
        assert _distinct_texts(column) == {str(v) for v in column.unique()}


def test_unknown_metrics_are_found_in_text_and_categorical_columns() -> None:
    known = pd.Series(pd.Categorical(["accuracy", "creativity"], categories=list(METRICS)))
    assert _unknown_metrics(known) == []
    missing = pd.Series(pd.Categorical(["accuracy", None], categories=list(METRICS)))
    assert _unknown_metrics(missing) == ["nan"]
    unused = pd.Series(pd.Categorical(["accuracy"], categories=["accuracy", "speed"]))
    assert _unknown_metrics(unused) == []  # a category no row holds is not a value
    held = pd.Series(pd.Categorical(["speed", "accuracy"], categories=["accuracy", "speed"]))
    assert _unknown_metrics(held) == ["speed"]
    assert _unknown_metrics(pd.Series(["accuracy", "Speed"])) == ["Speed"]


def test_validation_rejects_missing_and_out_of_range_scores() -> None:
    scores = _scores(1, categorical=True).assign(
        scenario_id="s",
        response_index=0,
        judge_model="m",
        metric="accuracy",
        score=lambda f: f["score"].clip(0, 10),
    )
    for bad in (np.nan, -0.5, 10.5):
        broken = scores.copy()
        broken.loc[broken.index[5], "score"] = bad
        with pytest.raises(ValueError, match="1 value"):
            validate_scores(broken)
    assert validate_scores(scores)["score"].tolist() == scores["score"].tolist()


def test_distinct_trial_counts_match_the_text_count() -> None:
    keys = ["t3", "t1", "t2", "t1"]
    same = pd.CategoricalDtype(["t1", "t2", "t3", "t4"])
    cases = [
        [pd.Series(keys, dtype=same), pd.Series(["t4", "t1"], dtype=same)],
        [pd.Series(keys, dtype=same), pd.Series(["t1"], dtype=pd.CategoricalDtype(["t1", "t9"]))],
        [
            pd.Series(keys, dtype=same),
            pd.Series(["t1", "t2"], dtype=pd.CategoricalDtype(["t2", "t1"])),
        ],
        [pd.Series(keys, dtype=same), pd.Series([None, "t2"], dtype=same)],
        [pd.Series(keys), pd.Series(["t5"])],
    ]
    for columns in cases:
        expected = int(pd.Series(pd.concat(columns).unique()).astype(str).nunique())
        shared = _distinct_shared_codes(columns)
        assert shared is None or shared == expected
    assert _distinct_shared_codes(cases[0]) == 4
    assert _distinct_shared_codes(cases[2]) is None  # same categories, another order
