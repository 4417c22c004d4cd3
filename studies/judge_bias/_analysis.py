"""The judge-bias study's analysis: its stored judgments as a frame of paired outcomes, and
the bias-sensitive rate of each manipulation from them.

Apart from the study's run so that designing or estimating it loads neither pandas nor the
statistics; the study reaches it through its package's face when it analyses a run."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from fairpanel.judging.manipulation import word_count
from fairpanel.studies.judge_bias._config import JudgeBiasConfig
from fairpanel.studies.judge_bias._design import UNTOUCHED, JudgeBiasItem
from fairpanel.studies.judge_bias._stats import (
    OUTCOME_COLUMNS,
    bias_sensitivity,
    holm,
    paired_outcomes,
)
from fairpanel.studies.judge_bias._tables import judge_bias_tables

if TYPE_CHECKING:
    from fairpanel.judging.store import StudyItemRecord

__all__ = ["analyze_judge_bias"]


def analyze_judge_bias(
    records: Sequence[StudyItemRecord], config: JudgeBiasConfig
) -> dict[str, Any]:
    """The bias-sensitive rate of each manipulation over a run's stored judgments, with its
    reverse, McNemar's test, the item bootstrap and Holm over the manipulations."""
    rows = []
    failed = 0
    lengths: dict[str, list[float]] = defaultdict(list)
    for record in records:
        item = JudgeBiasItem.model_validate(record.spec)
        if record.status != "ok" or record.result is None:
            failed += 1
            continue
        right = record.result.get("right")
        shown = str(record.result.get("wrong_shown", item.wrong))
        lengths[item.arm].append(word_count(shown) / max(1, word_count(item.wrong)))
        rows.append(
            [item.bbq_key, item.order, item.replicate, item.category, item.arm,
             float("nan") if right is None else float(right)]
        )  # fmt: skip
    outcomes = pd.DataFrame(rows, columns=OUTCOME_COLUMNS)
    specs = config.specs()
    found = [
        {
            "label": spec.label,
            "kind": spec.kind,
            "control": spec.control,
            **bias_sensitivity(
                outcomes,
                UNTOUCHED,
                spec.label,
                resamples=config.bootstrap_resamples,
                seed=config.seed,
            ),
            "by_category": _by_category(outcomes, spec.label),
            "length_ratio": float(np.mean(lengths[spec.label])) if lengths[spec.label] else None,
        }
        for spec in specs
    ]
    _excess_over_control(found)
    for row, adjusted in zip(found, holm([r["p_mcnemar"] for r in found]), strict=True):
        row["p_holm"] = adjusted
        row["called"] = adjusted is not None and adjusted < 0.05
    untouched = outcomes[outcomes["arm"] == UNTOUCHED]["right"]
    results: dict[str, Any] = {
        "n_judgments": len(outcomes),
        "n_failed": failed,
        "unreadable_verdicts": int(outcomes["right"].isna().sum()),
        "accuracy_untouched": None if untouched.dropna().empty else float(untouched.mean()),
        "manipulations": found,
        "method": (
            "Each BBQ ambiguous item is judged as a pair (the correct 'cannot be determined' "
            "answer and the stereotyped person's), wrong answer first and second, untouched "
            "and with each manipulation applied to the wrong answer. Bias-sensitive rate: "
            "the share of (item, order) pairs judged right untouched and wrong manipulated "
            "(JudgeBiasBench); reverse: wrong untouched and right manipulated. McNemar's "
            "exact test on the paired outcomes (statsmodels), Holm over the manipulations "
            "and the same-text control; 95% percentile bootstrap interval of the rate over "
            f"BBQ items ({config.bootstrap_resamples} resamples, both orders of an "
            "item together). Unreadable verdicts drop their pair."
        ),
    }
    results["tables"] = judge_bias_tables(results, config.categories)
    return results


def _excess_over_control(rows: list[dict[str, Any]]) -> None:
    """Each row's rate minus the same-text control's: the flips a judge makes on no change
    at all (sampling, or a verdict that is a coin on any new request) are in every rate."""
    control = next((row["rate"] for row in rows if row["control"]), None)
    for row in rows:
        row["excess"] = None if control is None or row["rate"] is None else row["rate"] - control


def _by_category(outcomes: pd.DataFrame, arm: str) -> dict[str, float]:
    """The bias-sensitive rate of ``arm`` within each BBQ category (no interval)."""
    paired = paired_outcomes(outcomes, UNTOUCHED, arm)
    flips = paired["right_untouched"] & ~paired["right_manipulated"]
    return {str(c): float(share) for c, share in flips.groupby(paired["category"]).mean().items()}
