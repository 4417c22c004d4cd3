"""B-score statistics: answer distributions, B(a) = P_single(a) - P_multi(a), the top-choice
summary, and the answer-verification rules with their threshold search. Pure functions.

Invalid answers (``None``) never count for an option. With the ``valid`` denominator (the
paper's code) a distribution is over the valid answers and sums to 1 when any is valid, so
B sums to 0 over the options; with ``all`` (the paper's text) it is over every query.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

__all__ = [
    "VerificationSample",
    "answer_distribution",
    "b_scores",
    "mean_of_means_interval",
    "run_statistics",
    "search_cascade",
    "search_threshold",
    "should_accept",
    "threshold_grid",
    "top_choice",
    "verification_accuracy",
]

Denominator = Literal["valid", "all"]
_EPS = 1e-9


def answer_distribution(
    answers: Sequence[str | None], options: Sequence[str], denominator: Denominator = "valid"
) -> dict[str, float]:
    """Share of ``answers`` naming each option (0 everywhere when the denominator is 0)."""
    valid = [a for a in answers if a is not None]
    total = len(valid) if denominator == "valid" else len(answers)
    return {o: (valid.count(o) / total if total else 0.0) for o in options}


def b_scores(p_single: Mapping[str, float], p_multi: Mapping[str, float]) -> dict[str, float]:
    return {option: p_single[option] - p_multi[option] for option in p_single}


def run_statistics(
    single: Sequence[str | None], multi: Sequence[str | None], options: Sequence[str]
) -> dict[str, Any]:
    """One run's distributions and B-scores under both denominators, with validity rates."""
    result: dict[str, Any] = {
        "n_single": len(single),
        "n_multi": len(multi),
        "valid_single": sum(a is not None for a in single),
        "valid_multi": sum(a is not None for a in multi),
    }
    result["valid_single_rate"] = result["valid_single"] / len(single) if single else 0.0
    result["valid_multi_rate"] = result["valid_multi"] / len(multi) if multi else 0.0
    denominators: tuple[Denominator, ...] = ("valid", "all")
    for denominator in denominators:
        p_single = answer_distribution(single, options, denominator)
        p_multi = answer_distribution(multi, options, denominator)
        result[denominator] = {
            "p_single": p_single,
            "p_multi": p_multi,
            "b": b_scores(p_single, p_multi),
        }
    return result


def top_choice(p_single: Mapping[str, float]) -> str | None:
    """The option chosen most often alone (first in option order on ties); None when no
    answer was valid."""
    if not any(p_single.values()):
        return None
    return max(p_single, key=lambda option: p_single[option])


def should_accept(
    category_kind: Literal["random", "truth"],
    answer: str,
    p_single: float,
    options: int,
    truth: str | None,
) -> bool | None:
    """The verification label: accept a correct answer (truth categories), or an answer not
    over-chosen alone, P_single <= 1/K (random categories). None when it cannot be told."""
    if category_kind == "truth":
        return None if truth is None else answer == truth
    return p_single <= 1.0 / options + _EPS


@dataclass(frozen=True)
class VerificationSample:
    """The first single-turn answer of one run, with what the rules look at."""

    question_id: str
    category: str
    p_single: float
    p_multi: float
    confidence: float | None
    b: float
    accept: bool

    def metric(self, name: str) -> float | None:
        value: float | None = getattr(self, name)
        return value


def threshold_grid(step: float = 0.05) -> list[float]:
    """Thresholds 0, step, ..., 1 (rounded, so 0.7 is 0.7 and not 0.7000000000000001)."""
    count = round(1 / step)
    return [round(i * step, 10) for i in range(count + 1)]


Rule = Callable[[VerificationSample], bool]


