"""The control arms: what the pipeline calls where no identity can matter.

A control arm earns its name only if the tests the headline rests on run on it. The placebo
arm labels the two sides of a pair (and the single-candidate trials) with two distinct neutral
codes of the ``control`` category, so its own analysis (``analyze_arm``, which the run folder
already computes for every arm) puts it through the full headline rule: the same primary
family, the same correction, the same verdict sentence. Its identity verdict is one draw of the
pipeline's run-level false-positive rate with the real judges, on every run.

The same-label arm shows one identity on both sides, so its own headline has no contrast to
test. What it offers instead is a pseudo label swap: arrangements (a, a) and (b, b) of the same
answers in the same order are matched as if a had been swapped for b, and the swap contrast is
tested with the cluster test the headline uses (per matched unit (o_a - o_b) / 2, where o is the
front answer's outcome, win 1, tie 0.5, loss 0; base-scenario means; one-sample t). Both sides
carry the same label, so a rejection is a false positive of the pipeline, or a label that
changes how the judge compares two answers, which is worth knowing too. Each label pair is one
test at unadjusted alpha: the rate of rejections is the thing measured, not a verdict.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from fairpanel.analysis._frames import (
    BASE_ID,
    CATEGORY,
    FIRST_IDENTITY,
    FIRST_RESPONSE_INDEX,
    SECOND_IDENTITY,
    WINNER_POSITION,
    jsonable,
)
from fairpanel.analysis.results import ArmResults, HeadlineBlock
from fairpanel.analysis.tools import cluster_mean_test
from fairpanel.analysis.verdict._paired import OPTIONAL_DESIGN, with_design_columns

__all__ = ["CONTROL_NOTE", "control_false_positives", "same_label_swap_tests"]

_MATCH_KEYS = [BASE_ID, "scenario_id", *OPTIONAL_DESIGN, FIRST_RESPONSE_INDEX]
"""What a pseudo swap holds fixed: the scenario, the design cell and the answer shown first."""

SWAP_TEST = "cluster t (base-scenario means)"

CONTROL_NOTE = (
    "control arms carry no identity contrast: placebo pairs two distinct neutral labels, so its "
    "identity verdict is the full headline rule (primary family, Holm) run where the true answer "
    "is 'no effect'; same_label shows one identity on both sides, so its own headline has "
    "nothing to test and its label-swap pseudo-tests (cluster t over base scenarios, each label "
    "pair at unadjusted alpha) measure the swap test's false-positive rate. One run is one draw: "
    "a control verdict of 'effect' says the main arm's calls need a second look, and a clean "
    "one does not prove the rate is at alpha"
)


def _front_outcome(rows: pd.DataFrame) -> pd.Series:
    """The front answer's outcome: won 1, tie (no majority) 0.5, lost 0."""
    position = pd.to_numeric(rows[WINNER_POSITION], errors="coerce")
    values = np.select([position == 0.0, position == 1.0], [1.0, 0.0], 0.5)
    return pd.Series(values, index=rows.index, dtype=float)


def _pseudo_swaps(rows: pd.DataFrame, a: str, b: str) -> pd.DataFrame:
    """(a, a) and (b, b) arrangements matched on everything else; ``value`` = (o_a - o_b) / 2."""
    keys = [k for k in _MATCH_KEYS if k in rows.columns]
    scored = rows.assign(outcome=_front_outcome(rows))
    under_a = scored.loc[scored[FIRST_IDENTITY] == a, [*keys, "outcome"]]
    under_b = scored.loc[scored[FIRST_IDENTITY] == b, [*keys, "outcome"]]
    matched = under_a.merge(under_b, on=keys, suffixes=("_a", "_b"))
    return matched.assign(value=(matched["outcome_a"] - matched["outcome_b"]) / 2.0)


