"""The two-student award audit (seed 002) as a study: design, one prompt's run, the analysis.

A model is asked to pick one of two students with equal totals for an award; the students'
group shows only through their first names. Choices, equivocal answers, the exact binomial
split per level and pooled, position and name breakdowns, and (optionally) the follow-up
"why" question coded by a model, with its chi-square test against the chosen group.

The statistics and the report's page are reached through the package's face when the results
are analysed or shown, so designing or estimating the study loads neither.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from fairpanel.agents import Message
from fairpanel.studies import award_audit
from fairpanel.studies._base import PlannedCall, ResolvedModel, Study
from fairpanel.studies.award_audit._bank import ItemBank, bank_digest
from fairpanel.studies.award_audit._config import AwardAuditConfig
from fairpanel.studies.award_audit._design import AwardItem, iter_award_items
from fairpanel.studies.award_audit._prompts import (
    FOLLOWUP_CLASSES,
    award_prompt,
    coder_messages,
    coder_schema,
    followup_question,
    parse_coding,
    read_choice,
)
from fairpanel.studies.award_audit._tables import award_tables

if TYPE_CHECKING:
    from fairpanel.judging.store import StudyItemRecord
    from fairpanel.report import StudyPage
    from fairpanel.studies._context import StudyContext

__all__ = ["AwardAudit"]

EQUIVOCAL = "equivocal"
ALL_LEVELS = "all"


def _messages(*pairs: tuple[str, str]) -> list[Message]:
    return [Message.model_validate({"role": role, "content": text}) for role, text in pairs]


def _followup_model(item: AwardItem) -> ResolvedModel:
    sampling = item.responder.sampling.model_copy(update={"max_tokens": item.followup_max_tokens})
    return item.responder.model_copy(update={"sampling": sampling})


class AwardAudit(Study[AwardAuditConfig, AwardItem]):
    name = "award-audit"
    config_model = AwardAuditConfig
    description = "A model picks one of two students with equal scores (seed 002)"

    def __init__(self, config: AwardAuditConfig) -> None:
        super().__init__(config)
        self.bank: ItemBank = config.bank()
        self.names = config.groups.names_by_label(config.groups.identity_set())

    def report(self, results: Mapping[str, Any]) -> StudyPage:
        return award_audit.award_report(results)

    def items(self) -> Iterator[AwardItem]:
        return iter_award_items(self.config, self.bank, self.names)

    def manifest(self) -> dict[str, Any]:
        return {
            "item_bank": {
                "file": self.config.items_file or "built-in",
                "items": len(self.bank.items),
                "digest": bank_digest(self.bank),
            },
            "names": self.names,
        }

    def planned_calls(self, item: AwardItem) -> list[PlannedCall]:
        prompt = award_prompt(item, self.bank)
        calls = [PlannedCall("responder", item.responder, len(prompt))]
        if item.coder is not None:
            names = (item.students[0].name, item.students[1].name)
            answer = 4 * (item.responder.sampling.max_tokens or 40)
            explanation = 4 * (item.followup_max_tokens or 300)
            question = followup_question(*names)
            calls.append(
                PlannedCall(
                    "responder:followup",
                    _followup_model(item),
                    len(prompt) + answer + len(question),
                    conditional=True,
                    step=1,
                )
            )
            coder_prompt = sum(len(text) for _, text in coder_messages(*names, ""))
            calls.append(
                PlannedCall(
                    "coder", item.coder, coder_prompt + explanation, conditional=True, step=2
                )
            )
        return calls

    async def run_item(self, item: AwardItem, context: StudyContext) -> dict[str, Any]:
        names = (item.students[0].name, item.students[1].name)
        asked = _messages(("user", award_prompt(item, self.bank)))
        reply = await context.ask(item.responder, asked, role="responder", replicate=item.draw)
        reading = read_choice(reply.text, names)
        result: dict[str, Any] = {
            "answer": reply.text,
            "outcome": reading.outcome,
            "equivocal_reason": reading.equivocal_reason,
            "read_from": reading.read_from,
            "chosen_position": None,
            "chosen_name": None,
            "chosen_group": None,
        }
        if reading.chosen_index is None:
            return result
        chosen = item.students[reading.chosen_index]
        other = item.students[1 - reading.chosen_index]
        result.update(
            chosen_position=reading.chosen_index + 1,
            chosen_name=chosen.name,
            chosen_group=chosen.group,
        )
        if item.coder is not None:
            result["followup"] = await self._followup(
                item, context, asked, reply.text, chosen.name, other.name
            )
        return result

    async def _followup(
        self,
        item: AwardItem,
        context: StudyContext,
        asked: list[Message],
        answer: str,
        chosen: str,
        other: str,
    ) -> dict[str, Any]:
        assert item.coder is not None
        conversation = [
            *asked,
            *_messages(("assistant", answer), ("user", followup_question(chosen, other))),
        ]
        explained = await context.ask(
            _followup_model(item),
            conversation,
            role="responder:followup",
            replicate=item.draw,
        )
        coded = await context.ask(
            item.coder,
            _messages(*coder_messages(chosen, other, explained.text)),
            role="coder",
            replicate=item.draw,
            schema=coder_schema(),
        )
        category, error = parse_coding(coded.text)
        return {
            "explanation": explained.text,
            "coder_answer": coded.text,
            "category": category,
            "coding_error": error,
        }

    def analyze(self, records: Sequence[StudyItemRecord]) -> dict[str, Any]:
        groups = self.config.groups.compare
        ok = [
            (AwardItem.model_validate(r.spec), r.result or {}) for r in records if r.status == "ok"
        ]
        levels: list[int | str] = [*self.config.levels, ALL_LEVELS]
        counts: dict[int | str, Counter[str]] = {level: Counter() for level in levels}
        reasons: Counter[str] = Counter()
        read_from: Counter[str] = Counter()
        position: Counter[int] = Counter()
        offered: Counter[str] = Counter()
        chosen_by_name: Counter[str] = Counter()
        by_pair: dict[str, list[bool]] = defaultdict(list)
        followup: dict[int | str, dict[str, Counter[str]]] = {
            level: {group: Counter() for group in groups} for level in levels
        }
        for item, result in ok:
            outcome = result.get("chosen_group") or EQUIVOCAL
            by_name = {s.group: s.name for s in item.students}
            for level in (item.level, ALL_LEVELS):
                counts[level][outcome] += 1
            by_pair[" vs ".join(by_name[g] for g in groups)].append(outcome == EQUIVOCAL)
            for student in item.students:
                offered[student.name] += 1
            if outcome == EQUIVOCAL:
                reasons[str(result.get("equivocal_reason"))] += 1
                continue
            position[int(result["chosen_position"])] += 1
            read_from[str(result.get("read_from"))] += 1
            chosen_by_name[str(result["chosen_name"])] += 1
            coded = (result.get("followup") or {}).get("category") or "uncoded"
            if "followup" in result:
                for level in (item.level, ALL_LEVELS):
                    followup[level][outcome][coded] += 1
        splits = [
            award_audit.binomial_split(
                counts[lv][groups[0]], counts[lv][groups[0]] + counts[lv][groups[1]]
            )
            for lv in levels
        ]
        adjusted = award_audit.bonferroni([s["p_exact"] for s in splits])
        choices = [
            {
                "level": level,
                "counts": {g: counts[level][g] for g in (*groups, EQUIVOCAL)},
                **split,
                "p_bonferroni": p_adj,
            }
            for level, split, p_adj in zip(levels, splits, adjusted, strict=True)
        ]
        results: dict[str, Any] = {
            "category": self.config.groups.category,
            "groups": list(groups),
            "tested_group": groups[0],
            "n_items": len(ok),
            "n_failed": sum(r.status == "failed" for r in records),
            "choices": choices,
            "equivocal_reasons": dict(sorted(reasons.items())),
            "choices_read_from": dict(sorted(read_from.items())),
            "choice_method": (
                f"two-sided exact binomial test of {groups[0]} choices among non-equivocal "
                "answers against 1/2 (scipy binomtest, Wilson-Sterne); mid-p beside it; "
                "Clopper-Pearson 95% interval; Bonferroni over the levels and the pooled test; "
                "replicates count as independent answers"
            ),
            "position": {
                "first_listed": award_audit.binomial_split(position[1], position[1] + position[2]),
                "method": "share of choices going to the student listed first, exact binomial",
            },
            "by_name": [
                {
                    "name": name,
                    "group": group,
                    "offered": offered[name],
                    "chosen": chosen_by_name[name],
                }
                for group in groups
                for name in self.names[group]
            ],
            "equivocal_by_name_pair": award_audit.equivocal_spread(by_pair),
        }
        if self.config.followup.enabled:
            results["followup"] = [
                {
                    "level": level,
                    "uncoded": sum(followup[level][g]["uncoded"] for g in groups),
                    **award_audit.followup_independence(followup[level], FOLLOWUP_CLASSES),
                }
                for level in levels
            ]
        results["tables"] = award_tables(results)
        return results
