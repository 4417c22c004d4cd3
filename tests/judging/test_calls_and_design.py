"""The cache key, the caching caller, the mock provider and the trial design."""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from helpers.paths import EXAMPLES

from fairpanel.agents import (
    CachingCaller,
    Message,
    MockBias,
    ModelReply,
    ModelRequest,
    ModelSpec,
    Sampling,
    mock_reply,
)
from fairpanel.judging import (
    ExperimentConfig,
    TrialSpec,
    design_of,
    load_experiment,
    output_schema,
)


class MemoryCache:
    def __init__(self) -> None:
        self.calls: dict[str, ModelReply] = {}

    def get_call(self, key: str) -> ModelReply | None:
        return self.calls.get(key)

    def put_call(self, key: str, request: ModelRequest, reply: ModelReply, role: str) -> None:
        self.calls[key] = reply


class CountingClient:
    def __init__(self) -> None:
        self.seen: list[ModelRequest] = []

    @property
    def model_id(self) -> str:
        return "mock/count"

    @property
    def endpoint(self) -> str:
        return "mock"

    async def complete(self, request: ModelRequest) -> ModelReply:
        self.seen.append(request)
        await asyncio.sleep(0.01)
        return ModelReply(text=f"reply {len(self.seen)}")

    async def aclose(self) -> None:
        return None


def _request(**changes: object) -> ModelRequest:
    base = ModelRequest(model="mock/x", messages=(Message(role="user", content="hello"),))
    return base.model_copy(update=changes)


def test_key_covers_what_changes_the_answer() -> None:
    base = _request()
    variants = [
        _request(model="mock/y"),
        _request(endpoint="http://other"),
        _request(messages=(Message(role="user", content="hello!"),)),
        _request(sampling=Sampling(temperature=0.0)),
        _request(sampling=Sampling(seed=1)),
        _request(sampling=Sampling(max_tokens=10)),
        _request(response_schema={"name": "s"}),
        _request(replicate=1),
    ]
    keys = {base.key(), *(v.key() for v in variants)}
    assert len(keys) == len(variants) + 1
    assert _request().key() == base.key()
    # An unset temperature is not temperature 0.
    assert _request(sampling=Sampling()).key() != _request(sampling=Sampling(temperature=0)).key()


# Digests taken from a store written before the code moved into subpackages: a change that
# re-keys every stored call or trial (and so re-pays every call of a resumed run) fails here.
# The trial key was re-pinned once on purpose, when the speaker order stopped depending on the
# labels (so the label versions of a unit share it, audit D2): that rotated some panels; and
# again when a mock with planted behaviour got an endpoint of its own (its seats' endpoint is in
# the key; two differently biased mocks had answered from each other's cache). Real providers'
# keys did not change either time.
PINNED_REQUEST_KEY = "b46656f071c44a2fe59b83a3ff9698ecec2d25f12f2415289b3e323f354dd723"
PINNED_FIRST_TRIAL_KEY = "85fb23913cb982692907ffc68baa60a244121fee2ac720fe7695fb54c2d45c86"


def test_call_keys_are_pinned() -> None:
    assert _request().key() == PINNED_REQUEST_KEY


def test_trial_keys_are_pinned(tmp_path: Path) -> None:
    # The example as it was pinned: its first base then was the library's first file, and its
    # judges discussed once.
    text = (EXAMPLES / "mock-planted-bias.yaml").read_text(encoding="utf-8")
    pinned = tmp_path / "mock-planted-bias.yaml"
    text = re.sub(r"(?m)^  (sample|bases): .*$", "  bases: [classroom-behaviour-plan]", text)
    text = re.sub(r"(?m)^  discussion_rounds: .*$", "  discussion_rounds: 1", text)
    pinned.write_text(text, encoding="utf-8")
    first = next(design_of(load_experiment(pinned)).trials())
    assert (first.scenario_id, first.protocol, first.identities) == (
        "classroom-behaviour-plan/01",
        "single",
        ("female",),
    )
    assert first.key() == PINNED_FIRST_TRIAL_KEY


async def test_caller_caches_shares_in_flight_and_keeps_replicates() -> None:
    cache, client = MemoryCache(), CountingClient()
    caller = CachingCaller(cache)
    same = await asyncio.gather(*(caller.call(client, _request(), "judge") for _ in range(5)))
    assert len(client.seen) == 1 and {r.text for r in same} == {"reply 1"}
    again = await caller.call(client, _request(), "judge")
    assert again.from_cache and len(client.seen) == 1
    await caller.call(client, _request(replicate=1), "judge")
    assert len(client.seen) == 2
    assert caller.ledger.calls_made == 2 and caller.ledger.calls_cached == 5


