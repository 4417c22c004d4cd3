"""Every call meant to be a fresh sample differs on the wire from the call it repeats.

The same-text control, the later replicates and the other re-judged arms differ from the trial
they repeat only in the replicate index, which is in the cache key but not in what a provider
receives: a seeded or deterministic server (llama.cpp, vLLM, OpenAI with a seed, a caching
proxy) would answer them identically, and the control would read 0 by construction. So a
replicate other than 0 sends a seed of its own (``Sampling.for_replicate``).

No two calls of a run are meant to be the same on the wire: calls that are meant to be the same
(the same request key) are answered from the store or share the call in flight, so they never
reach the server twice.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import WriteExperiment
from helpers.experiments import FAKE_JUDGE, SAMPLING, panel_experiment
from helpers.fakes import FakeOpenAIServer
from helpers.judges import SECRET
from helpers.judges import openai_judge_like as judge_like

import fairpanel
from fairpanel.agents import (
    Message,
    MockBias,
    ModelRequest,
    ModelSpec,
    Sampling,
    canonical_json,
    mock_reply,
)
from fairpanel.agents._batch_api import chat_body
from fairpanel.agents._types import replicate_seed
from fairpanel.agents.providers._local import LocalModelServer, local_provider
from fairpanel.judging import judge_ask, judge_context, output_schema


def _experiment(base_url: str, sampling: dict[str, object] | None) -> str:
    return panel_experiment(
        "fresh-samples",
        {**FAKE_JUDGE, "base_url": base_url},
        panel={"discussion_rounds": 1, "sampling": sampling},
        scenarios={"bases": ["fitness-coaching"], "derived_per_base": 1},
        arms={"manipulations": ["bandwagon"]},  # the same-text control comes with it
        pair={"counterbalance": True},
        replicates=2,
        concurrency=4,
    )


@pytest.mark.parametrize("sampling", [SAMPLING, None], ids=["seeded", "unseeded"])
def test_no_two_requests_of_a_run_are_the_same_on_the_wire(
    write_experiment: WriteExperiment,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sampling: dict[str, object] | None,
) -> None:
    monkeypatch.setenv("FAIRPANEL_TEST_KEY", SECRET)
    with FakeOpenAIServer(judge_like, api_key=SECRET) as server:
        path = write_experiment(_experiment(server.base_url, sampling))
        outcome = fairpanel.run(path, tmp_path / "run", report=False)
        bodies = [canonical_json(body) for body in server.requests]
    assert outcome.summary.trials_ok == outcome.summary.trials_total > 0
    repeated = {body: count for body, count in Counter(bodies).items() if count > 1}
    assert not repeated, f"{len(repeated)} request bodies sent more than once"


def _request(replicate: int, seed: int | None, case: int = 0) -> ModelRequest:
    context = judge_context(f"Case {case}: plan a session.", [("a woman", "Three sets of squats.")])
    return ModelRequest(
        model="local/smollm2",
        endpoint="local:smollm2",
        messages=(
            Message(role="system", content=context),
            Message(role="user", content=judge_ask(1)),
        ),
        sampling=Sampling(temperature=0.0, seed=seed),
        response_schema=output_schema("single"),
        replicate=replicate,
    )


def test_replicate_zero_sends_the_configured_seed_and_every_other_its_own() -> None:
    assert Sampling(seed=5).for_replicate(0) == Sampling(seed=5)
    assert Sampling().for_replicate(0) == Sampling()
    replicates = (-2, -1, 1, 2)
    seeds = {Sampling(seed=seed).for_replicate(r).seed for seed in (None, 5) for r in replicates}
    assert len(seeds) == 8 and 5 not in seeds
    assert all(0 <= seed < 2**31 for seed in seeds if seed is not None)
    # Derived from fields the cache key already holds: no key changes.
    assert _request(-1, 5).sent_sampling.seed == replicate_seed(5, -1)


class _Served:
    """The run's local server as the provider sees it, here a fake OpenAI-format one."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    def api_key(self, spec: ModelSpec) -> str:
        return "local"

    def service(self, kind: type[Any]) -> Any:
        assert kind is LocalModelServer
        return self


async def test_the_local_provider_sends_each_replicate_its_seed() -> None:
    cases = [(0, 5), (-1, 5), (1, 5), (0, None), (-1, None)]
    with FakeOpenAIServer(judge_like) as server:
        client = local_provider.create(ModelSpec(id="local/smollm2"), _Served(server.base_url))
        for replicate, seed in cases:
            await client.complete(_request(replicate, seed))
        await client.aclose()
        sent = [body.get("seed") for body in server.requests]
    assert sent == [5, replicate_seed(5, -1), replicate_seed(5, 1), None, replicate_seed(None, -1)]


def test_a_batch_line_carries_the_replicate_seed() -> None:
    assert chat_body(_request(0, 5), "m")["seed"] == 5
    assert chat_body(_request(-1, 5), "m")["seed"] == replicate_seed(5, -1)
    assert "seed" not in chat_body(_request(0, None), "m")


def test_the_mock_answers_a_repeat_afresh() -> None:
    """The mock ignores sampling by design; its draws hash the replicate itself, which is what
    the sent seed is derived from, so a repeat is a fresh sample there too."""
    bias = MockBias(noise=2)

    def answers_of(replicate: int) -> list[Any]:
        return [json.loads(mock_reply(_request(replicate, 5, case), bias)) for case in range(20)]

    answers = {replicate: answers_of(replicate) for replicate in (0, -1, 1)}
    assert answers[0] == answers_of(0)
    assert answers[0] != answers[-1] and answers[0] != answers[1] and answers[-1] != answers[1]
