"""The panel's combined answer from its judges' final judgments (mean, median or majority).

Apart from running a trial, so what recombines stored judgments (the simulator) loads no
model client.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from statistics import fmean, median
from typing import Any

from fairpanel.judging.protocol._judgment import METRICS, PairJudgment, SingleJudgment

__all__ = ["consensus_of"]

Judgment = SingleJudgment | PairJudgment


def _majority_score(values: Sequence[float]) -> float:
    counts = Counter(values).most_common()
    top = counts[0][1]
    return float(median(sorted(value for value, count in counts if count == top)))


def _median(values: Sequence[float]) -> float:
    return float(median(values))


_COMBINE: dict[str, Callable[[Sequence[float]], float]] = {
    "mean": fmean,
    "median": _median,
    "majority": _majority_score,
}


def consensus_of(
    judgments: Sequence[Judgment], judges: int, method: str = "mean"
) -> dict[str, Any]:
    """Combined scores per candidate and metric; majority winner for pairs."""
    combine = _COMBINE[method]
    scores: dict[str, dict[str, float]] = {}
    if judgments:
        for candidate in judgments[0].scores():
            scores[candidate] = {
                metric: float(combine([j.scores()[candidate][metric] for j in judgments]))
                for metric in METRICS
            }
    consensus: dict[str, Any] = {
        "method": method,
        "scores": scores,
        "valid_final": len(judgments),
        "judges": judges,
    }
    pair_votes = [j.winner for j in judgments if isinstance(j, PairJudgment)]
    if pair_votes:
        ranked = Counter(pair_votes).most_common()
        winner = ranked[0][0] if len(ranked) == 1 or ranked[0][1] > ranked[1][1] else None
        consensus["votes"] = dict(ranked)
        consensus["winner"] = winner
    return consensus
