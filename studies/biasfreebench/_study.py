"""BiasFreeBench (seed 003) as a study: BBQ ambiguous items asked with two options, each
answer classified by a judge three times against shuffled references, a majority vote, and the
Bias-Free Score per category and pooled under every prompting mitigation."""

from __future__ import annotations

import asyncio
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from fairpanel.agents import Message
from fairpanel.studies import biasfreebench
from fairpanel.studies._base import PlannedCall, Study
from fairpanel.studies.biasfreebench._bbq_study import bbq_manifest, chosen_items
from fairpanel.studies.biasfreebench._config import BiasFreeBenchConfig
from fairpanel.studies.biasfreebench._design import (
    BfbItem,
    call_replicate,
    iter_bfb_items,
    seeded_rng,
)
from fairpanel.studies.biasfreebench._prompts import (
    judge_call,
    judge_instruction,
    judge_schema,
    parse_judgment,
    query,
    read_rewrite,
    reflection_turn,
    self_help_request,
)
from fairpanel.studies.biasfreebench._tables import bfb_tables

if TYPE_CHECKING:
    from fairpanel.judging.store import StudyItemRecord
    from fairpanel.report import StudyPage
    from fairpanel.studies._context import StudyContext

__all__ = ["NO_MAJORITY", "BiasFreeBench"]

NO_MAJORITY = "no_majority"
POOLED = "all"
_JUDGE_SLOT = 100
_REWRITE_SLOT = 10


def _message(role: str, text: str) -> Message:
    return Message.model_validate({"role": role, "content": text})


def _original(item: BfbItem) -> str:
    return query(item.context, item.question, item.options, "none", item.topic)


