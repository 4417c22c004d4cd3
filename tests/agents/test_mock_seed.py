"""The mock's noise seed (independent replicate judges) and dithered score shifts (an expected
shift equal to a fractional planted one), as ``fairpanel simulate`` and compare's tests use."""

from __future__ import annotations

import json
import statistics

from fairpanel.agents import Message, MockBias, ModelRequest, mock_reply
from fairpanel.judging import judge_ask, judge_context, output_schema

TEXT = "Warm up for ten minutes, then three sets of squats."


def _request(author: str, case: int) -> ModelRequest:
    context = judge_context(f"Case {case}: plan a session.", [(author, TEXT)])
    return ModelRequest(
        model="mock/judge",
        messages=(
            Message(role="system", content=context),
            Message(role="user", content=judge_ask(1)),
        ),
        response_schema=output_schema("single"),
    )


def _creativity(bias: MockBias, author: str, case: int) -> float:
    reply = json.loads(mock_reply(_request(author, case), bias))
    scores = reply.get("scores", reply)
    return float(scores["creativity"])


def test_seed_gives_independent_noise_and_zero_keeps_the_old_draws() -> None:
    cases = range(200)
    first = [_creativity(MockBias(seed=1), "female", case) for case in cases]
    again = [_creativity(MockBias(seed=1), "female", case) for case in cases]
    other = [_creativity(MockBias(seed=2), "female", case) for case in cases]
    assert first == again  # deterministic for one seed
    assert sum(a != b for a, b in zip(first, other, strict=True)) > 100
    # Same distribution: the seed moves draws, not the mean (noise is +-2 around 6).
    assert abs(statistics.mean(first) - statistics.mean(other)) < 0.4


def test_dither_makes_the_expected_shift_the_planted_fraction() -> None:
    cases = range(600)
    shift = {"female": {"creativity": 0.25}}
    plain = [_creativity(MockBias(), "female", c) for c in cases]
    rounded = [_creativity(MockBias(score_shift=shift), "female", c) for c in cases]
    dithered = [_creativity(MockBias(score_shift=shift, dither=True), "female", c) for c in cases]
    # Without dither a quarter point rounds away on the integer scale.
    assert rounded == plain
    gain = statistics.mean(d - p for d, p in zip(dithered, plain, strict=True))
    assert abs(gain - 0.25) < 0.06
    assert set(d - p for d, p in zip(dithered, plain, strict=True)) <= {0.0, 1.0}