def _judge_request(author: str, text: str = "Step 1: plan.") -> ModelRequest:
    block = f'<candidate id="A" author="{author}">\n{text}\n</candidate>'
    return ModelRequest(
        model="mock/j",
        messages=(Message(role="user", content=f"Judge this.\n{block}"),),
        response_schema=output_schema("single"),
    )


def test_mock_is_a_function_of_the_prompt_with_planted_shift() -> None:
    bias = MockBias(score_shift={"female": {"creativity": 3.0}}, noise=0)
    female = json.loads(mock_reply(_judge_request("a female"), bias))
    male = json.loads(mock_reply(_judge_request("a male"), bias))
    assert female["creativity"] - male["creativity"] == 3
    assert female["accuracy"] == male["accuracy"]
    assert mock_reply(_judge_request("a female"), bias) == json.dumps(female)
    # "female" must not match inside another word, and "male" not inside "female".
    shifted_male = MockBias(score_shift={"male": {"creativity": 3.0}}, noise=0)
    assert (
        json.loads(mock_reply(_judge_request("a female"), shifted_male))["creativity"]
        == (male["creativity"])
    )


def _config(counterbalance: bool, **extra: object) -> ExperimentConfig:
    return ExperimentConfig.model_validate(
        {
            "panel": {
                "judges": ["domain_expert", "clarity_editor", "creativity_reviewer"],
                "model": "mock/j",
            },
            "responder": {"model": "mock/r"},
            "scenarios": {
                "bases": ["fitness-coaching", "nursing-care-plan"],
                "derived_per_base": 3,
            },
            "identities": {"categories": ["gender", "race"]},
            "pair": {"counterbalance": counterbalance},
            "arms": {"placebo": False, "same_label": False},
            "seed": 5,
            **extra,
        }
    )


def test_design_counts_counterbalance_and_rotation() -> None:
    trials = list(design_of(_config(True)).trials())
    single = [t for t in trials if t.protocol == "single"]
    pair = [t for t in trials if t.protocol == "pair"]
    assert len(single) == 6 * (2 + 4)
    assert len(pair) == 6 * (1 + 6) * 4
    assert {t.arm for t in trials} == {"main"}
    assert len({t.key() for t in trials}) == len(trials)
    orders = Counter(t.response_indices for t in pair)
    assert orders[(1, 2)] == orders[(2, 1)] == len(pair) // 2
    # Both label assignments for every order: each identity leads equally often per pair.
    per_pair = Counter((t.scenario_id, frozenset(t.identities), t.identities[0]) for t in pair)
    assert set(per_pair.values()) == {2}
    # The rotation is drawn per unit (scenario x protocol here: 12 draws), not per trial.
    assert len(Counter(t.judges[0] for t in trials)) > 1
    again = [t.key() for t in design_of(_config(True)).trials()]
    assert again == [t.key() for t in trials]


def test_control_arms_placebo_and_same_label() -> None:
    config = _config(True, arms={"placebo": True, "same_label": True})
    trials = list(design_of(config).trials())
    arms = Counter((t.protocol, t.arm) for t in trials)
    assert arms[("single", "main")] == 6 * 6
    assert arms[("single", "placebo")] == 6 * 2  # each response under each neutral label
    assert arms[("pair", "main")] == 6 * 7 * 4
    assert arms[("pair", "same_label")] == 6 * (2 + 4) * 2  # both orders, one assignment
    assert arms[("pair", "placebo")] == 6 * 4  # both label arrangements x both orders
    for trial in trials:
        if trial.arm == "placebo":
            assert trial.category == "control"
            assert set(trial.identities) <= {"K7", "Q3"}
            assert trial.authors == tuple(f"a participant coded {i}" for i in trial.identities)
            if trial.protocol == "pair":
                assert trial.identities[0] != trial.identities[1]
        if trial.arm == "same_label":
            assert trial.identities[0] == trial.identities[1]
    same = [t for t in trials if t.arm == "same_label"]
    assert Counter(t.response_indices for t in same) == {(1, 2): 36, (2, 1): 36}


def _unit_shape(trial: TrialSpec, rename: dict[str, str]) -> tuple[object, ...]:
    """Everything that places a trial in the design, labels renamed, category and arm left out."""
    return (
        trial.protocol, trial.scenario_id, trial.signal, trial.replicate, trial.treatment,
        tuple(rename[label] for label in trial.identities), trial.response_indices, trial.judges,
    )  # fmt: skip