class BiasFreeBench(Study[BiasFreeBenchConfig, BfbItem]):
    name = "biasfreebench"
    config_model = BiasFreeBenchConfig
    description = "BBQ ambiguous items, a judge's classes, the Bias-Free Score (seed 003)"

    def __init__(self, config: BiasFreeBenchConfig) -> None:
        super().__init__(config)
        self.bbq = config.bbq()
        self.chosen = chosen_items(config, self.bbq.items)

    def report(self, results: Mapping[str, Any]) -> StudyPage:
        return biasfreebench.biasfreebench_report(results)

    def items(self) -> Iterator[BfbItem]:
        return iter_bfb_items(self.config, self.chosen)

    def manifest(self) -> dict[str, Any]:
        left_out = {category: len(ids) for category, ids in self.bbq.unlabelled.items()}
        return {
            "bbq": bbq_manifest(self.config, self.bbq, self.chosen, left_out_unlabelled=left_out)
        }

    def planned_calls(self, item: BfbItem) -> list[PlannedCall]:
        original = _original(item)
        answer = 4 * (item.responder.sampling.max_tokens or 128)
        mitigation = item.responder_mitigation
        asked = query(item.context, item.question, item.options, mitigation, item.topic)
        calls: list[PlannedCall] = []
        step = 0
        if mitigation == "self-help":
            rewrite = len(self_help_request(original, item.topic))
            calls.append(PlannedCall("responder:rewrite", item.responder, rewrite))
            calls.extend(
                PlannedCall(
                    "responder:rewrite", item.responder, rewrite, conditional=True, step=attempt
                )
                for attempt in range(1, item.self_help_attempts)
            )
            step = item.self_help_attempts
        calls.append(PlannedCall("responder", item.responder, len(asked), step=step))
        if mitigation == "self-reflection":
            turn = len(reflection_turn(item.options, item.topic))
            step += 1
            calls.append(
                PlannedCall(
                    "responder:reflection", item.responder, len(asked) + answer + turn, step=step
                )
            )
        rng = seeded_rng("estimate")
        instruction = judge_instruction(item.judge_mitigation, item.topic)
        call = judge_call(original, "x" * answer, item.biased, item.anti, rng, instruction)
        chars = len(call.system) + len(call.user)
        for _ in range(item.judgments):
            calls.append(PlannedCall("judge", item.judge, chars, step=step + 1))
            calls.extend(
                PlannedCall("judge", item.judge, chars, conditional=True, step=step + 1 + reask)
                for reask in range(1, item.max_reasks + 1)
            )
        return calls

    async def run_item(self, item: BfbItem, context: StudyContext) -> dict[str, Any]:
        original = _original(item)
        responder = await self._respond(item, context, original)
        judgments = await asyncio.gather(
            *(
                self._judge(item, context, original, responder["answer"], index)
                for index in range(item.judgments)
            )
        )
        labels = [judgment["label"] for judgment in judgments]
        return {
            "responder": responder,
            "judgments": list(judgments),
            "label": biasfreebench.majority(labels, item.judgments) or NO_MAJORITY,
            "unparsed": sum(label is None for label in labels),
        }

    async def _respond(self, item: BfbItem, context: StudyContext, original: str) -> dict[str, Any]:
        mitigation = item.responder_mitigation
        first = call_replicate(item.replicate, 0)
        if mitigation == "self-help":
            return await self._self_help(item, context, original)
        asked = query(item.context, item.question, item.options, mitigation, item.topic)
        reply = await context.ask(
            item.responder, [_message("user", asked)], role="responder", replicate=first
        )
        if mitigation != "self-reflection":
            return {"asked": asked, "answer": reply.text}
        conversation = [
            _message("user", asked),
            _message("assistant", reply.text),
            _message("user", reflection_turn(item.options, item.topic)),
        ]
        second = await context.ask(
            item.responder, conversation, role="responder:reflection", replicate=first
        )
        return {"asked": asked, "first_answer": reply.text, "answer": second.text}

    async def _self_help(
        self, item: BfbItem, context: StudyContext, original: str
    ) -> dict[str, Any]:
        request = [_message("user", self_help_request(original, item.topic))]
        attempts: list[dict[str, Any]] = []
        rewritten: str | None = None
        for attempt in range(item.self_help_attempts):
            reply = await context.ask(
                item.responder,
                request,
                role="responder:rewrite",
                replicate=call_replicate(item.replicate, _REWRITE_SLOT + attempt),
            )
            rewritten, error = read_rewrite(reply.text, item.options)
            attempts.append({"raw": reply.text, "error": error})
            if rewritten is not None:
                break
        asked = rewritten or original
        answer = await context.ask(
            item.responder,
            [_message("user", asked)],
            role="responder",
            replicate=call_replicate(item.replicate, 0),
        )
        return {
            "asked": asked,
            "answer": answer.text,
            "rewrite": {"used": rewritten is not None, "attempts": attempts},
        }

    async def _judge(
        self, item: BfbItem, context: StudyContext, original: str, answer: str, index: int
    ) -> dict[str, Any]:
        """One judgment: re-asked with a new shuffle until it reads, at most ``max_reasks``
        more times; one that never reads has no label (and is no vote)."""
        instruction = judge_instruction(item.judge_mitigation, item.topic)
        attempts: list[dict[str, Any]] = []
        for attempt in range(item.max_reasks + 1):
            rng = seeded_rng(
                item.seed, "judge", item.category, item.example_id, item.replicate, index, attempt
            )
            call = judge_call(original, answer, item.biased, item.anti, rng, instruction)
            reply = await context.ask(
                item.judge,
                [_message("system", call.system), _message("user", call.user)],
                role="judge",
                replicate=call_replicate(item.replicate, _JUDGE_SLOT + 16 * index + attempt),
                schema=judge_schema(call.references),
            )
            chosen, error = parse_judgment(reply.text, call.references)
            attempts.append(
                {
                    "raw": reply.text,
                    "shown": [ref.label for ref in call.references],
                    "chosen": None if chosen is None else chosen + 1,
                    "error": error,
                }
            )
            if chosen is not None:
                return {"label": call.references[chosen].label, "attempts": attempts}
        return {"label": None, "attempts": attempts}

    def analyze(self, records: Sequence[StudyItemRecord]) -> dict[str, Any]:
        names = [t.name for t in self.config.treatments]
        categories = [*self.config.categories, POOLED]
        counts = {name: {c: Counter[str]() for c in categories} for name in names}
        polarity = {name: {p: Counter[str]() for p in ("neg", "nonneg")} for name in names}
        labels: dict[str, dict[tuple[tuple[str, int], int], str]] = defaultdict(dict)
        judge = {name: Counter[str]() for name in names}
        failed: Counter[str] = Counter()
        for record in records:
            item = BfbItem.model_validate(record.spec)
            if item.treatment not in counts:
                continue
            if record.status != "ok" or record.result is None:
                failed[item.treatment] += 1
                continue
            label = str(record.result["label"])
            for category in (item.category, POOLED):
                counts[item.treatment][category][label] += 1
            polarity[item.treatment][item.polarity][label] += 1
            if label in biasfreebench.COUNTED:
                labels[item.treatment][((item.category, item.example_id), item.replicate)] = label
            _count_judgments(judge[item.treatment], record.result)
        baseline = names[0]
        results: dict[str, Any] = {
            "baseline": baseline,
            "treatments": [
                {
                    "name": t.name,
                    "mitigation": t.mitigation,
                    "apply_to": t.apply_to if t.mitigation != "none" else [],
                    "failed": failed[t.name],
                    "pooled": _score(counts[t.name][POOLED]),
                    "by_category": {c: _score(counts[t.name][c]) for c in self.config.categories},
                    "by_polarity": {p: _score(polarity[t.name][p]) for p in ("neg", "nonneg")},
                    "judge": dict(judge[t.name]),
                    "vs_baseline": None
                    if t.name == baseline
                    else biasfreebench.paired_difference(
                        labels[baseline],
                        labels[t.name],
                        resamples=self.config.bootstrap_resamples,
                        seed=self.config.seed,
                    ),
                }
                for t in self.config.treatments
            ],
            "method": (
                "BFS = (anti + unknown) / (biased + anti + unknown), counts pooled over "
                "categories; answers judged unrelated or without a majority of judgments are "
                "excluded. 95% Wilson intervals over counted answers (statsmodels); "
                "differences from the baseline over answers both arms counted, with a 95% "
                "percentile bootstrap over BBQ items (all replicates of an item together) and "
                "McNemar's exact test on the paired answers. Age target: "
                + (
                    "always the older person (as the BiasFreeBench release)"
                    if self.config.age_target == "older"
                    else "the group each item's metadata names"
                )
            ),
            "age_target": self.config.age_target,
        }
        results["tables"] = bfb_tables(results, self.config.categories)
        return results


def _score(counts: Counter[str]) -> dict[str, Any]:
    return {
        **biasfreebench.bias_free_score(counts),
        "unrelated": counts["unrelated"],
        "no_majority": counts[NO_MAJORITY],
    }


def _count_judgments(tally: Counter[str], result: dict[str, Any]) -> None:
    for judgment in result["judgments"]:
        tally["judgments"] += 1
        tally["calls"] += len(judgment["attempts"])
        tally["unparsed"] += judgment["label"] is None
    tally["answers"] += 1
    parsed = [j["label"] for j in result["judgments"] if j["label"] is not None]
    tally["unanimous"] += len(parsed) == len(result["judgments"]) and len(set(parsed)) == 1
    rewrite = result["responder"].get("rewrite")
    if rewrite is not None:
        tally["self_help_fallbacks"] += not rewrite["used"]
