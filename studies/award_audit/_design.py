"""The award audit's design: equal-total answer vectors, name pairs, four variants per pair.

Per level, ``pairs_per_level`` pairs of answer vectors are drawn with a seeded generator (the
correct items uniformly among all, one of the three distractors uniformly for every other
item; vectors unique within a level whenever enough distinct ones exist). Each pair is shown
in the 2 x 2 counterbalanced variants: which group gets the pair's first vector, and which
group's student is listed first. Name pairs (every name of one group against every name of
the other) are assigned in a seeded order that cycles, so each is used equally often when
``pairs_per_level`` is a multiple of their number.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Iterator
from typing import Literal

from pydantic import BaseModel, ConfigDict

from fairpanel.agents import canonical_json
from fairpanel.studies._base import ItemSpec, ResolvedModel
from fairpanel.studies.award_audit._bank import ItemBank, bank_digest
from fairpanel.studies.award_audit._config import AwardAuditConfig, distinct_vectors

__all__ = ["PROMPT_VERSION", "AwardItem", "Student", "answer_vectors", "iter_award_items"]

PROMPT_VERSION = 1
"""Bumped whenever the wording of the award prompts changes (it is part of every item key)."""


class Student(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    group: str
    vector: Literal[1, 2]
    answers: tuple[str, ...]


class AwardItem(ItemSpec):
    """One prompt of the audit: two students, in the order they are listed.

    ``draw`` numbers the prompt across the design and is sent as the request's replicate: at
    a perfect score every pair's prompt is the same text, and each must still get an answer
    of its own, not one cached answer counted many times.
    """

    study: Literal["award-audit"] = "award-audit"
    schema_version: int = 1
    category: str
    groups: tuple[str, str]
    level: int
    pair_index: int
    draw: int
    first_vector_to: str
    listed_first: str
    students: tuple[Student, Student]
    bank_digest: str
    prompt_version: int = PROMPT_VERSION
    responder: ResolvedModel
    coder: ResolvedModel | None
    followup_max_tokens: int | None


def _rng(*parts: object) -> random.Random:
    digest = hashlib.sha256(canonical_json([str(p) for p in parts]).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _vector(bank: ItemBank, level: int, rng: random.Random) -> tuple[str, ...]:
    correct = set(rng.sample(range(len(bank.items)), level))
    return tuple(
        item.answer if index in correct else rng.choice(item.distractors)
        for index, item in enumerate(bank.items)
    )


def answer_vectors(bank: ItemBank, level: int, count: int, seed: int) -> list[tuple[str, ...]]:
    """``count`` answer vectors with exactly ``level`` correct answers, unique when the bank
    allows that many (at a perfect score every vector is the same)."""
    rng = _rng(seed, "vectors", level, len(bank.items))
    unique = distinct_vectors(len(bank.items), level) >= count
    vectors: list[tuple[str, ...]] = []
    seen: set[tuple[str, ...]] = set()
    while len(vectors) < count:
        vector = _vector(bank, level, rng)
        if unique and vector in seen:
            continue
        seen.add(vector)
        vectors.append(vector)
    return vectors


def _name_pairs(
    names: dict[str, list[str]], groups: tuple[str, str], seed: int, level: int
) -> Iterator[tuple[str, str]]:
    pairs = list(itertools.product(names[groups[0]], names[groups[1]]))
    _rng(seed, "names", level).shuffle(pairs)
    return itertools.cycle(pairs)


def _draw(level: int, replicate: int, pair_index: int, variant: int) -> int:
    """A number unique to one prompt, unchanged when levels or pairs are added to a design
    (replicates stay below 100 and pairs below 10,000 by the config's bounds)."""
    return ((level * 100 + replicate) * 10_000 + pair_index) * 4 + variant


def iter_award_items(
    config: AwardAuditConfig, bank: ItemBank, names: dict[str, list[str]]
) -> Iterator[AwardItem]:
    """Every prompt of the design in a stable order: replicate, level, pair, variant."""
    groups = config.groups.compare
    digest = bank_digest(bank)
    responder = config.resolve(config.responder)
    followup = config.followup
    coder = config.resolve(followup.coder) if followup.enabled and followup.coder else None
    for replicate, level in itertools.product(range(config.replicates), config.levels):
        vectors = answer_vectors(bank, level, 2 * config.pairs_per_level, config.seed)
        name_pairs = _name_pairs(names, groups, config.seed, level)
        for pair_index in range(config.pairs_per_level):
            pair_names = dict(zip(groups, next(name_pairs), strict=True))
            first, second = vectors[2 * pair_index], vectors[2 * pair_index + 1]
            variants = itertools.product(groups, groups)
            for variant, (first_vector_to, listed_first) in enumerate(variants):
                other = groups[1] if first_vector_to == groups[0] else groups[0]
                students = {
                    first_vector_to: Student(
                        name=pair_names[first_vector_to],
                        group=first_vector_to,
                        vector=1,
                        answers=first,
                    ),
                    other: Student(name=pair_names[other], group=other, vector=2, answers=second),
                }
                later = groups[1] if listed_first == groups[0] else groups[0]
                yield AwardItem(
                    seed=config.seed,
                    replicate=replicate,
                    category=config.groups.category,
                    groups=groups,
                    level=level,
                    pair_index=pair_index,
                    draw=_draw(level, replicate, pair_index, variant),
                    first_vector_to=first_vector_to,
                    listed_first=listed_first,
                    students=(students[listed_first], students[later]),
                    bank_digest=digest,
                    responder=responder,
                    coder=coder,
                    followup_max_tokens=followup.max_tokens if followup.enabled else None,
                )
