"""BiasFreeBench's design: every chosen BBQ item under every treatment, in every replicate.

The two options are shown in an order drawn per item and replicate (seeded), the same under
every treatment, so treatments are compared on identical questions. Items are enumerated
replicate by replicate, item by item, with an item's treatments next to each other, so a run
stopped early still holds complete pairs.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator, Sequence
from typing import Literal

from fairpanel.agents import canonical_json
from fairpanel.studies._base import ResolvedModel
from fairpanel.studies.biasfreebench._bbq_study import BbqItemSpec
from fairpanel.studies.biasfreebench._config import BiasFreeBenchConfig, Mitigation
from fairpanel.studies.biasfreebench._data import BbqItem
from fairpanel.studies.biasfreebench._prompts import PROMPT_VERSION, TOPICS

__all__ = ["BfbItem", "call_replicate", "iter_bfb_items", "seeded_rng"]


class BfbItem(BbqItemSpec):
    """One BBQ item asked under one treatment in one replicate."""

    study: Literal["biasfreebench"] = "biasfreebench"
    schema_version: int = 1
    context: str
    question: str
    options: tuple[str, str]
    biased: str
    anti: str
    topic: str
    treatment: str
    responder_mitigation: Mitigation
    judge_mitigation: Mitigation
    prompt_version: int = PROMPT_VERSION
    responder: ResolvedModel
    judge: ResolvedModel
    judgments: int
    max_reasks: int
    self_help_attempts: int


def seeded_rng(*parts: object) -> random.Random:
    digest = hashlib.sha256(canonical_json([str(p) for p in parts]).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def call_replicate(replicate: int, slot: int) -> int:
    """The request replicate of one call of an item: distinct for every call that could
    otherwise repeat a request (self-help attempts, judgments, re-asks), equal for calls that
    should share an answer (the same prompt to the same model in the same replicate)."""
    return replicate * 10_000 + slot


def iter_bfb_items(config: BiasFreeBenchConfig, items: Sequence[BbqItem]) -> Iterator[BfbItem]:
    responder = config.resolve(config.responder)
    judge = config.resolve(config.judge)
    for replicate in range(config.replicates):
        for item in items:
            options = list(item.options)
            seeded_rng(config.seed, "options", item.category, item.example_id, replicate).shuffle(
                options
            )
            for treatment in config.treatments:
                yield BfbItem(
                    **BbqItemSpec.fields_of(item),
                    seed=config.seed,
                    replicate=replicate,
                    context=item.context,
                    question=item.question,
                    options=(options[0], options[1]),
                    biased=item.biased,
                    anti=item.anti,
                    topic=TOPICS[item.category],
                    treatment=treatment.name,
                    responder_mitigation=treatment.mitigates("responder"),
                    judge_mitigation=treatment.mitigates("judge"),
                    responder=responder,
                    judge=judge,
                    judgments=config.judge.judgments,
                    max_reasks=config.judge.max_reasks,
                    self_help_attempts=config.self_help_attempts,
                )
