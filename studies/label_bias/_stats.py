"""Label-bias metrics (seed 001) and calibration, over any labelled verdicts. Pure functions.

An *outcome* is one prompt: its reference label (the label the content alone would get, in
the paper the gold label), the judge's distribution over the labels, the context it was asked
in (for contextual calibration) and a group (the unit left out by leave-one-out).

- RSD: population standard deviation of the class-wise accuracies (over the reference labels
  present) divided by the overall accuracy; 0 when the accuracy is 0 (the paper's code).
- BiasScore: total-variation distance from uniform of the label-aware mean distribution (the
  mean, over reference labels present, of the mean distribution of their outcomes).
- Calibration: q proportional to p / p_hat, renormalised (the paper's code; ``softmax`` as the
  paper writes it is available). Contextual calibration takes p_hat from content-free inputs
  in the same context; leave-one-out takes the label-aware mean of every other group.

A prediction is the argmax; a tie between k labels counts 1/k for each (so an empirical
distribution from an even number of samples never breaks ties by label order).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

__all__ = [
    "LabelOutcome",
    "bias_score",
    "calibrate",
    "class_accuracies",
    "label_aware_mean",
    "label_bias_view",
    "label_metrics",
    "leave_one_out_priors",
    "rsd",
    "smoothed",
]

Calibration = Literal["renormalise", "softmax"]
_EPS = 1e-12


@dataclass(frozen=True)
class LabelOutcome:
    reference: str
    probs: Mapping[str, float]
    context: str = ""
    group: str = ""
    samples: int = 1
    tags: Mapping[str, str] = field(default_factory=dict)


def _predicted(probs: Mapping[str, float], label: str) -> float:
    best = max(probs.values())
    top = [name for name, value in probs.items() if value >= best - _EPS]
    return 1.0 / len(top) if label in top else 0.0


def class_accuracies(outcomes: Sequence[LabelOutcome]) -> dict[str, float]:
    by_class: dict[str, list[float]] = defaultdict(list)
    for outcome in outcomes:
        by_class[outcome.reference].append(_predicted(outcome.probs, outcome.reference))
    return {label: statistics.fmean(hits) for label, hits in sorted(by_class.items())}


def rsd(outcomes: Sequence[LabelOutcome]) -> float | None:
    """None with fewer than two reference labels present (no spread to measure)."""
    accuracies = class_accuracies(outcomes)
    if len(accuracies) < 2:
        return None
    accuracy = statistics.fmean(_predicted(o.probs, o.reference) for o in outcomes)
    return 0.0 if accuracy == 0 else statistics.pstdev(accuracies.values()) / accuracy


def label_aware_mean(outcomes: Sequence[LabelOutcome], labels: Sequence[str]) -> dict[str, float]:
    by_class: dict[str, list[Mapping[str, float]]] = defaultdict(list)
    for outcome in outcomes:
        by_class[outcome.reference].append(outcome.probs)
    means = [
        {label: statistics.fmean(p.get(label, 0.0) for p in members) for label in labels}
        for members in by_class.values()
    ]
    return {label: statistics.fmean(m[label] for m in means) for label in labels}


def bias_score(outcomes: Sequence[LabelOutcome], labels: Sequence[str]) -> float:
    mean = label_aware_mean(outcomes, labels)
    return 0.5 * sum(abs(mean[label] - 1.0 / len(labels)) for label in labels)


def smoothed(prior: Mapping[str, float], samples: int, labels: Sequence[str]) -> dict[str, float]:
    """Add half a sample to every label (Jeffreys), so a label never seen in the prior's
    samples does not divide by zero."""
    total = samples + 0.5 * len(labels)
    return {label: (samples * prior.get(label, 0.0) + 0.5) / total for label in labels}


def calibrate(
    probs: Mapping[str, float],
    prior: Mapping[str, float],
    method: Calibration = "renormalise",
) -> dict[str, float]:
    weighted = {label: probs.get(label, 0.0) / prior[label] for label in prior}
    if method == "softmax":
        top = max(weighted.values())
        exp = {label: math.exp(value - top) for label, value in weighted.items()}
        return {label: value / sum(exp.values()) for label, value in exp.items()}
    total = sum(weighted.values())
    return {label: value / total for label, value in weighted.items()}


def label_metrics(outcomes: Sequence[LabelOutcome], labels: Sequence[str]) -> dict[str, Any]:
    if not outcomes:
        return {"n": 0, "accuracy": None, "class_accuracy": {}, "rsd": None, "bias_score": None}
    referenced = all(o.reference in labels for o in outcomes)
    return {
        "n": len(outcomes),
        "accuracy": statistics.fmean(_predicted(o.probs, o.reference) for o in outcomes)
        if referenced
        else None,
        "class_accuracy": class_accuracies(outcomes),
        "rsd": rsd(outcomes) if referenced else None,
        "bias_score": bias_score(outcomes, labels),
        "mean_distribution": label_aware_mean(outcomes, labels),
    }


def leave_one_out_priors(
    outcomes: Sequence[LabelOutcome], labels: Sequence[str]
) -> dict[str, dict[str, float]] | None:
    """Per group, the smoothed label-aware mean of every other group's outcomes (None when
    there is only one group)."""
    groups = sorted({o.group for o in outcomes})
    if len(groups) < 2:
        return None
    priors = {}
    for group in groups:
        others = [o for o in outcomes if o.group != group]
        samples = sum(o.samples for o in others)
        priors[group] = smoothed(label_aware_mean(others, labels), samples, labels)
    return priors


def _calibrated(
    outcomes: Sequence[LabelOutcome],
    prior_of: Mapping[str, Mapping[str, float]],
    key: str,
    method: Calibration,
) -> list[LabelOutcome]:
    return [
        replace(o, probs=calibrate(o.probs, prior_of[getattr(o, key)], method))
        for o in outcomes
        if getattr(o, key) in prior_of
    ]


def label_bias_view(
    outcomes: Sequence[LabelOutcome],
    labels: Sequence[str],
    *,
    content_free: Mapping[str, tuple[Mapping[str, float], int]] | None = None,
    method: Calibration = "renormalise",
) -> dict[str, Any]:
    """RSD and BiasScore before calibration, after contextual calibration (when content-free
    priors per context are given) and after leave-one-out calibration (when there are at
    least two groups)."""
    view: dict[str, Any] = {"labels": list(labels), "before": label_metrics(outcomes, labels)}
    if content_free is not None:
        priors = {
            context: smoothed(prior, samples, labels)
            for context, (prior, samples) in content_free.items()
        }
        calibrated = _calibrated(outcomes, priors, "context", method)
        view["contextual"] = {
            **label_metrics(calibrated, labels),
            "uncalibrated_outcomes": len(outcomes) - len(calibrated),
            "priors": priors,
        }
    loo = leave_one_out_priors(outcomes, labels)
    if loo is not None:
        view["leave_one_out"] = label_metrics(_calibrated(outcomes, loo, "group", method), labels)
    return view