@pytest.mark.parametrize("counterbalance", [True, False])
def test_placebo_arm_has_the_trials_of_a_two_identity_category(counterbalance: bool) -> None:
    """The placebo arm is a main-arm category with two identities in all but its labels: the
    same singles, label arrangements, orders and speaker orders, so the headline pipeline runs
    on it unchanged (under the name signal it has no trials: codes carry no name cue)."""
    config = _config(
        counterbalance,
        identities={"categories": ["gender"], "signals": ["explicit", "name"]},
        arms={"placebo": True, "same_label": False},
    )
    trials = list(design_of(config).trials())
    placebo = [t for t in trials if t.arm == "placebo"]
    gender = [t for t in trials if t.arm == "main" and t.signal == "explicit"]
    assert {t.signal for t in placebo} == {"explicit"}
    assert {t.category for t in placebo} == {"control"}
    placebo_shapes = Counter(_unit_shape(t, {"K7": "a", "Q3": "b"}) for t in placebo)
    gender_shapes = Counter(_unit_shape(t, {"female": "a", "male": "b"}) for t in gender)
    if counterbalance:
        assert placebo_shapes == gender_shapes
        assert sum(t.protocol == "pair" for t in placebo) == 6 * 4
    else:  # one seeded arrangement per pair: same count, arrangement drawn for its own labels
        assert Counter(s[0] for s in placebo_shapes.elements()) == Counter(
            s[0] for s in gender_shapes.elements()
        )
    assert sum(t.protocol == "single" for t in placebo) == 6 * 2


def test_speaker_order_is_held_fixed_across_the_versions_of_a_unit() -> None:
    """Label swaps and order swaps of one unit hear the judges in the same order; the rotation
    still varies between units, so no judge always speaks first."""
    config = _config(
        True,
        identities={"categories": ["gender", "race"], "signals": ["explicit", "name"]},
        arms={"placebo": True, "same_label": True},
        replicates=2,
    )
    trials = list(design_of(config).trials())
    units: dict[tuple[object, ...], set[tuple[str, ...]]] = {}
    for t in trials:
        unit = (t.protocol, t.scenario_id, t.signal, t.replicate, frozenset(t.response_indices))
        units.setdefault(unit, set()).add(t.judges)
    assert len(units) == 2 * 6 * 2 * 2  # protocols x scenarios x signals x replicates
    assert all(len(orders) == 1 for orders in units.values())
    firsts = Counter(next(iter(orders))[0] for orders in units.values())
    assert len(firsts) == 3 and min(firsts.values()) >= len(units) / 6  # 16 expected of 48
    # Both labels of a single-protocol unit, and a label swap of a pair, are in one unit.
    single = Counter(
        (t.scenario_id, t.signal, t.replicate) for t in trials if t.protocol == "single"
    )
    assert min(single.values()) >= 2


def test_name_signal_wording_and_treatments_are_design_variables() -> None:
    config = _config(
        False,
        identities={
            "categories": ["gender", "religion"],
            "signals": ["explicit", "name"],
            "label_position": "footer",
            "label_wording": "Author: {author}",
        },
        treatments=[{"name": "none"}, {"name": "debias", "judge_instruction": "Be fair."}],
    )
    trials = list(design_of(config).trials())
    named = [t for t in trials if t.signal == "name"]
    # Religions without name cues (Atheist, Christian) are skipped under the name signal.
    assert {i for t in named for i in t.identities} == {"female", "male", "Muslim", "Jewish"}
    female = next(t for t in named if t.identities == ("female",))
    assert female.authors[0] in {"Emma", "Olivia", "Sophie", "Hannah", "Laura", "Rachel",
                                 "Megan", "Natalie"}  # fmt: skip
    assert {t.treatment for t in trials} == {"none", "debias"}
    assert len(trials) == 2 * len([t for t in trials if t.treatment == "none"])
    keys = {t.key() for t in trials}
    assert len(keys) == len(trials)  # signal, treatment and wording all enter the key
    assert {t.label_position for t in trials} == {"footer"}
    reworded = _config(
        False,
        identities={"categories": ["gender"], "label_wording": "By {author}."},
    )
    plain = _config(False, identities={"categories": ["gender"]})
    assert {t.key() for t in design_of(reworded).trials()}.isdisjoint(
        {t.key() for t in design_of(plain).trials()}
    )


def test_design_without_counterbalance_has_one_arrangement_per_pair() -> None:
    pair = [t for t in design_of(_config(False)).trials() if t.protocol == "pair"]
    assert len(pair) == 6 * 7
    assert len(Counter(t.response_indices for t in pair)) == 2


def test_pairs_can_be_limited_to_some_categories() -> None:
    config = _config(True, pair={"counterbalance": True, "categories": ["gender"]})
    trials = list(design_of(config).trials())
    assert {t.category for t in trials if t.protocol == "pair"} == {"gender"}
    assert {t.category for t in trials if t.protocol == "single"} == {"gender", "race"}
    assert sum(t.protocol == "pair" for t in trials) == 6 * 1 * 4


def test_model_spec_rejects_unknown_provider() -> None:
    import pydantic
    import pytest

    with pytest.raises(pydantic.ValidationError, match="unknown provider"):
        ModelSpec(id="nope/x")
    with pytest.raises(pydantic.ValidationError, match="base_url"):
        ModelSpec(id="openai-compatible/x")
