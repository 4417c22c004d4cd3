"""The mock's random effects (judge leniency, halo, shared trial noise) and its signed position
preference, measured on its replies: each effect has the planted standard deviation (within a
tolerance set by the sample size), belongs to what it says it belongs to, and is absent at 0.

Each effect is isolated by answering the same requests twice, with and without it, under the
same seed: base, noise and dither draws are then identical, so the per-metric differences are
the effect as applied (whole points, the fraction as one more point in that share)."""

from __future__ import annotations

import json
import math
import statistics
from typing import Any

from scipy.stats import binomtest, kstest

from fairpanel.agents import Message, MockBias, ModelRequest, mock_reply
from fairpanel.judging import judge_ask, judge_context, output_schema

METRICS = ("creativity", "accuracy", "efficiency", "reliability")
# No uniform noise and a mid-scale base: the effects never reach 0 or 10, so none is clipped.
QUIET = {"noise": 0, "base_score": 5.0, "seed": 7}


def _request(
    case: int, persona: str, *, author: str = "female", replicate: int = 0, pair: bool = False
) -> ModelRequest:
    shown = [(author, f"Answer {case}: warm up, then squats.")]
    if pair:
        shown.append(("male", f"Answer {case}: stretch, then lunges."))
    context = judge_context(f"Case {case}: plan a session.", shown)
    return ModelRequest(
        model="mock/judge",
        messages=(
            Message(role="system", content=context),
            Message(role="system", content=persona),
            Message(role="user", content=judge_ask(len(shown))),
        ),
        response_schema=output_schema("pair" if pair else "single"),
        replicate=replicate,
    )


def _scores(request: ModelRequest, bias: MockBias) -> list[int]:
    reply: dict[str, Any] = json.loads(mock_reply(request, bias))
    return [int(reply[metric]) for metric in METRICS]


def _effect(request: ModelRequest, **sd: float) -> list[int]:
    """Per metric: the score with the effect minus the score without it."""
    with_it = _scores(request, MockBias(**QUIET, **sd))
    without = _scores(request, MockBias(**QUIET))
    return [a - b for a, b in zip(with_it, without, strict=True)]


def _sd_tolerance(sd: float, n: int, extra_variance: float) -> float:
    """Four standard errors of a sample standard deviation of ``n`` normal values whose true
    variance is ``sd**2`` plus ``extra_variance`` (the dither's), plus the bias that extra
    variance adds: a wrong sd fails, sampling noise does not."""
    total = sd**2 + extra_variance
    return 4 * math.sqrt(total / (2 * (n - 1))) + (math.sqrt(total) - sd)


def test_defaults_draw_nothing_and_keep_every_answer() -> None:
    for case in range(50):
        request = _request(case, "You are judge 1.", pair=True)
        zeros = MockBias(judge_leniency_sd=0.0, halo_sd=0.0, trial_noise_sd=0.0)
        assert mock_reply(request, MockBias()) == mock_reply(request, zeros)


def test_normal_draws_are_standard_normal() -> None:
    from fairpanel.agents.providers._mock_draws import normal

    draws = [normal("check", str(i)) for i in range(4000)]
    assert kstest(draws, "norm").pvalue > 0.001


def test_judge_leniency_is_one_constant_per_judge_with_the_planted_sd() -> None:
    sd, judges, cases = 0.8, 300, 6
    means = []
    for judge in range(judges):
        persona = f"You are judge {judge}, an expert."
        diffs = [
            d
            for case in range(cases)
            for d in _effect(_request(case, persona), judge_leniency_sd=sd)
        ]
        # Constant: whole points plus a dithered fraction, so every difference is one of two
        # neighbouring integers for one judge across tasks, labels and metrics.
        assert max(diffs) - min(diffs) <= 1, diffs
        means.append(statistics.mean(diffs))
    # Each mean carries at most 0.25 / 24 of dither variance.
    assert abs(statistics.stdev(means) - sd) < _sd_tolerance(sd, judges, 0.25 / (4 * cases))
    assert abs(statistics.mean(means)) < 4 * sd / math.sqrt(judges)
    # Another seed draws every judge afresh.
    reseeded = MockBias(noise=0, base_score=5.0, seed=8, judge_leniency_sd=sd)
    plain = MockBias(noise=0, base_score=5.0, seed=8)
    other = []
    for judge in range(100):
        request = _request(0, f"You are judge {judge}, an expert.")
        pairs = zip(_scores(request, reseeded), _scores(request, plain), strict=True)
        other.append(statistics.mean(a - b for a, b in pairs))
    assert abs(statistics.correlation(means[:100], other)) < 0.4


