"""The B-score design: one item per (question, run), each holding the run's single-turn
queries and its one multi-turn conversation.

Judge pairs become questions too: the options are the two identities, and every query or
turn shows the pair in one of the four counterbalanced arrangements (who is first x which
response each carries), in a seeded order that uses each arrangement equally often.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from fairpanel.studies._base import ItemSpec, ResolvedModel
from fairpanel.studies._pairs import ARRANGEMENTS, Arrangement, arrangement, iter_pair_cells
from fairpanel.studies.bscore._config import BscoreConfig
from fairpanel.studies.bscore._data import Question, files_digest
from fairpanel.studies.bscore._prompts import seeded_rng

__all__ = [
    "PROMPT_VERSION",
    "BscoreItem",
    "Phase",
    "call_replicate",
    "iter_bscore_items",
    "option_order",
    "shown_arrangement",
]

PROMPT_VERSION = 1
"""Bumped whenever the wording of the B-score prompts changes (part of every item key)."""

Phase = Literal["single", "multi"]
_MULTI_OFFSET = 5_000


class BscoreItem(ItemSpec):
    """One run of one question: ``queries`` fresh chats and one chat of ``turns`` turns."""

    study: Literal["bscore"] = "bscore"
    schema_version: int = 1
    source: Literal["question", "judge"]
    question: Question
    data_digest: str
    scenario_id: str | None = None
    phrases: dict[str, str] | None = None
    queries: int
    turns: int
    confidence: bool
    shuffle_options: bool
    shuffle_history: bool
    match: Literal["exact", "casefold"]
    prompt_version: int = PROMPT_VERSION
    model: ResolvedModel
    responder: ResolvedModel | None = None


def call_replicate(run: int, phase: Phase, index: int) -> int:
    """The request replicate of a query: distinct for every single-turn query of every run
    (two shuffles can coincide, and each query must be a fresh sample), one per conversation
    for the multi-turn phase (its requests differ by their history)."""
    return run * 10_000 + (_MULTI_OFFSET if phase == "multi" else index)


def option_order(item: BscoreItem, phase: Phase, index: int) -> tuple[str, ...]:
    """The options as shown to one query or turn (shuffled independently, seeded)."""
    options = list(item.question.options)
    if item.shuffle_options and item.question.listed:
        seeded_rng(item.seed, item.question.id, item.replicate, phase, index).shuffle(options)
    return tuple(options)


def shown_arrangement(item: BscoreItem, phase: Phase, index: int) -> Arrangement:
    """A judge pair's arrangement for one query or turn: the four cells cycled in a seeded
    order per run and phase, so each is shown equally often (within one when N % 4 != 0)."""
    pair = (item.question.options[0], item.question.options[1])
    if not item.shuffle_options:
        return arrangement(pair, ARRANGEMENTS[index % len(ARRANGEMENTS)])
    block, offset = divmod(index, len(ARRANGEMENTS))
    cells = list(ARRANGEMENTS)
    seeded_rng(item.seed, item.question.id, item.replicate, phase, "block", block).shuffle(cells)
    return arrangement(pair, cells[offset])


def _common(config: BscoreConfig, model: ResolvedModel) -> dict[str, object]:
    return {
        "seed": config.seed,
        "queries": config.single_turn_queries,
        "turns": config.multi_turn_turns,
        "confidence": config.confidence,
        "shuffle_options": config.shuffle_options,
        "shuffle_history": config.shuffle_history,
        "match": config.match,
        "model": model,
    }


def iter_bscore_items(config: BscoreConfig) -> Iterator[BscoreItem]:
    """Every item in a stable order: run, then questions, then judge pairs."""
    model = config.resolve(config.model)
    questions = config.questions.load() if config.questions is not None else []
    digest = files_digest(*config.questions.paths()) if config.questions is not None else ""
    pairs = config.judge_pairs
    cells = list(iter_pair_cells(pairs)) if pairs is not None else []
    phrases = pairs.phrases() if pairs is not None else {}
    responder = config.resolve(pairs.responder) if pairs is not None else None
    for run in range(config.replicates):
        for question in questions:
            yield BscoreItem.model_validate(
                {
                    **_common(config, model),
                    "replicate": run,
                    "source": "question",
                    "question": question,
                    "data_digest": digest,
                }
            )
        for task, (first, second) in cells:
            question = Question(
                id=f"judge/{task.id}/{first}-vs-{second}",
                topic=f"judge:{first}-vs-{second}",
                category="judge",
                text=task.prompt,
                options=(first, second),
                listed=True,
            )
            yield BscoreItem.model_validate(
                {
                    **_common(config, model),
                    "replicate": run,
                    "source": "judge",
                    "question": question,
                    "data_digest": "",
                    "scenario_id": task.id,
                    "phrases": {label: phrases[label] for label in (first, second)},
                    "responder": responder,
                }
            )
