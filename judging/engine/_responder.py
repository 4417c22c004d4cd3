"""The candidates' texts: the two responses a responder writes per scenario (response 2
rewritten from response 1, MALIBU 3.2), or those an earlier run left in the store, and the
sampling every writer of candidate texts uses."""

from __future__ import annotations

from fairpanel.agents import CachingCaller, Message, ModelClient, ModelRequest, Sampling
from fairpanel.judging.experiment._config import ExperimentConfig
from fairpanel.judging.protocol._prompts import responder_messages, rewrite_messages
from fairpanel.judging.store import Store
from fairpanel.scenarios import DerivedScenario

__all__ = ["stored_responses", "writing_sampling", "written_responses"]


def writing_sampling(config: ExperimentConfig, model: str) -> Sampling:
    """How a model writes candidate texts: its own sampling under the responder's."""
    return config.model_spec(model).sampling.merged(config.responder.sampling)


async def written_responses(
    scenario: DerivedScenario,
    config: ExperimentConfig,
    client: ModelClient,
    caller: CachingCaller,
    store: Store,
) -> dict[int, str]:
    """Response 1, then response 2 written from it with the same steps (MALIBU 3.2)."""
    spec = config.responder_spec
    sampling = spec.sampling.merged(config.responder.sampling)
    texts: dict[int, str] = {}
    for index in (1, 2):
        pairs = (
            responder_messages(scenario.prompt)
            if index == 1
            else rewrite_messages(scenario.prompt, texts[1])
        )
        request = ModelRequest(
            model=client.model_id,
            endpoint=client.endpoint,
            messages=tuple(Message(role=role, content=text) for role, text in pairs),
            sampling=sampling,
            route_key=scenario.id,  # the rewrite repeats the first answer's prompt
        )
        reply = await caller.call(client, request, "responder")
        texts[index] = reply.text.strip()
        store.put_response(scenario.id, index, spec.id, texts[index], request.key())
    return texts


async def stored_responses(
    scenario: DerivedScenario, config: ExperimentConfig, store: Store
) -> dict[int, str]:
    """Both responses of ``scenario`` as the store holds them (copied from ``responses_from``
    before the first trial, so a missing one is a bug, not a model failure)."""
    model = config.responder_spec.id
    texts = {index: store.get_response(scenario.id, index, model) for index in (1, 2)}
    found = {index: text for index, text in texts.items() if text is not None}
    if len(found) != len(texts):
        raise RuntimeError(f"the store holds no response pair by {model} for {scenario.id}")
    return found
