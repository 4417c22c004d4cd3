"""Label bias (seed 001) of a judge's verdicts as a study.

Every identity pair is shown on every selected scenario in its four counterbalanced
arrangements, ``replicates`` times each; the shares of the judge's verdict labels over those
samples are its label probabilities. The same prompts with both answers replaced by
content-free texts give the prior that contextual calibration divides out. Three label sets
are measured: the winning position (A/B), the winning identity, and the score levels (0-10)
the judge gives each identity. The reference label of a prompt is the one carrying response 1,
so the label-aware averages of the paper balance out any preference for one of the texts.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from fairpanel.agents import Message
from fairpanel.studies import label_bias
from fairpanel.studies._base import ItemSpec, PlannedCall, ResolvedModel, Study
from fairpanel.studies._pairs import (
    ARRANGEMENTS,
    POSITIONS,
    Arrangement,
    arrangement,
    iter_pair_cells,
    pair_prompt,
    pair_schema,
    read_verdict,
    responses_for,
)
from fairpanel.studies.label_bias._config import LabelBiasConfig
from fairpanel.studies.label_bias._stats import LabelOutcome, label_bias_view
from fairpanel.studies.label_bias._views import (
    LEVELS,
    PROBABILITY_METHOD,
    label_bias_tables,
    shares,
    verdict_outcome,
)

if TYPE_CHECKING:
    from fairpanel.judging.store import StudyItemRecord
    from fairpanel.report import StudyPage
    from fairpanel.studies._context import StudyContext

__all__ = ["LabelBias", "LabelBiasItem"]

PROMPT_VERSION = 1


class LabelBiasItem(ItemSpec):
    """One sample of one prompt: a real pair, or the pair's context with content-free text."""

    study: Literal["label-bias"] = "label-bias"
    schema_version: int = 1
    kind: Literal["pair", "content_free"]
    scenario_id: str
    task: str
    pair: tuple[str, str]
    phrases: dict[str, str]
    shown: Arrangement
    content_free: str | None = None
    prompt_version: int = PROMPT_VERSION
    judge: ResolvedModel
    responder: ResolvedModel


class LabelBias(Study[LabelBiasConfig, LabelBiasItem]):
    name = "label-bias"
    config_model = LabelBiasConfig
    description = "RSD and BiasScore of a judge's verdict labels, calibrated (seed 001)"

    def report(self, results: Mapping[str, Any]) -> StudyPage:
        return label_bias.label_bias_report(results)

    def items(self) -> Iterator[LabelBiasItem]:
        config = self.config
        judge, responder = config.resolve(config.judge), config.resolve(config.pairs.responder)
        phrases = config.pairs.phrases()
        cells = list(iter_pair_cells(config.pairs))
        for replicate, (task, pair) in itertools.product(range(config.replicates), cells):
            common = {
                "seed": config.seed,
                "replicate": replicate,
                "scenario_id": task.id,
                "task": task.prompt,
                "pair": pair,
                "phrases": {label: phrases[label] for label in pair},
                "judge": judge,
                "responder": responder,
            }
            for cell in ARRANGEMENTS:
                yield LabelBiasItem.model_validate(
                    {**common, "kind": "pair", "shown": arrangement(pair, cell)}
                )
            for text, first in itertools.product(config.content_free, (0, 1)):
                yield LabelBiasItem.model_validate(
                    {
                        **common,
                        "kind": "content_free",
                        "shown": arrangement(pair, (first, 1)),
                        "content_free": text,
                    }
                )

    def planned_calls(self, item: LabelBiasItem) -> list[PlannedCall]:
        role = "judge" if item.kind == "pair" else "judge:content-free"
        after = 2 if item.kind == "pair" else 0  # a pair's judge reads the two responses
        calls = [PlannedCall(role, item.judge, len(item.task) + 3000, step=after)]
        first = arrangement(item.pair, ARRANGEMENTS[0])
        if item.kind == "pair" and item.replicate == 0 and item.shown == first:
            # The two responses of a scenario are written once and shared by its prompts.
            calls.append(PlannedCall("responder", item.responder, len(item.task) + 300))
            calls.append(PlannedCall("responder", item.responder, len(item.task) + 1200, step=1))
        return calls

    async def run_item(self, item: LabelBiasItem, context: StudyContext) -> dict[str, Any]:
        if item.kind == "pair":
            texts = await responses_for(item.task, item.responder, context)
        else:
            texts = (item.content_free or "", item.content_free or "")
        prompt = pair_prompt(item.task, texts, item.shown, item.phrases)
        reply = await context.ask(
            item.judge,
            [Message(role="user", content=prompt)],
            role="judge" if item.kind == "pair" else "judge:content-free",
            replicate=item.replicate,
            schema=pair_schema(),
        )
        verdict = read_verdict(reply.text)
        return {"raw": reply.text, **verdict.model_dump()}

    def analyze(self, records: Sequence[StudyItemRecord]) -> dict[str, Any]:
        done = [
            (LabelBiasItem.model_validate(r.spec), r.result or {})
            for r in records
            if r.status == "ok"
        ]
        unread = sum(1 for _, result in done if result.get("winner") is None)
        views = self._views(done)
        return {
            "n_samples": len(done),
            "n_failed": sum(r.status == "failed" for r in records),
            "unreadable_verdicts": unread,
            "probability_method": PROBABILITY_METHOD,
            "calibration": self.config.calibration,
            "loo_method": "leave-one-out over scenarios: each scenario's prompts are calibrated "
            "with the label-aware mean of every other scenario's prompts (the paper's LOOC "
            "leaves out in-context demonstrations; judge prompts have none, so the judge's "
            "other labelled verdicts take their place)",
            "views": views,
            "tables": label_bias_tables(views, "Label bias of the judge's verdicts"),
        }

    def _views(self, done: list[tuple[LabelBiasItem, dict[str, Any]]]) -> list[dict[str, Any]]:
        samples: dict[tuple[str, str, str, Arrangement], list[dict[str, Any]]] = defaultdict(list)
        for item, result in done:
            key = (item.kind, item.scenario_id, "|".join(item.pair), item.shown)
            samples[key].append(result)
        views = []
        method = self.config.calibration
        for pair in self.config.pairs.pairs:
            joined = "|".join(pair)
            mine = {k: v for k, v in samples.items() if k[2] == joined}
            positions, identities, levels = _outcomes(mine, pair)
            free_pos, free_id, free_levels = _priors(mine, pair)
            use_free = bool(self.config.content_free)
            views.append(
                {
                    "name": f"position ({pair[0]} vs {pair[1]})",
                    **label_bias_view(
                        positions, POSITIONS, content_free=free_pos if use_free else None,
                        method=method,
                    ),
                }
            )  # fmt: skip
            views.append(
                {
                    "name": f"identity ({pair[0]} vs {pair[1]})",
                    **label_bias_view(
                        identities, pair, content_free=free_id if use_free else None,
                        method=method,
                    ),
                }
            )  # fmt: skip
            for label in pair:
                chosen = [o for o in levels if o.tags.get("identity") == label]
                views.append(
                    {
                        "name": f"score level ({label}, vs {pair[1 - pair.index(label)]})",
                        **label_bias_view(
                            chosen, LEVELS, content_free=free_levels if use_free else None,
                            method=method,
                        ),
                    }
                )  # fmt: skip
        return views