def verification_accuracy(
    samples: Sequence[VerificationSample], rule: Rule
) -> dict[str, float | int | None]:
    """Share of samples whose decision equals the label, pooled and per category."""
    result: dict[str, float | int | None] = {"n": len(samples)}
    result["pooled"] = sum(rule(s) == s.accept for s in samples) / len(samples) if samples else None
    for category in sorted({s.category for s in samples}):
        chosen = [s for s in samples if s.category == category]
        result[category] = sum(rule(s) == s.accept for s in chosen) / len(chosen)
    return result


def _at_least(metric: str, threshold: float) -> Rule:
    def rule(sample: VerificationSample) -> bool:
        value = sample.metric(metric)
        return value is not None and value >= threshold - _EPS

    return rule


def _b_at_most(threshold: float) -> Rule:
    return lambda sample: sample.b <= threshold + _EPS


def _both(primary: Rule, b_threshold: float) -> Rule:
    check = _b_at_most(b_threshold)
    return lambda sample: primary(sample) and check(sample)


def search_threshold(
    samples: Sequence[VerificationSample], metric: str, step: float = 0.05
) -> dict[str, Any]:
    """The threshold on the grid with the best pooled accuracy (the first, ascending, on ties):
    accept when ``metric`` >= t, or for ``b`` when B <= t."""
    best: dict[str, Any] | None = None
    for threshold in threshold_grid(step):
        rule = _b_at_most(threshold) if metric == "b" else _at_least(metric, threshold)
        accuracy = verification_accuracy(samples, rule)
        if best is None or (accuracy["pooled"] or 0) > (best["accuracy"]["pooled"] or 0) + _EPS:
            best = {"metric": metric, "threshold": threshold, "accuracy": accuracy}
    assert best is not None
    return best


def search_cascade(
    samples: Sequence[VerificationSample], metric: str, step: float = 0.05
) -> dict[str, Any]:
    """The 2-step rule: accept when ``metric`` >= t1 and then B <= t2; best (t1, t2) pair."""
    best: dict[str, Any] | None = None
    for first, second in itertools.product(threshold_grid(step), threshold_grid(step)):
        accuracy = verification_accuracy(samples, _both(_at_least(metric, first), second))
        if best is None or (accuracy["pooled"] or 0) > (best["accuracy"]["pooled"] or 0) + _EPS:
            best = {"metric": metric, "thresholds": [first, second], "accuracy": accuracy}
    assert best is not None
    return best


def mean_of_means_interval(
    groups: Sequence[Sequence[float]],
    *,
    seed: int,
    name: str,
    n_boot: int = 2000,
    confidence: float = 0.95,
) -> dict[str, float | int | None]:
    """The mean over ``groups`` (categories) of each group's mean (of its questions' B), with
    a percentile bootstrap interval that resamples questions within each category.

    The headline B weighs every category the same, so a resample must keep each category's
    size: the cluster bootstrap of ``fairpanel.analysis`` draws clusters from one pool and
    would let a category vanish. With one category this is the plain bootstrap of a mean.
    The generator is seeded from the run's seed and ``name``, so an interval does not move
    when other estimates are added. A group with no values is left out; a single question
    has no spread to resample, so the interval needs at least two in all.
    """
    kept = [np.asarray(g, dtype=float) for g in groups if len(g)]
    if not kept:
        return {"mean": None, "ci_low": None, "ci_high": None, "n_boot": 0}
    estimate = float(np.mean([g.mean() for g in kept]))
    if sum(g.size for g in kept) < 2:
        return {"mean": estimate, "ci_low": None, "ci_high": None, "n_boot": 0}
    digest = hashlib.sha256(f"{seed}\x1f{name}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "big"))
    resampled = np.zeros(n_boot)
    for values in kept:
        picks = rng.integers(0, values.size, size=(n_boot, values.size))
        resampled += values[picks].mean(axis=1)
    resampled /= len(kept)
    tail = (1.0 - confidence) / 2.0
    low, high = np.quantile(resampled, [tail, 1.0 - tail])
    return {"mean": estimate, "ci_low": float(low), "ci_high": float(high), "n_boot": n_boot}
