"""What the debate does to the judges' scores: each judge's final score minus its own first
score on the same candidate, by identity (``debate_shift``), and whether that move went toward
the other judges' first-round mean (``conformity``).

A million-turn run has millions of score rows and a trial key with one category per trial, so
the first and final rounds are matched on integer codes of the candidate's columns and the
groups are taken by mask, not by pandas merges and groupbys over categoricals. The groups, the
rows inside each group and the sums are those of the pandas formulation they replace (groups
sorted by their keys, rows in frame order, pandas' own group means), so the numbers are too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from fairpanel.analysis._frames import (
    BASE_ID,
    CATEGORY,
    IDENTITY,
    JUDGE,
    METRIC,
    OVERALL,
    POSITION,
    PROTOCOL,
    ROUND_KIND,
    SCORE,
    TRIAL_KEY,
    float_or_none,
)
from fairpanel.analysis.tools import (
    DEFAULT_BOOTSTRAP,
    bootstrap_mean,
    combined_codes,
    dense_codes,
    seed_for,
    sort_codes,
)

CANDIDATE = [TRIAL_KEY, POSITION, METRIC]
SCORED = [TRIAL_KEY, PROTOCOL, BASE_ID, CATEGORY, IDENTITY, POSITION, JUDGE]
"""A judge's candidate in a trial; with the metric, the key a first and a final score share."""

Rows = npt.NDArray[np.intp]
Labels = npt.NDArray[np.integer[Any]]


def _matched_rows(scores: pd.DataFrame) -> tuple[Rows, Rows]:
    """Positions of the first-round and final-round rows with the same candidate, judge and
    metric, as an inner merge pairs them: in first-round row order, each first row with every
    matching final row in frame order (missing keys match missing keys, as in pandas)."""
    kinds = scores[ROUND_KIND]
    first = np.flatnonzero((kinds == "first").to_numpy(dtype=bool))
    final = np.flatnonzero((kinds == "final").to_numpy(dtype=bool))
    keys = [*SCORED, METRIC]
    first_key, _ = combined_codes(scores, keys, missing_matches=True, rows=first)
    final_key, _ = combined_codes(scores, keys, missing_matches=True, rows=final)
    order = np.argsort(final_key, kind="stable")
    sorted_final = final_key[order]
    low = np.searchsorted(sorted_final, first_key, side="left")
    high = np.searchsorted(sorted_final, first_key, side="right")
    count = high - low
    left = np.repeat(np.arange(first.size), count)
    starts = np.repeat(low - (np.cumsum(count) - count), count)
    right = order[np.arange(left.size) + starts]
    return first[left], final[right]


def first_and_final(scores: pd.DataFrame) -> pd.DataFrame:
    """One row per (trial, candidate, judge, metric) scored in both the first and final round."""
    keys = [*SCORED, METRIC]
    first, final = _matched_rows(scores)
    both = scores[keys].iloc[first].reset_index(drop=True)
    both["score_first"] = scores[SCORE].to_numpy()[first]
    both["score_final"] = scores[SCORE].to_numpy()[final]
    return both


def _shift_row(
    name: tuple[str, str, str, str],
    first: npt.NDArray[np.float64],
    final: npt.NDArray[np.float64],
    bases: pd.Categorical[str],
    *,
    confidence: float,
    seed: int,
    n_boot: int,
) -> dict[str, Any]:
    protocol, category, identity, metric = name
    change = final - first
    interval = bootstrap_mean(
        change,
        bases,
        seed=seed_for(seed, "debate", *name),
        confidence=confidence,
        n_boot=n_boot,
    )
    return {
        "protocol": protocol,
        "category": category,
        "identity": identity,
        "metric": metric,
        "first_mean": float_or_none(pd.Series(first).mean()),
        "final_mean": float_or_none(pd.Series(final).mean()),
        "shift": float_or_none(change.mean()),
        "ci_low": interval.low,
        "ci_high": interval.high,
        "confidence": confidence,
        "n": int(change.size),
        "method": (
            "final-round minus first-round score of the same judge on the same "
            "candidate (overall = mean of the four metrics); mean with a "
            f"{interval.describe(confidence)}"
        ),
    }


