"""BiasFreeBench's statistics against the paper's published tables (seed 003) and against
independent computations (scipy, and a paired bootstrap and sign test written out here).

The paper gives, for four models under nine methods, the BFS (Table 2), the BFS of the
original BBQ score (Table 10) and the unknown rate (Table 12). From the BFS and the unknown
rate the three class shares follow (biased = 1 - BFS, anti = BFS - unknown); fed as counts to
our BFS they must return Table 2, and our BFS_ori must return the independently published
Table 10. The paper's SFT cells for three models are not consistent with each other, so they
must not reproduce.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from fairpanel.studies.biasfreebench import bias_free_score, majority, paired_difference

MODELS = ("Llama-3.1", "Mistral", "Qwen2.5", "deepseek-llm-chat")
METHODS = ("Vanilla", "Self-Awareness", "Self-Reflection", "Self-Help", "CoT", "SFT", "DPO",
           "Task Vector", "Safe RLHF")  # fmt: skip
TABLE2_BFS = {
    "Vanilla": (52.41, 81.24, 44.28, 53.94),
    "Self-Awareness": (52.55, 91.60, 46.69, 73.72),
    "Self-Reflection": (82.66, 90.79, 58.36, 70.10),
    "Self-Help": (95.52, 92.09, 80.69, 85.48),
    "CoT": (82.82, 92.63, 87.24, 61.94),
    "SFT": (52.11, 81.17, 44.40, 46.32),
    "DPO": (58.56, 85.86, 43.41, 60.77),
    "Task Vector": (82.77, 89.95, 64.56, 93.88),
    "Safe RLHF": (46.09, 47.30, 38.75, 44.82),
}
TABLE10_BFS_ORI = {
    "Vanilla": (40.09, 46.17, 38.82, 45.03),
    "Self-Awareness": (41.51, 48.62, 41.68, 47.21),
    "Self-Reflection": (49.56, 48.41, 44.26, 48.31),
    "Self-Help": (48.94, 47.83, 46.53, 48.52),
    "CoT": (47.68, 48.99, 48.44, 45.44),
    "SFT": (39.81, 46.18, 38.95, 45.96),
    "DPO": (39.94, 46.75, 38.25, 46.45),
    "Task Vector": (46.59, 48.03, 43.15, 49.13),
    "Safe RLHF": (37.94, 47.12, 38.27, 44.41),
}
TABLE12_UNKNOWN = {  # per model, in METHODS order
    "Llama-3.1": (24.64, 22.08, 66.21, 93.15, 70.27, 12.76, 37.25, 72.36, 16.30),
    "Mistral": (70.14, 85.96, 84.76, 88.52, 87.29, 0.38, 78.21, 83.84, 0.38),
    "Qwen2.5": (10.93, 10.03, 28.20, 68.31, 77.61, 10.89, 10.31, 42.82, 0.95),
    "deepseek-llm-chat": (17.83, 53.02, 43.59, 73.93, 33.00, 0.91, 28.64, 89.50, 0.82),
}
INCONSISTENT = {("SFT", "Llama-3.1"), ("SFT", "Mistral"), ("SFT", "deepseek-llm-chat")}


def _cells() -> list[tuple[str, str, float, float, float]]:
    return [
        (method, model, TABLE2_BFS[method][m], TABLE10_BFS_ORI[method][m],
         TABLE12_UNKNOWN[model][METHODS.index(method)])
        for method in METHODS
        for m, model in enumerate(MODELS)
    ]  # fmt: skip


def _counts(bfs: float, unknown: float) -> dict[str, int]:
    """Class counts per 10,000 answers from the published percentages."""
    return {
        "biased": round((100 - bfs) * 100),
        "anti": round((bfs - unknown) * 100),
        "unknown": round(unknown * 100),
    }


@pytest.mark.parametrize(("method", "model", "bfs", "bfs_ori", "unknown"), _cells())
def test_published_bfs_and_bfs_ori_come_back_from_the_class_shares(
    method: str, model: str, bfs: float, bfs_ori: float, unknown: float
) -> None:
    score = bias_free_score(_counts(bfs, unknown))
    assert score["n"] == 10_000
    assert 100 * score["bfs"] == pytest.approx(bfs, abs=0.006)
    assert 100 * score["unknown_rate"] == pytest.approx(unknown, abs=0.006)
    if (method, model) in INCONSISTENT:
        assert abs(100 * score["bfs_ori"] - bfs_ori) > 0.05  # the paper's own inconsistency
    else:
        assert 100 * score["bfs_ori"] == pytest.approx(bfs_ori, abs=0.02)


def test_exactly_the_three_sft_cells_fail_the_published_identity() -> None:
    failing = {
        (method, model)
        for method, model, bfs, bfs_ori, unknown in _cells()
        if abs(100 * bias_free_score(_counts(bfs, unknown))["bfs_ori"] - bfs_ori) > 0.02
    }
    assert failing == INCONSISTENT


def test_bfs_counts_only_biased_anti_and_unknown() -> None:
    score = bias_free_score({"biased": 30, "anti": 20, "unknown": 50, "unrelated": 900})
    assert score["n"] == 100 and score["bfs"] == 0.7
    assert score["bfs_ori"] == pytest.approx(0.45) and score["s_amb"] == pytest.approx(0.1)
    assert score["s_dis"] == pytest.approx(0.2)  # (30 - 20) / 50
    # BBQ's s_AMB rescaled to (0, 1) and flipped is BFS_ori.
    assert 1 - (1 + score["s_amb"]) / 2 == pytest.approx(score["bfs_ori"])
    assert bias_free_score({"unrelated": 4})["bfs"] is None
    assert bias_free_score({"unknown": 5})["s_dis"] is None


@pytest.mark.parametrize(("k", "n"), [(0, 12), (7, 20), (38, 200), (199, 200), (5130, 10000)])
def test_wilson_interval_matches_scipy(k: int, n: int) -> None:
    score = bias_free_score({"anti": k, "biased": n - k})
    expected = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert score["ci_low"] == pytest.approx(expected.low, abs=1e-9)
    assert score["ci_high"] == pytest.approx(expected.high, abs=1e-9)


@pytest.mark.parametrize(
    ("labels", "judgments", "expected"),
    [
        (["biased", "biased", "anti"], 3, "biased"),
        (["unknown", "unknown", None], 3, "unknown"),
        (["biased", "anti", "unknown"], 3, None),
        (["biased", None, None], 3, None),  # one vote of three is no majority
        ([None, None, None], 3, None),
        (["anti"], 1, "anti"),
        (["anti", "anti", "biased", "biased", None], 5, None),
    ],
)
def test_majority_needs_more_than_half_of_all_judgments(
    labels: list[str | None], judgments: int, expected: str | None
) -> None:
    assert majority(labels, judgments) == expected


def _paired(
    rng: np.random.Generator, items: int, replicates: int, p_before: float, p_after: float
) -> tuple[dict[tuple[tuple[str, int], int], str], dict[tuple[tuple[str, int], int], str]]:
    before: dict[tuple[tuple[str, int], int], str] = {}
    after: dict[tuple[tuple[str, int], int], str] = {}
    for item in range(items):
        shift = rng.normal(0, 0.15)  # items differ, so replicates of an item are correlated
        for replicate in range(replicates):
            key = (("Age", item), replicate)
            before[key] = "anti" if rng.random() < p_before + shift else "biased"
            after[key] = "unknown" if rng.random() < p_after + shift else "biased"
    return before, after


def test_paired_difference_against_an_independent_item_bootstrap_and_sign_test() -> None:
    rng = np.random.default_rng(7)
    before, after = _paired(rng, items=300, replicates=2, p_before=0.4, p_after=0.5)
    before.pop((("Age", 0), 0))  # an answer one arm did not count is left out of the pairs
    result = paired_difference(before, after, resamples=4000, seed=1)
    pairs = sorted(before.keys() & after.keys())
    assert result["n_pairs"] == len(pairs) == 599 and result["n_items"] == 300
    free = {"anti", "unknown"}
    diffs = [int(after[k] in free) - int(before[k] in free) for k in pairs]
    assert result["difference"] == pytest.approx(sum(diffs) / len(diffs))
    # Our own bootstrap: resample items, recompute the pooled difference.
    by_item: dict[int, list[int]] = {}
    for key, d in zip(pairs, diffs, strict=True):
        by_item.setdefault(key[0][1], []).append(d)
    sums = np.array([sum(v) for v in by_item.values()])
    sizes = np.array([len(v) for v in by_item.values()])
    picks = np.random.default_rng(99).integers(0, len(sums), size=(4000, len(sums)))
    boot = sums[picks].sum(axis=1) / sizes[picks].sum(axis=1)
    low, high = np.percentile(boot, [2.5, 97.5])
    assert result["ci_low"] == pytest.approx(low, abs=0.01)
    assert result["ci_high"] == pytest.approx(high, abs=0.01)
    assert result["ci_low"] < result["difference"] < result["ci_high"]
    # McNemar's exact test is the two-sided sign test on the discordant pairs.
    better, worse = diffs.count(1), diffs.count(-1)
    assert (result["became_bias_free"], result["became_biased"]) == (better, worse)
    sign = stats.binomtest(better, better + worse, 0.5).pvalue
    assert result["p_mcnemar"] == pytest.approx(sign, rel=1e-9)


def test_resampling_items_widens_the_interval_when_replicates_agree() -> None:
    """Ten identical replicates per item carry the information of one answer: an interval
    that treated them as independent would be about sqrt(10) times too narrow."""
    rng = np.random.default_rng(3)
    before: dict[tuple[tuple[str, int], int], str] = {}
    after: dict[tuple[tuple[str, int], int], str] = {}
    for item in range(200):
        b = "anti" if rng.random() < 0.4 else "biased"
        a = "anti" if rng.random() < 0.5 else "biased"
        for replicate in range(10):
            before[(("Age", item), replicate)] = b
            after[(("Age", item), replicate)] = a
    result = paired_difference(before, after, resamples=2000, seed=0)
    diffs = np.array([int(after[k] == "anti") - int(before[k] == "anti") for k in sorted(after)])
    naive = 2 * 1.96 * diffs.std(ddof=1) / math.sqrt(len(diffs))
    assert result["ci_high"] - result["ci_low"] > 2.5 * naive


def test_no_shared_answers_gives_no_difference() -> None:
    result = paired_difference({(("Age", 1), 0): "anti"}, {}, resamples=200, seed=0)
    assert result["difference"] is None and result["n_pairs"] == 0
