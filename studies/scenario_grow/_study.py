"""Growing scenarios as a study, so every writer and critic call goes through the run's store,
cache, rate limits, resume and ``fairpanel estimate`` like any other study's calls.

One item is one candidate: ``count * overgenerate`` of them, each with its own number in the
prompt and its own replicate, so no two calls are byte-identical. The critic is asked only about
a candidate that already passes the library's checks on its own (a call saved); the checks that
depend on other candidates (near-duplicates of those kept, stopping at ``count``) run over the
stored items in candidate order, which makes the outcome the same however the items interleaved.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from fairpanel.agents import Message, Sampling
from fairpanel.scenarios import (
    GrowScreen,
    critic_prompt,
    grow_prompt,
    load_scenarios,
    screen_replies,
)
from fairpanel.studies._base import (
    ItemSpec,
    ModelUse,
    PlannedCall,
    ResolvedModel,
    Role,
    Study,
    StudyConfig,
    result_table,
)

if TYPE_CHECKING:
    from fairpanel.judging.store import StudyItemRecord
    from fairpanel.studies._context import StudyContext

__all__ = ["ScenarioGrow", "ScenarioGrowConfig", "grown_screen"]

PROMPT_VERSION = 1


class GrowModel(ModelUse):
    """A writer or critic: sampling warm enough that candidates differ."""

    sampling: Sampling = Field(default=Sampling(temperature=0.8, max_tokens=1500))


class ScenarioGrowConfig(StudyConfig):
    """Write ``count`` new base scenarios for ``domain`` that pass the library's checks."""

    study: Literal["scenario-grow"] = "scenario-grow"
    domain: str = Field(min_length=3, description="The user's domain, in their words")
    count: int = Field(default=5, ge=1, le=200, description="Bases to keep")
    overgenerate: int = Field(default=2, ge=1, le=10, description="Candidates asked per kept base")
    variations: int = Field(default=10, ge=8, le=99, description="Variations per base")
    writer: GrowModel = Field(default=GrowModel(), description="The model that writes")
    critic: GrowModel | None = Field(default=None, description="A model that reviews, if any")

    def roles(self) -> list[Role]:
        roles = [Role("writer", ("writer",), self.writer)]
        if self.critic is not None:
            roles.append(Role("critic", ("critic",), self.critic))
        return roles


class GrowItem(ItemSpec):
    study: Literal["scenario-grow"] = "scenario-grow"
    candidate: int
    domain: str
    variations: int
    prompt_version: int = PROMPT_VERSION
    writer: ResolvedModel
    critic: ResolvedModel | None


class ScenarioGrow(Study[ScenarioGrowConfig, GrowItem]):
    name = "scenario-grow"
    config_model = ScenarioGrowConfig
    description = "New base scenarios for a domain, written by a model and screened"

    def items(self) -> Iterator[GrowItem]:
        config = self.config
        writer = config.resolve(config.writer)
        critic = config.resolve(config.critic) if config.critic is not None else None
        for candidate in range(1, config.count * config.overgenerate + 1):
            yield GrowItem(
                seed=config.seed,
                replicate=candidate,
                candidate=candidate,
                domain=config.domain,
                variations=config.variations,
                writer=writer,
                critic=critic,
            )

    def planned_calls(self, item: GrowItem) -> list[PlannedCall]:
        prompt = grow_prompt(item.domain, item.variations, item.candidate)
        calls = [PlannedCall("writer", item.writer, len(prompt))]
        if item.critic is not None:
            calls.append(PlannedCall("critic", item.critic, len(prompt) + 3000, conditional=True))
        return calls

    async def run_item(self, item: GrowItem, context: StudyContext) -> dict[str, Any]:
        prompt = grow_prompt(item.domain, item.variations, item.candidate)
        reply = await context.ask(
            item.writer,
            [Message(role="user", content=prompt)],
            role="writer",
            replicate=item.seed * 1000 + item.candidate,
        )
        verdict = None
        if item.critic is not None and _passes_alone(item, reply.text):
            answer = await context.ask(
                item.critic,
                [Message(role="user", content=critic_prompt(reply.text))],
                role="critic",
                replicate=item.seed * 1000 + item.candidate,
            )
            verdict = answer.text
        return {"raw": reply.text, "critic": verdict}

    def analyze(self, records: Sequence[StudyItemRecord]) -> dict[str, Any]:
        screen = grown_screen(self.config, records)
        rows = [[r.candidate, r.reason, r.detail] for r in screen.rejected]
        return {
            "accepted": [
                base.model_dump(mode="json", exclude_none=True) for base in screen.accepted
            ],
            "tables": [
                result_table(
                    "Accepted", ["id", "title"], [[b.id, b.title] for b in screen.accepted]
                ),
                result_table("Rejected", ["candidate", "reason", "detail"], rows),
            ],
        }


def _passes_alone(item: GrowItem, raw: str) -> bool:
    screen = screen_replies(
        [raw],
        domain=item.domain,
        model=item.writer.model_id,
        count=1,
        variations=item.variations,
        library=load_scenarios(),
    )
    return bool(screen.accepted)


def grown_screen(config: ScenarioGrowConfig, records: Sequence[StudyItemRecord]) -> GrowScreen:
    """Screen the stored candidates in candidate order (failed items are skipped)."""
    done = sorted(
        ((GrowItem.model_validate(r.spec), r.result or {}) for r in records if r.status == "ok"),
        key=lambda pair: pair[0].candidate,
    )
    return screen_replies(
        [str(result.get("raw", "")) for _, result in done],
        domain=config.domain,
        model=config.resolve(config.writer).model_id,
        count=config.count,
        variations=config.variations,
        library=load_scenarios(),
        verdicts=[result.get("critic") for _, result in done],
    )
