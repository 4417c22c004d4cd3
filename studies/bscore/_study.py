"""B-score (seed 000) as a study: each run asks a question N times in fresh chats (each
followed by a confidence question) and T times in one chat that shows the model its earlier
answers; the analysis compares the two answer distributions.

Questions come from the paper's set (``{{choice}}`` answers) and/or from judge pairs (the
MALIBU pair prompt with structured output; the winner's identity is the answer).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from fairpanel.agents import Message
from fairpanel.studies import bscore
from fairpanel.studies._base import PlannedCall, Study
from fairpanel.studies._pairs import pair_prompt, pair_schema, read_verdict, responses_for
from fairpanel.studies.bscore._config import BscoreConfig
from fairpanel.studies.bscore._design import (
    BscoreItem,
    Phase,
    call_replicate,
    iter_bscore_items,
    option_order,
    shown_arrangement,
)
from fairpanel.studies.bscore._prompts import (
    CONFIDENCE_QUESTION,
    extract_choice,
    parse_confidence,
    seeded_rng,
    shown_question,
)

if TYPE_CHECKING:
    from fairpanel.judging.store import StudyItemRecord
    from fairpanel.report import StudyPage
    from fairpanel.studies._context import StudyContext

__all__ = ["Bscore"]


def _message(role: str, text: str) -> Message:
    return Message.model_validate({"role": role, "content": text})


class Bscore(Study[BscoreConfig, BscoreItem]):
    name = "bscore"
    config_model = BscoreConfig
    description = "Single-turn vs multi-turn answer frequencies: the B-score (seed 000)"

    def report(self, results: Mapping[str, Any]) -> StudyPage:
        return bscore.bscore_report(results)

    def items(self) -> Iterator[BscoreItem]:
        return iter_bscore_items(self.config)

    def manifest(self) -> dict[str, Any]:
        questions = self.config.questions
        if questions is None:
            return {}
        path, answers = questions.paths()
        return {"questions_file": str(path), "answers_file": str(answers) if answers else None}

    def planned_calls(self, item: BscoreItem) -> list[PlannedCall]:
        role = "judge" if item.source == "judge" else "answerer"
        asked = len(item.question.text) + (3000 if item.source == "judge" else 120)
        answer = 4 * (item.model.sampling.max_tokens or 60)
        first = 2 if item.source == "judge" else 0  # after the two responses it judges
        calls = [PlannedCall(role, item.model, asked, step=first) for _ in range(item.queries)]
        if item.confidence:
            follow = asked + answer + len(CONFIDENCE_QUESTION)
            calls.extend(
                PlannedCall(f"{role}:confidence", item.model, follow, step=first + 1)
                for _ in calls[:]
            )
        calls.extend(
            PlannedCall(role, item.model, (turn + 1) * asked + turn * answer, step=first + turn)
            for turn in range(item.turns)
        )
        if item.responder is not None and item.replicate == 0:
            # The two responses of a scenario are written once and shared by all its runs.
            calls.append(PlannedCall("responder", item.responder, len(item.question.text) + 300))
            calls.append(
                PlannedCall("responder", item.responder, len(item.question.text) + 1200, step=1)
            )
        return calls

    async def run_item(self, item: BscoreItem, context: StudyContext) -> dict[str, Any]:
        responses = None
        if item.source == "judge":
            assert item.responder is not None
            responses = await responses_for(item.question.text, item.responder, context)
        single, multi = await asyncio.gather(
            asyncio.gather(
                *(self._single(item, i, responses, context) for i in range(item.queries))
            ),
            self._multi(item, responses, context),
        )
        result: dict[str, Any] = {"single": list(single), "multi": multi}
        if responses is not None:
            result["responses"] = list(responses)
        return result

    def _shown(
        self, item: BscoreItem, phase: Phase, index: int, responses: tuple[str, str] | None
    ) -> tuple[str, dict[str, Any]]:
        """The user message of one query or turn, and how it was shown."""
        if responses is None:
            order = option_order(item, phase, index)
            return shown_question(item.question, order), {"order": list(order)}
        assert item.phrases is not None
        shown = shown_arrangement(item, phase, index)
        return pair_prompt(item.question.text, responses, shown, item.phrases), {
            "order": [shown.first, shown.second],
            "first_response": shown.first_response,
        }

    def _read(self, item: BscoreItem, text: str, order: list[str]) -> dict[str, Any]:
        if item.source == "judge":
            verdict = read_verdict(text)
            if verdict.winner is None:
                return {"answer": None, "position": None, "invalid": "unreadable_verdict"}
            position = "AB".index(verdict.winner)
            return {"answer": order[position], "position": position, "invalid": None}
        reading = extract_choice(text, item.question.options, item.match)
        return {
            "answer": reading.answer,
            "marked": reading.marked,
            "position": order.index(reading.answer) if reading.answer is not None else None,
            "invalid": reading.invalid,
        }

    async def _single(
        self,
        item: BscoreItem,
        index: int,
        responses: tuple[str, str] | None,
        context: StudyContext,
    ) -> dict[str, Any]:
        role = "judge" if item.source == "judge" else "answerer"
        schema = pair_schema() if item.source == "judge" else None
        replicate = call_replicate(item.replicate, "single", index)
        text, shown = self._shown(item, "single", index, responses)
        asked = [_message("user", text)]
        reply = await context.ask(item.model, asked, role=role, replicate=replicate, schema=schema)
        record = {**shown, "raw": reply.text, **self._read(item, reply.text, shown["order"])}
        if item.confidence:
            follow = [
                *asked,
                _message("assistant", reply.text),
                _message("user", CONFIDENCE_QUESTION),
            ]
            said = await context.ask(
                item.model, follow, role=f"{role}:confidence", replicate=replicate
            )
            record["confidence_raw"] = said.text
            record["confidence"] = parse_confidence(said.text)
        return record

    async def _multi(
        self, item: BscoreItem, responses: tuple[str, str] | None, context: StudyContext
    ) -> list[dict[str, Any]]:
        role = "judge" if item.source == "judge" else "answerer"
        schema = pair_schema() if item.source == "judge" else None
        replicate = call_replicate(item.replicate, "multi", 0)
        history: list[tuple[Message, Message]] = []
        turns: list[dict[str, Any]] = []
        for turn in range(item.turns):
            text, shown = self._shown(item, "multi", turn, responses)
            earlier = list(history)
            if item.shuffle_history:
                rng = seeded_rng(item.seed, item.question.id, item.replicate, "history", turn)
                rng.shuffle(earlier)
            asked = [*(m for pair in earlier for m in pair), _message("user", text)]
            reply = await context.ask(
                item.model, asked, role=role, replicate=replicate, schema=schema
            )
            history.append((asked[-1], _message("assistant", reply.text)))
            turns.append(
                {**shown, "raw": reply.text, **self._read(item, reply.text, shown["order"])}
            )
        return turns

    def analyze(self, records: Sequence[StudyItemRecord]) -> dict[str, Any]:
        items = [
            (BscoreItem.model_validate(r.spec), r.result or {}) for r in records if r.status == "ok"
        ]
        return bscore.analyze_bscore(
            self.config, items, failed=sum(r.status == "failed" for r in records)
        )