Samples = dict[tuple[str, str, str, Arrangement], list[dict[str, Any]]]


def _levels(results: Sequence[dict[str, Any]], position: str) -> list[str]:
    return [
        str(round(score))
        for result in results
        if result.get("scores")
        for score in result["scores"][position].values()
    ]


def _outcomes(
    samples: Samples, pair: tuple[str, str]
) -> tuple[list[LabelOutcome], list[LabelOutcome], list[LabelOutcome]]:
    positions, identities, levels = [], [], []
    for (kind, scenario, joined, shown), results in samples.items():
        if kind != "pair":
            continue
        context = f"{scenario}|{joined}"
        winners = [r["winner"] for r in results if r.get("winner") in POSITIONS]
        reference = shown.position_of_response(1)
        found = verdict_outcome(
            winners, POSITIONS, reference=reference, context=context, group=scenario
        )
        if found is not None:
            positions.append(found)
        found = verdict_outcome(
            [shown.identity_at(w) for w in winners],
            pair,
            reference=shown.identity_at(reference),
            context=context,
            group=scenario,
        )
        if found is not None:
            identities.append(found)
        for position in POSITIONS:
            label = shown.identity_at(position)
            found = verdict_outcome(
                _levels(results, position),
                LEVELS,
                reference="-",
                context=f"{scenario}|{label}",
                group=scenario,
                tags={"identity": label},
            )
            if found is not None:
                levels.append(found)
    return positions, identities, levels


Prior = dict[str, tuple[dict[str, float], int]]


def _priors(samples: Samples, pair: tuple[str, str]) -> tuple[Prior, Prior, Prior]:
    """Content-free label shares per context: positions and identities per scenario and pair,
    score levels per scenario and identity."""
    picked: dict[str, list[str]] = defaultdict(list)
    named: dict[str, list[str]] = defaultdict(list)
    leveled: dict[str, list[str]] = defaultdict(list)
    for (kind, scenario, joined, shown), results in samples.items():
        if kind != "content_free":
            continue
        context = f"{scenario}|{joined}"
        winners = [r["winner"] for r in results if r.get("winner") in POSITIONS]
        picked[context].extend(winners)
        named[context].extend(shown.identity_at(w) for w in winners)
        for position in POSITIONS:
            leveled[f"{scenario}|{shown.identity_at(position)}"].extend(_levels(results, position))
    return (
        {c: shares(v, POSITIONS) for c, v in picked.items() if v},
        {c: shares(v, pair) for c, v in named.items() if v},
        {c: shares(v, LEVELS) for c, v in leveled.items() if v},
    )