def _labels(column: pd.Series) -> tuple[Labels, list[str]]:
    """A column's codes in sorted-groupby order and the names they stand for; a categorical's
    own narrow codes (only the rows a group takes are ever widened)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        narrow: Labels = column.cat.codes.to_numpy()
        return narrow, [str(c) for c in column.cat.categories]
    codes, _ = sort_codes(column)
    return codes, sorted(str(v) for v in pd.unique(column.dropna()))


def _groups(
    labels: list[tuple[Labels, list[str]]], rows: Rows
) -> list[tuple[tuple[int, ...], tuple[str, ...], Rows]]:
    """Each combination of the labels found at ``rows`` (none missing): its codes, its names
    and its positions in ``rows`` (ascending, what a mask over ``rows`` would select). The
    positions come from one stable sort of the combined key, not a mask per combination."""
    picked = np.stack([codes[rows] for codes, _ in labels])
    valid = (picked >= 0).all(axis=0)
    key = np.zeros(rows.size, dtype=np.int64)
    for row, (_, names) in zip(picked, labels, strict=True):
        key = key * max(len(names), 1) + np.maximum(row, 0)
    key[~valid] = -1
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    # Keys sort as their code tuples do; each run of one key is a combination, its first
    # position (the smallest, the sort being stable) gives its codes.
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], ordered.size]
    out = []
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        if ordered[start] < 0:
            continue  # a missing label
        positions = order[start:end]
        combo = tuple(int(code) for code in picked[:, positions[0]])
        found = tuple(names[c] for (_, names), c in zip(labels, combo, strict=True))
        out.append((combo, found, positions))
    return out


def debate_shift(
    scores: pd.DataFrame,
    *,
    confidence: float = 0.95,
    seed: int = 0,
    n_boot: int = DEFAULT_BOOTSTRAP,
    matched: tuple[Rows, Rows] | None = None,
) -> list[dict[str, Any]]:
    """Mean change from a judge's first to its final score, by protocol, identity and metric.

    ``overall`` is each (trial, candidate, judge)'s mean over its metrics, first and final.
    Groups come in the order a groupby over (protocol, category, identity, metric) gives them
    once the overall rows are added: the labels by their codes, the metric by its name.
    """
    first, final = matched if matched is not None else _matched_rows(scores)
    if first.size == 0:
        return []
    values = scores[SCORE].to_numpy(dtype=float)
    before, after = values[first], values[final]
    # Each judge's candidate: its mean over metrics (pandas' group mean, in key order), and
    # one row of it (the first, in key order) for its labels and base.
    candidate, _ = combined_codes(scores, SCORED, rows=first)
    dense, _ = dense_codes(candidate)
    kept = np.flatnonzero(dense >= 0)
    means = pd.DataFrame({"first": before[kept], "final": after[kept]}).groupby(dense[kept]).mean()
    _, leader = np.unique(dense[kept], return_index=True)
    leaders = first[kept[leader]]
    labels = [_labels(scores[column]) for column in (PROTOCOL, CATEGORY, IDENTITY)]
    base_codes, base_names = _labels(scores[BASE_ID])
    found: list[tuple[tuple[Any, ...], tuple[str, ...], Any, Any, Labels]] = []
    first_bases = base_codes[first]
    for codes, names, mine in _groups([*labels, _labels(scores[METRIC])], first):
        order = (*codes[:3], names[3])
        found.append((order, names, before[mine], after[mine], first_bases[mine]))
    means_first, means_final = means["first"].to_numpy(), means["final"].to_numpy()
    leader_bases = base_codes[leaders]
    for codes, names, mine in _groups(labels, leaders):
        order = (*codes, OVERALL)
        found.append(
            (order, (*names, OVERALL), means_first[mine], means_final[mine], leader_bases[mine])
        )
    found.sort(key=lambda item: item[0])
    return [
        _shift_row(
            names,  # type: ignore[arg-type]
            mean_first,
            mean_final,
            pd.Categorical.from_codes(bases, categories=pd.Index(base_names)),
            confidence=confidence,
            seed=seed,
            n_boot=n_boot,
        )
        for _, names, mean_first, mean_final, bases in found
    ]


def conformity(
    scores: pd.DataFrame, *, matched: tuple[Rows, Rows] | None = None
) -> list[dict[str, Any]]:
    """Per judge: how often its final score is nearer to / farther from the other judges'
    first-round mean than its own first score was (same candidate, metric and trial)."""
    is_first = (scores[ROUND_KIND] == "first").to_numpy(dtype=bool)
    if not is_first.any():
        return []
    values = scores[SCORE].to_numpy(dtype=float)
    first_rows = np.flatnonzero(is_first)
    candidate, _ = combined_codes(scores, CANDIDATE, rows=first_rows)
    dense = np.full(len(scores), -1, dtype=np.int64)
    dense[first_rows] = dense_codes(candidate)[0]
    counted = np.flatnonzero(dense >= 0)
    # pandas' group sum and count (what a groupby over the candidate columns gives).
    totals = pd.Series(values[counted]).groupby(dense[counted]).agg(["sum", "count"])
    sums = np.full(int(dense.max()) + 1, np.nan)
    counts = np.zeros(sums.size)
    sums[totals.index.to_numpy()] = totals["sum"].to_numpy(dtype=float)
    counts[totals.index.to_numpy()] = totals["count"].to_numpy(dtype=float)
    first, final = matched if matched is not None else _matched_rows(scores)
    first_dense = dense[first]
    total = np.where(first_dense >= 0, sums[first_dense], np.nan)
    count = np.where(first_dense >= 0, counts[first_dense], np.nan)
    keep = count >= 2
    first, final, total, count = first[keep], final[keep], total[keep], count[keep]
    others = (total - values[first]) / (count - 1)
    before = np.abs(values[first] - others)
    after = np.abs(values[final] - others)
    toward, away = after < before, after > before
    judges, names = _labels(scores[JUDGE])
    rows: list[dict[str, Any]] = []
    first_judges = judges[first]
    for code in np.unique(first_judges[first_judges >= 0]):
        mine = first_judges == code
        share_toward = float(pd.Series(toward[mine]).mean())
        share_away = float(pd.Series(away[mine]).mean())
        rows.append(
            {
                "judge": names[code],
                "moved_toward_others": share_toward,
                "moved_away": share_away,
                "unchanged_distance": float(1.0 - share_toward - share_away),
                "n": int(mine.sum()),
                "method": (
                    "per (trial, candidate, metric): toward when |final - m| < |first - m|, "
                    "away when greater, where m is the mean of the other judges' first-round "
                    "scores; shares of the judge's candidates scored in both rounds"
                ),
            }
        )
    return rows


def debate(
    scores: pd.DataFrame,
    *,
    confidence: float = 0.95,
    seed: int = 0,
    n_boot: int = DEFAULT_BOOTSTRAP,
) -> dict[str, list[dict[str, Any]]]:
    """results.json's ``debate`` block: ``shift_by_identity`` and ``conformity``, the first and
    final rounds matched once for both."""
    matched = _matched_rows(scores)
    return {
        "shift_by_identity": debate_shift(
            scores, confidence=confidence, seed=seed, n_boot=n_boot, matched=matched
        ),
        "conformity": conformity(scores, matched=matched),
    }
