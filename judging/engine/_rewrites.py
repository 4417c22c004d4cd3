"""Manipulated texts a model writes, made before the judges are asked.

A manipulation with a ``rewrite`` (padding or a register by the responder, another model's
answer for self-preference) gets its text from one model call per scenario, through the call
cache: every panel, label and order of that scenario asks the very same request, so the call is
made once (in flight it is shared), stored with the others, and a resumed run finds it. The
text is checked before any judge sees it; a refused text fails the trial with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping

from fairpanel.agents import CachingCaller, Message, ModelClient, ModelRequest, Sampling
from fairpanel.judging.experiment._config import ExperimentConfig
from fairpanel.judging.experiment._design import MANIPULATED_RESPONSE, TrialSpec
from fairpanel.judging.manipulation import RewriteAsk, find_manipulation, rewrite_ask
from fairpanel.judging.protocol._prompts import manipulation_rewrite_messages, responder_messages

__all__ = ["ManipulationRefusedError", "Writer", "manipulated_responses", "writer_models"]

Writer = tuple[ModelClient, Sampling]
"""A model that writes manipulated texts, with the sampling it writes with."""


class ManipulationRefusedError(Exception):
    """A model-written manipulated text failed its check."""


def _asks(config: ExperimentConfig) -> list[RewriteAsk]:
    asks = [rewrite_ask(spec) for spec in config.arms.manipulation_specs()]
    return [ask for ask in asks if ask is not None]


def writer_models(config: ExperimentConfig) -> list[str]:
    """The models other than the responder that write manipulated texts (self-preference's
    second responder), in the file's order: each needs a client and its credentials."""
    models: list[str] = []
    for ask in _asks(config):
        if ask.model is not None and ask.model not in models:
            models.append(ask.model)
    return models


async def manipulated_responses(
    spec: TrialSpec,
    task: str,
    responses: Mapping[int, str],
    *,
    writers: Mapping[str | None, Writer],
    caller: CachingCaller,
) -> Mapping[int, str]:
    """``responses`` with response 1 replaced by the text its manipulation's model writes;
    unchanged for a trial without one, or whose manipulation is a template. ``writers`` maps
    a model reference (None: the responder) to its client."""
    if spec.manipulation is None:
        return responses
    kind = find_manipulation(spec.manipulation.kind)
    params = kind.params.model_validate(spec.manipulation.params)
    ask = kind.rewrite(params) if kind.rewrite is not None else None
    if ask is None:
        return responses
    client, sampling = writers[ask.model]
    original = responses[MANIPULATED_RESPONSE]
    pairs = (
        responder_messages(task)
        if ask.instruction is None
        else manipulation_rewrite_messages(task, original, ask.instruction)
    )
    request = ModelRequest(
        model=client.model_id,
        endpoint=client.endpoint,
        messages=tuple(Message(role=role, content=text) for role, text in pairs),
        sampling=sampling,
        route_key=spec.scenario_id,
    )
    written = (await caller.call(client, request, "responder")).text.strip()
    problem = kind.check(params, original, written) if kind.check is not None else None
    if not written:
        problem = "the model wrote nothing"
    if problem is not None:
        raise ManipulationRefusedError(f"{spec.manipulation.label}: {problem}")
    return {**responses, MANIPULATED_RESPONSE: written}
