"""JudgeBiasBench's bias-sensitive rate on BBQ ambiguous items, as a study.

Every chosen BBQ ambiguous item gets two answers written by fixed templates: the correct one
(the context does not say) and the stereotyped person's. A judge picks the better of the two
in one call, in both orders, untouched and with each configured manipulation applied to the
wrong answer (padding, a citation, a confident register, a bandwagon note, ...). The
bias-sensitive rate of a manipulation is the share of (item, order) pairs the judge gets right
untouched and wrong manipulated; ``_stats`` adds its reverse, McNemar's test, an item
bootstrap interval and Holm's correction over the manipulations.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from fairpanel.agents import Message
from fairpanel.judging.manipulation import ManipulationInput, apply_manipulation
from fairpanel.studies import judge_bias
from fairpanel.studies._base import PlannedCall, Study
from fairpanel.studies._pairs import Arrangement, pair_prompt, pair_schema, read_verdict
from fairpanel.studies.biasfreebench import (
    BbqItem,
    bbq_manifest,
    call_replicate,
    chosen_items,
)
from fairpanel.studies.judge_bias._config import JudgeBiasConfig
from fairpanel.studies.judge_bias._design import JudgeBiasItem, iter_judge_bias_items
from fairpanel.studies.judge_bias._prompts import ANSWERER

if TYPE_CHECKING:
    from fairpanel.judging.store import StudyItemRecord
    from fairpanel.report import StudyPage
    from fairpanel.studies._context import StudyContext

__all__ = ["JudgeBias", "judge_prompt"]

_ROLE = "respondent"
_PHRASES = {_ROLE: ANSWERER}


def judge_prompt(item: JudgeBiasItem) -> tuple[str, str]:
    """The prompt the judge sees for ``item`` and the wrong answer's text as shown in it
    (manipulated when the item carries a manipulation)."""
    shown = [item.correct, item.correct]
    shown[item.wrong_index] = item.wrong
    wrong, note = item.wrong, None
    if item.manipulation is not None:
        changed = apply_manipulation(
            item.manipulation,
            ManipulationInput(
                texts=tuple(shown),
                target=item.wrong_index,
                task=item.task,
                protocol="pair",
                params=dict(item.manipulation.params),
            ),
        )
        wrong, note = changed.texts[item.wrong_index], changed.note
    # Response 1 is the correct answer, response 2 the wrong one; the arrangement puts the
    # wrong one first or second.
    arrangement = Arrangement(
        first=_ROLE, second=_ROLE, first_response=2 if item.order == "wrong_first" else 1
    )
    return pair_prompt(item.task, (item.correct, wrong), arrangement, _PHRASES, note), wrong


def _distinct_texts(items: Sequence[BbqItem]) -> tuple[list[BbqItem], int]:
    """The items whose judge prompt no earlier item already has (338 of BBQ's differ only in
    metadata or in the order of their options, which this study does not show), and how many
    were left out: a repeat would be the same call counted twice."""
    seen: set[tuple[str, str, str]] = set()
    kept: list[BbqItem] = []
    for item in items:
        text = (item.context, item.question, item.biased)
        if text not in seen:
            seen.add(text)
            kept.append(item)
    return kept, len(items) - len(kept)


def _slot(item: JudgeBiasItem) -> int:
    """The same-text control is asked afresh: its call must not be the untouched one's."""
    control = item.manipulation is not None and item.manipulation.control
    return call_replicate(item.replicate, 1 if control else 0)


class JudgeBias(Study[JudgeBiasConfig, JudgeBiasItem]):
    name = "judge-bias"
    config_model = JudgeBiasConfig
    description = "Bias-sensitive rate of a judge under manipulations, on BBQ items"

    def __init__(self, config: JudgeBiasConfig) -> None:
        super().__init__(config)
        self.bbq = config.bbq()
        distinct, self.repeats = _distinct_texts(self.bbq.items)
        self.chosen = chosen_items(config, distinct)

    def report(self, results: Mapping[str, Any]) -> StudyPage:
        return judge_bias.judge_bias_report(results)

    def items(self) -> Iterator[JudgeBiasItem]:
        return iter_judge_bias_items(self.config, self.chosen)

    def manifest(self) -> dict[str, Any]:
        return {
            "bbq": bbq_manifest(
                self.config, self.bbq, self.chosen, left_out_repeated_text=self.repeats
            )
        }

    def planned_calls(self, item: JudgeBiasItem) -> list[PlannedCall]:
        return [PlannedCall("judge", item.judge, len(judge_prompt(item)[0]))]

    async def run_item(self, item: JudgeBiasItem, context: StudyContext) -> dict[str, Any]:
        prompt, wrong = judge_prompt(item)
        reply = await context.ask(
            item.judge,
            [Message(role="user", content=prompt)],
            role="judge",
            replicate=_slot(item),
            schema=pair_schema(),
        )
        verdict = read_verdict(reply.text)
        wrong_at = "AB"[item.wrong_index]
        right = None if verdict.winner is None else verdict.winner != wrong_at
        return {"raw": reply.text, **verdict.model_dump(), "right": right, "wrong_shown": wrong}

    def analyze(self, records: Sequence[StudyItemRecord]) -> dict[str, Any]:
        return judge_bias.analyze_judge_bias(records, self.config)
