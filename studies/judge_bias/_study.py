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

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from fairpanel.agents import Message
from fairpanel.judging.manipulation import ManipulationInput, apply_manipulation, word_count
from fairpanel.judging.store import StudyItemRecord
from fairpanel.report import StudyPage
from fairpanel.studies._base import PlannedCall, Study
from fairpanel.studies._context import StudyContext
from fairpanel.studies._pairs import Arrangement, pair_prompt, pair_schema, read_verdict
from fairpanel.studies.biasfreebench import (
    BbqItem,
    bbq_manifest,
    call_replicate,
    chosen_items,
)
from fairpanel.studies.judge_bias._config import JudgeBiasConfig
from fairpanel.studies.judge_bias._design import UNTOUCHED, JudgeBiasItem, iter_judge_bias_items
from fairpanel.studies.judge_bias._prompts import ANSWERER
from fairpanel.studies.judge_bias._report import judge_bias_report
from fairpanel.studies.judge_bias._stats import (
    OUTCOME_COLUMNS,
    bias_sensitivity,
    holm,
    paired_outcomes,
)
from fairpanel.studies.judge_bias._tables import judge_bias_tables

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
        return judge_bias_report(results)

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
        rows = []
        failed = 0
        lengths: dict[str, list[float]] = defaultdict(list)
        for record in records:
            item = JudgeBiasItem.model_validate(record.spec)
            if record.status != "ok" or record.result is None:
                failed += 1
                continue
            right = record.result.get("right")
            shown = str(record.result.get("wrong_shown", item.wrong))
            lengths[item.arm].append(word_count(shown) / max(1, word_count(item.wrong)))
            rows.append(
                [item.bbq_key, item.order, item.replicate, item.category, item.arm,
                 float("nan") if right is None else float(right)]
            )  # fmt: skip
        outcomes = pd.DataFrame(rows, columns=OUTCOME_COLUMNS)
        specs = self.config.specs()
        found = [
            {
                "label": spec.label,
                "kind": spec.kind,
                "control": spec.control,
                **bias_sensitivity(
                    outcomes,
                    UNTOUCHED,
                    spec.label,
                    resamples=self.config.bootstrap_resamples,
                    seed=self.config.seed,
                ),
                "by_category": _by_category(outcomes, spec.label),
                "length_ratio": float(np.mean(lengths[spec.label]))
                if lengths[spec.label]
                else None,
            }
            for spec in specs
        ]
        _excess_over_control(found)
        for row, adjusted in zip(found, holm([r["p_mcnemar"] for r in found]), strict=True):
            row["p_holm"] = adjusted
            row["called"] = adjusted is not None and adjusted < 0.05
        untouched = outcomes[outcomes["arm"] == UNTOUCHED]["right"]
        results: dict[str, Any] = {
            "n_judgments": len(outcomes),
            "n_failed": failed,
            "unreadable_verdicts": int(outcomes["right"].isna().sum()),
            "accuracy_untouched": None if untouched.dropna().empty else float(untouched.mean()),
            "manipulations": found,
            "method": (
                "Each BBQ ambiguous item is judged as a pair (the correct 'cannot be determined' "
                "answer and the stereotyped person's), wrong answer first and second, untouched "
                "and with each manipulation applied to the wrong answer. Bias-sensitive rate: "
                "the share of (item, order) pairs judged right untouched and wrong manipulated "
                "(JudgeBiasBench); reverse: wrong untouched and right manipulated. McNemar's "
                "exact test on the paired outcomes (statsmodels), Holm over the manipulations "
                "and the same-text control; 95% percentile bootstrap interval of the rate over "
                f"BBQ items ({self.config.bootstrap_resamples} resamples, both orders of an "
                "item together). Unreadable verdicts drop their pair."
            ),
        }
        results["tables"] = judge_bias_tables(results, self.config.categories)
        return results


def _excess_over_control(rows: list[dict[str, Any]]) -> None:
    """Each row's rate minus the same-text control's: the flips a judge makes on no change
    at all (sampling, or a verdict that is a coin on any new request) are in every rate."""
    control = next((row["rate"] for row in rows if row["control"]), None)
    for row in rows:
        row["excess"] = None if control is None or row["rate"] is None else row["rate"] - control


def _by_category(outcomes: pd.DataFrame, arm: str) -> dict[str, float]:
    """The bias-sensitive rate of ``arm`` within each BBQ category (no interval)."""
    paired = paired_outcomes(outcomes, UNTOUCHED, arm)
    flips = paired["right_untouched"] & ~paired["right_manipulated"]
    return {str(c): float(share) for c, share in flips.groupby(paired["category"]).mean().items()}
