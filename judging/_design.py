"""Which trials an experiment consists of.

A trial is fully determined by the design: protocol, scenario, identity labels and their
order, which response is shown where, the panel and its speaker order, the models and their
sampling, the replicate and the seed. Its key hashes all of that, so a re-run finds it.
Trials are generated lazily, so a large design never sits in memory at once.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from fairpanel.agents import Sampling, canonical_json, endpoint_of
from fairpanel.judging._config import ExperimentConfig
from fairpanel.personas import IdentitySet
from fairpanel.scenarios import DerivedScenario

__all__ = ["TRIAL_SCHEMA_VERSION", "TrialSpec", "iter_trials"]

TRIAL_SCHEMA_VERSION = 1


class TrialSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = TRIAL_SCHEMA_VERSION
    protocol: Literal["single", "pair"]
    scenario_id: str
    base_id: str
    category: str
    identities: tuple[str, ...]
    authors: tuple[str, ...]
    response_indices: tuple[int, ...]
    judges: tuple[str, ...]
    judge_model: str
    judge_endpoint: str
    judge_sampling: Sampling
    responder_model: str
    discussion_rounds: int
    max_reasks: int
    replicate: int
    seed: int

    def key(self) -> str:
        payload = canonical_json(self.model_dump(mode="json"))
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def _rotation(seed: int, *parts: object, size: int) -> int:
    digest = hashlib.sha256(canonical_json([seed, *map(str, parts)]).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % size


def _rotate(judges: Sequence[str], offset: int) -> tuple[str, ...]:
    return tuple(judges[offset:]) + tuple(judges[:offset])


def _pair_arrangements(
    config: ExperimentConfig, scenario_id: str, first: str, second: str, replicate: int
) -> list[tuple[tuple[str, str], tuple[int, int]]]:
    """(labels in shown order, responses in shown order) for one identity pair."""
    every = [
        (labels, responses)
        for responses in ((1, 2), (2, 1))
        for labels in ((first, second), (second, first))
    ]
    if config.pair.counterbalance:
        return every
    # One arrangement per pair, chosen by the seed, so no label or position is favoured by design.
    choice = _rotation(config.seed, scenario_id, first, second, replicate, size=len(every))
    return [every[choice]]


def iter_trials(
    config: ExperimentConfig,
    scenarios: Sequence[DerivedScenario],
    identities: IdentitySet,
) -> Iterator[TrialSpec]:
    """Every trial of the design, in a stable order."""
    judge_spec = config.panel_spec
    common = {
        "judge_model": judge_spec.id,
        "judge_endpoint": endpoint_of(judge_spec),
        "judge_sampling": judge_spec.sampling.merged(config.panel.sampling),
        "responder_model": config.responder_spec.id,
        "discussion_rounds": config.panel.discussion_rounds,
        "max_reasks": config.panel.max_reasks,
        "seed": config.seed,
    }
    judges = config.panel.judges
    single_categories = config.identities.categories if "single" in config.protocols else []
    pair_categories = (
        (config.pair.categories or config.identities.categories)
        if "pair" in config.protocols
        else []
    )
    for replicate, scenario in itertools.product(range(config.replicates), scenarios):
        for category_name in single_categories:
            category = identities.category(category_name)
            for identity in category.identities:
                offset = _rotation(
                    config.seed, scenario.id, identity.label, replicate, size=len(judges)
                )
                yield TrialSpec(
                    protocol="single",
                    scenario_id=scenario.id,
                    base_id=scenario.base_id,
                    category=category.name,
                    identities=(identity.label,),
                    authors=(identity.explicit,),
                    response_indices=(1,),
                    judges=_rotate(judges, offset),
                    replicate=replicate,
                    **common,
                )
        for category_name in pair_categories:
            category = identities.category(category_name)
            for first, second in itertools.combinations(category.identities, 2):
                for labels, responses in _pair_arrangements(
                    config, scenario.id, first.label, second.label, replicate
                ):
                    by_label = {first.label: first, second.label: second}
                    offset = _rotation(
                        config.seed, scenario.id, labels, responses, replicate, size=len(judges)
                    )
                    yield TrialSpec(
                        protocol="pair",
                        scenario_id=scenario.id,
                        base_id=scenario.base_id,
                        category=category.name,
                        identities=labels,
                        authors=tuple(by_label[label].explicit for label in labels),
                        response_indices=responses,
                        judges=_rotate(judges, offset),
                        replicate=replicate,
                        **common,
                    )
