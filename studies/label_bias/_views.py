"""Label-bias views shared by the label-bias study and the analysis of stored runs: turning
sampled verdicts into outcomes, and the display table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fairpanel.studies._base import result_table
from fairpanel.studies.label_bias._stats import LabelOutcome

__all__ = [
    "LEVELS",
    "PROBABILITY_METHOD",
    "label_bias_tables",
    "shares",
    "verdict_outcome",
]

LEVELS = tuple(str(level) for level in range(11))
PROBABILITY_METHOD = (
    "label probabilities are the empirical shares of the labels over the samples of each "
    "prompt (chat models return text, not label probabilities); ties in the argmax count "
    "1/k for each tied label"
)


def shares(labels: Iterable[str], space: Sequence[str]) -> tuple[dict[str, float], int]:
    """The share of each label of ``space`` among ``labels`` and how many there were."""
    counted = Counter(labels)
    total = sum(counted[label] for label in space)
    if total == 0:
        return {label: 0.0 for label in space}, 0
    return {label: counted[label] / total for label in space}, total


def verdict_outcome(
    picked: Iterable[str],
    space: Sequence[str],
    *,
    reference: str,
    context: str,
    group: str,
    tags: Mapping[str, str] | None = None,
) -> LabelOutcome | None:
    """One prompt's outcome from the labels its samples picked (None when none was valid)."""
    probs, samples = shares(picked, space)
    if samples == 0:
        return None
    return LabelOutcome(
        reference=reference,
        probs=probs,
        context=context,
        group=group,
        samples=samples,
        tags=dict(tags or {}),
    )


def _distribution(values: Mapping[str, float] | None) -> str:
    if not values:
        return "-"
    if len(values) > 4:  # score levels: the three most used
        top = sorted(values.items(), key=lambda entry: -entry[1])[:3]
        return ", ".join(f"{label}: {share:.2f}" for label, share in top) + ", ..."
    return ", ".join(f"{label}: {share:.2f}" for label, share in values.items())


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def label_bias_tables(views: Sequence[dict[str, Any]], title: str) -> list[dict[str, Any]]:
    rows = []
    for view in views:
        for stage in ("before", "contextual", "leave_one_out"):
            metrics = view.get(stage)
            if metrics is None:
                continue
            rows.append(
                [
                    view["name"],
                    {"before": "none", "contextual": "contextual", "leave_one_out": "LOO"}[stage],
                    metrics["n"],
                    _round(metrics["accuracy"]),
                    _round(metrics["rsd"]),
                    _round(metrics["bias_score"]),
                    _distribution(metrics.get("mean_distribution")),
                ]
            )
    return [
        result_table(
            title,
            [
                "labels",
                "calibration",
                "prompts",
                "reference acc.",
                "RSD",
                "BiasScore",
                "label-aware mean",
            ],
            rows,
            note="Reference label: the label the content alone decides (the position or "
            "identity carrying response 1, or the correct option); score levels have none. "
            "Lower RSD and BiasScore are better.",
        )
    ]