def same_label_swap_tests(
    verdicts: pd.DataFrame, alpha: float = 0.05, confidence: float = 0.95
) -> dict[str, Any]:
    """The same-label arm's pseudo label swaps, one cluster test per category and label pair.

    ``tests`` counts the label pairs that got a p-value; ``rejected`` those with p < ``alpha``
    (unadjusted); ``untested`` the reasons the others got none (too few base scenarios).
    """
    frame = with_design_columns(verdicts)
    same = frame.loc[frame[FIRST_IDENTITY].astype(str) == frame[SECOND_IDENTITY].astype(str)]
    rows: list[dict[str, Any]] = []
    for category in sorted({str(c) for c in same[CATEGORY].unique()}):
        members = same.loc[same[CATEGORY].astype(str) == category]
        labels = sorted({str(v) for v in members[FIRST_IDENTITY]})
        for a, b in itertools.combinations(labels, 2):
            matched = _pseudo_swaps(members, a, b)
            if matched.empty:
                continue
            test = cluster_mean_test(
                matched["value"].to_numpy(), matched[BASE_ID].to_numpy(), confidence=confidence
            )
            rows.append(
                {
                    "category": category,
                    "contrast": f"{a} vs {b}",
                    "estimate": test.estimate,
                    "ci_low": test.ci_low,
                    "ci_high": test.ci_high,
                    "p_value": test.p_value,
                    "n": test.n,
                    "n_clusters": test.n_clusters,
                    "rejected": test.p_value is not None and test.p_value < alpha,
                    "reason": test.reason,
                }
            )
    tested = [row for row in rows if row["p_value"] is not None]
    rejected = sum(1 for row in tested if row["rejected"])
    return {
        "tests": len(tested),
        "rejected": rejected,
        "rate": rejected / len(tested) if tested else None,
        "alpha": alpha,
        "untested": sorted({str(row["reason"]) for row in rows if row["p_value"] is None}),
        "rows": rows,
        "test": SWAP_TEST,
        "method": (
            "(a, a) and (b, b) arrangements of the same answers in the same order, matched as "
            "a label swap; per matched unit (o_a - o_b) / 2 with the front answer's outcome o "
            "(win 1, tie 0.5, loss 0); one-sample t test of the base-scenario means against 0 "
            f"(B - 1 df), {confidence:.0%} t interval; each label pair is one test and "
            f"p < {alpha:g} unadjusted counts as a rejection"
        ),
    }


def _arm_block(results: ArmResults) -> dict[str, Any]:
    """An arm's own headline, as the main arm's is read (an arm without one reads as untested)."""
    headline = results.headline or HeadlineBlock()
    return {
        "n_trials": sum(int(v) for v in results.n_trials.values()),
        "n_verdicts": int(results.n_trials.get("pair", 0)),
        "identity_effect": headline.identity_effect,
        "verdict": headline.verdict,
        "position_bias": headline.position_bias,
        "position": headline.position,
        "primary_tests": int(headline.tests or 0),
        "detected": list(headline.detected),
    }


def control_false_positives(
    arms: Mapping[str, ArmResults],
    verdicts: Mapping[str, pd.DataFrame],
    *,
    alpha: float = 0.05,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """Per control arm: its own headline (identity verdict, position claim, primary family
    size), from the arm's analysis in ``arms``; for the same-label arm also the pseudo label
    swaps over its consensus ``verdicts``. Arms without trials are left out; a ``note`` says
    what the blocks measure."""
    out: dict[str, Any] = {}
    for name, results in arms.items():
        if not sum(int(v) for v in results.n_trials.values()):
            continue
        block = _arm_block(results)
        arm_verdicts = verdicts.get(name)
        if name == "same_label" and arm_verdicts is not None and not arm_verdicts.empty:
            block["label_swap_tests"] = same_label_swap_tests(arm_verdicts, alpha, confidence)
        out[name] = block
    if out:
        out["note"] = CONTROL_NOTE
    result: dict[str, Any] = jsonable(out)
    return result