def test_halo_is_shared_by_the_four_metrics_of_one_judgment() -> None:
    sd, n = 1.0, 1500
    effects = [_effect(_request(case, "You are judge 1."), halo_sd=sd) for case in range(n)]
    means = [statistics.mean(e) for e in effects]
    assert abs(statistics.stdev(means) - sd) < _sd_tolerance(sd, n, 0.25 / 4)
    # Shared: two metrics' effects correlate almost perfectly (only the dither differs) ...
    first, second = [e[0] for e in effects], [e[1] for e in effects]
    assert statistics.correlation(first, second) > 0.75
    # ... and the raw scores of two metrics covary by sd**2 (base and noise are per metric).
    bias = MockBias(seed=7, halo_sd=sd)
    raw = [_scores(_request(case, "You are judge 1."), bias) for case in range(n)]
    a, b = [r[0] for r in raw], [r[1] for r in raw]
    se = math.sqrt((statistics.variance(a) * statistics.variance(b) + sd**4) / n)
    assert abs(statistics.covariance(a, b) - sd**2) < 4 * se
    plain = [_scores(_request(case, "You are judge 1."), MockBias(seed=7)) for case in range(n)]
    a, b = [r[0] for r in plain], [r[1] for r in plain]
    se = math.sqrt(statistics.variance(a) * statistics.variance(b) / n)
    assert abs(statistics.covariance(a, b)) < 4 * se
    # Per judgment: another judge's halo on the same answer is another draw.
    other = [_effect(_request(case, "You are judge 2."), halo_sd=sd) for case in range(200)]
    assert (
        statistics.correlation(
            [statistics.mean(e) for e in effects[:200]], [statistics.mean(e) for e in other]
        )
        < 0.3
    )


def test_trial_noise_is_shared_by_judges_and_labels_and_has_the_planted_sd() -> None:
    sd, n = 0.7, 1200
    one = [
        statistics.mean(_effect(_request(c, "You are judge 1."), trial_noise_sd=sd))
        for c in range(n)
    ]
    two = [
        statistics.mean(_effect(_request(c, "You are judge 2.", author="male"), trial_noise_sd=sd))
        for c in range(n)
    ]
    assert abs(statistics.stdev(one) - sd) < _sd_tolerance(sd, n, 0.25 / 4)
    # Another judge, another label, the same answer to the same task: the same draw (up to the
    # per-judgment dither of its fraction).
    assert all(abs(x - y) <= 1 for x, y in zip(one, two, strict=True))
    assert statistics.correlation(one, two) > 0.85
    # A replicate of the trial is a fresh draw.
    again = [
        statistics.mean(_effect(_request(c, "You are judge 1.", replicate=1), trial_noise_sd=sd))
        for c in range(n)
    ]
    assert abs(statistics.correlation(one, again)) < 4 / math.sqrt(n)


def _first_wins(bias: MockBias, n: int) -> int:
    wins = 0
    for case in range(n):
        reply = json.loads(mock_reply(_request(case, "You are judge 1.", pair=True), bias))
        wins += reply["winner"] == "A"
    return wins


def test_signed_position_preference() -> None:
    n = 1500
    # A share p of verdicts goes to the first position (p < 0: to the second), the rest follow
    # the scores, which favour neither position here: first wins 0.5 + p / 2.
    for share in (-0.6, 0.0, 0.4):
        wins = _first_wins(MockBias(seed=3, first_position_bias=share), n)
        assert binomtest(wins, n, 0.5 + share / 2).pvalue > 0.001, (share, wins)


def test_pair_verdicts_follow_the_summed_scores() -> None:
    bias = MockBias(seed=5, halo_sd=1.0, trial_noise_sd=1.0, judge_leniency_sd=1.0)
    ties = 0
    winners = set()
    for case in range(400):
        reply = json.loads(mock_reply(_request(case, "You are judge 1.", pair=True), bias))
        totals = {c: sum(reply[c].values()) for c in "AB"}
        loser = "B" if reply["winner"] == "A" else "A"
        assert totals[reply["winner"]] >= totals[loser]
        if totals["A"] == totals["B"]:
            ties += 1
            winners.add(reply["winner"])
    # Equal sums happen and are broken both ways (the schema has no tie verdict).
    assert ties > 5 and winners == {"A", "B"}
