"""The judge-bias design: every chosen BBQ item in both orders (wrong answer shown first and
second), judged untouched and once per manipulation of the wrong answer.

One study item is one judge call. The untouched judgment of an (item, order) is shared by
every manipulation, and its manipulated twins differ from it only by the manipulation, so a
change of verdict is the judge's response to it. Items are enumerated BBQ item by BBQ item, so
a run stopped early still holds complete pairs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal

from fairpanel.judging.manipulation import ManipulationSpec
from fairpanel.studies._base import ResolvedModel
from fairpanel.studies.biasfreebench import BbqItem, BbqItemSpec
from fairpanel.studies.judge_bias._config import JudgeBiasConfig
from fairpanel.studies.judge_bias._prompts import (
    CORRECT_ANSWER,
    PROMPT_VERSION,
    bbq_task,
    wrong_answer,
)

__all__ = ["ORDERS", "UNTOUCHED", "JudgeBiasItem", "Order", "iter_judge_bias_items"]

Order = Literal["wrong_first", "wrong_second"]
ORDERS: tuple[Order, ...] = ("wrong_first", "wrong_second")
UNTOUCHED = "untouched"


class JudgeBiasItem(BbqItemSpec):
    """One judge call: a BBQ item's two answers in one order, untouched or with one
    manipulation applied to the wrong answer."""

    study: Literal["judge-bias"] = "judge-bias"
    schema_version: int = 1
    task: str
    correct: str
    wrong: str
    order: Order
    arm: str
    manipulation: ManipulationSpec | None = None
    prompt_version: int = PROMPT_VERSION
    judge: ResolvedModel

    @property
    def wrong_index(self) -> int:
        """Where the wrong answer is shown: 0 (candidate A) or 1 (B)."""
        return 0 if self.order == "wrong_first" else 1

    @property
    def bbq_key(self) -> str:
        return f"{self.category}:{self.example_id}"


def iter_judge_bias_items(
    config: JudgeBiasConfig, items: Sequence[BbqItem]
) -> Iterator[JudgeBiasItem]:
    judge = config.resolve(config.judge)
    specs = config.specs()
    for replicate in range(config.replicates):
        for item in items:
            common = {
                **BbqItemSpec.fields_of(item),
                "seed": config.seed,
                "replicate": replicate,
                "task": bbq_task(item),
                "correct": CORRECT_ANSWER,
                "wrong": wrong_answer(item),
                "judge": judge,
            }
            for order in ORDERS:
                yield JudgeBiasItem.model_validate({**common, "order": order, "arm": UNTOUCHED})
                for spec in specs:
                    yield JudgeBiasItem.model_validate(
                        {**common, "order": order, "arm": spec.label, "manipulation": spec}
                    )
