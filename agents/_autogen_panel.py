"""The judge panel's debate as an AutoGen group chat, returned as fairpanel's own records.

This is the only module that imports ``autogen_agentchat``. Judges are ``AssistantAgent``s
with persona system messages; the independent first round runs each agent alone, then every
later round is one pass of a ``RoundRobinGroupChat`` (a fixed speaker order; LLM speaker
selection would add hidden calls and noise). Each agent's model calls go through a bridge
client that adds the judge's output schema, asks again when the answer does not validate,
and routes the call through the run's cache.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.teams import RoundRobinGroupChat
from autogen_core import CancellationToken
from autogen_core.models import (
    AssistantMessage,
    ChatCompletionClient,
    CreateResult,
    LLMMessage,
    ModelCapabilities,
    ModelInfo,
    RequestUsage,
    SystemMessage,
    UserMessage,
)
from autogen_core.tools import Tool, ToolSchema
from pydantic import BaseModel

from fairpanel.agents._calls import CachingCaller
from fairpanel.agents._types import (
    Message,
    ModelCallError,
    ModelClient,
    ModelRequest,
    Sampling,
    Usage,
)

# AutoGen traces every runtime message through OpenTelemetry; fairpanel exports no traces,
# and the no-op spans cost a noticeable share of the CPU per judge call. A user who wants
# them sets the variable to anything but "true" before importing fairpanel.
os.environ.setdefault("AUTOGEN_DISABLE_RUNTIME_TRACING", "true")

__all__ = [
    "AnswerRules",
    "DebateError",
    "DebateRound",
    "Seat",
    "TurnOutcome",
    "run_debate",
    "run_single_turn",
]

RoundKind = Literal["first", "discussion", "final", "moderator"]
Validator = Callable[[str], str | None]


@dataclass(frozen=True)
class Seat:
    """One judge at the table: persona, model and sampling."""

    name: str
    system_message: str
    client: ModelClient
    sampling: Sampling


def _as_said(speaker: str, text: str) -> str:
    """Another agent's message as the group chat shows it by default: its name, then its text."""
    return f"[{speaker}]\n{text}"


def _unchanged(text: str) -> str:
    return text


@dataclass(frozen=True)
class AnswerRules:
    """How judges' answers are requested and checked: the output schema (None for a free-text
    answer: no structured output or JSON mode is asked for), the validator, the re-ask wording
    and limit, what goes into every request's key and role, the route key that keeps the
    trial's calls on one replica (not part of the request key), and how judges' words are
    shown back: another judge's message in the group chat (``quote(speaker, text)``) and the
    judge's own earlier answers (``own_turn(text)``). The judging protocol fences the one and
    defuses the other, so a judge repeating a candidate's markup cannot close a fence."""

    schema: dict[str, Any] | None
    validate: Validator
    reask: Callable[[str], str]
    max_reasks: int
    replicate: int
    role_prefix: str = "judge"
    route_key: str | None = None
    quote: Callable[[str, str], str] = _as_said
    own_turn: Callable[[str], str] = _unchanged


@dataclass
class TurnOutcome:
    """One judge's answer in one round, after any re-asks."""

    judge: str
    round: int
    round_kind: RoundKind
    speaker_index: int
    text: str = ""
    attempts: int = 0
    error: str | None = None
    usage: Usage = field(default_factory=Usage)
    latency_s: float = 0.0
    call_keys: list[str] = field(default_factory=list)


class DebateError(ModelCallError):
    """The debate stopped on a model error; ``outcomes`` holds the turns that were answered."""

    def __init__(self, message: str, outcomes: list[TurnOutcome]) -> None:
        super().__init__(message)
        self.outcomes = outcomes


@dataclass(frozen=True)
class DebateRound:
    """One round's instruction. With ``per_judge`` each judge answers alone, in a fresh chat
    that holds only the shared context, its persona and its own prompt (a blind vote)."""

    kind: RoundKind
    prompt: str
    per_judge: Mapping[str, str] | None = None


def _render(message: LLMMessage, rules: AnswerRules) -> Message:
    if isinstance(message, SystemMessage):
        return Message(role="system", content=message.content)
    if isinstance(message, AssistantMessage) and isinstance(message.content, str):
        return Message(role="assistant", content=rules.own_turn(message.content))
    if isinstance(message, UserMessage) and isinstance(message.content, str):
        if message.source in ("user", ""):
            return Message(role="user", content=message.content)
        return Message(role="user", content=rules.quote(message.source, message.content))
    raise ModelCallError(f"judge received an unsupported message: {type(message).__name__}")


class _BridgeClient(ChatCompletionClient):
    """An AutoGen model client that answers through fairpanel's caching caller."""

    def __init__(
        self, *, seat: Seat, context: str | None, caller: CachingCaller, rules: AnswerRules
    ) -> None:
        self._seat = seat
        self._context = [] if context is None else [Message(role="system", content=context)]
        self._caller = caller
        self._rules = rules
        self.round_kind: RoundKind = "first"
        self.outcomes: list[TurnOutcome] = []
        self.pending: TurnOutcome | None = None

    async def create(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = (),
        tool_choice: Tool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> CreateResult:
        outcome = self.pending
        assert outcome is not None, "the debate sets up each turn before the agent speaks"
        rules = self._rules
        conversation = self._context + [_render(message, rules) for message in messages]
        total = Usage()
        text = ""
        for attempt in range(rules.max_reasks + 1):
            request = ModelRequest(
                model=self._seat.client.model_id,
                endpoint=self._seat.client.endpoint,
                messages=tuple(conversation),
                sampling=self._seat.sampling,
                response_schema=rules.schema,
                replicate=rules.replicate,
                route_key=rules.route_key,
            )
            try:
                reply = await self._caller.call(
                    self._seat.client, request, f"{rules.role_prefix}:{self.round_kind}"
                )
            except ModelCallError as exc:
                outcome.error = f"model call failed: {exc}"
                raise
            outcome.call_keys.append(request.key())
            outcome.attempts = attempt + 1
            outcome.latency_s += reply.latency_s
            total = total + reply.usage
            text = reply.text
            problem = rules.validate(text)
            outcome.error = problem
            if problem is None:
                break
            conversation += [
                Message(role="assistant", content=rules.own_turn(text)),
                Message(role="user", content=rules.reask(problem)),
            ]
        outcome.text = text
        outcome.usage = total
        return CreateResult(
            finish_reason="stop",
            content=text,
            usage=RequestUsage(
                prompt_tokens=total.prompt_tokens, completion_tokens=total.completion_tokens
            ),
            cached=False,
        )

    def create_stream(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[Tool | ToolSchema] = (),
        tool_choice: Tool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] = {},
        cancellation_token: CancellationToken | None = None,
    ) -> AsyncGenerator[str | CreateResult, None]:
        async def _one() -> AsyncGenerator[str | CreateResult, None]:
            yield await self.create(messages)

        return _one()

    async def close(self) -> None:
        return None

    def actual_usage(self) -> RequestUsage:
        return RequestUsage(prompt_tokens=0, completion_tokens=0)

    def total_usage(self) -> RequestUsage:
        return RequestUsage(prompt_tokens=0, completion_tokens=0)

    def count_tokens(
        self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = ()
    ) -> int:
        return 0

    def remaining_tokens(
        self, messages: Sequence[LLMMessage], *, tools: Sequence[Tool | ToolSchema] = ()
    ) -> int:
        return 1_000_000

    @property
    def capabilities(self) -> ModelCapabilities:
        return {"vision": False, "function_calling": False, "json_output": True}

    @property
    def model_info(self) -> ModelInfo:
        return ModelInfo(
            vision=False,
            function_calling=False,
            json_output=True,
            family="unknown",
            structured_output=True,
            multiple_system_messages=True,
        )


async def run_debate(
    seats: Sequence[Seat],
    caller: CachingCaller,
    *,
    context: str | None,
    first_prompt: str,
    later_round: Callable[[int, list[TurnOutcome]], Awaitable[DebateRound] | DebateRound],
    rounds: int,
    rules: AnswerRules,
) -> list[TurnOutcome]:
    """Run ``rounds`` rounds (the first independent) and return every judge's turn in order.

    ``context`` (the material every judge shares) is sent as the first system message, ahead
    of each judge's persona, so prompt caches can share it across the panel.

    ``later_round(r, outcomes_so_far)`` builds round ``r``'s instruction from what was said.
    A model error ends the debate with the error recorded on the turn and re-raised.
    """

    def bridge_for(seat: Seat) -> _BridgeClient:
        return _BridgeClient(seat=seat, context=context, caller=caller, rules=rules)

    bridges = [bridge_for(seat) for seat in seats]
    agents = [_agent(seat, bridge) for seat, bridge in zip(seats, bridges, strict=True)]
    outcomes: list[TurnOutcome] = []

    def open_turns(round_index: int, kind: RoundKind) -> list[TurnOutcome]:
        opened = []
        for index, (seat, bridge) in enumerate(zip(seats, bridges, strict=True)):
            turn = TurnOutcome(
                judge=seat.name, round=round_index, round_kind=kind, speaker_index=index
            )
            bridge.round_kind = kind
            bridge.pending = turn
            opened.append(turn)
        return opened

    def failure(turns: list[TurnOutcome], exc: BaseException) -> DebateError:
        outcomes.extend(t for t in turns if t.attempts)
        errors = [t.error for t in turns if t.error and t.error.startswith("model call failed")]
        return DebateError(errors[0] if errors else f"debate failed: {exc}", list(outcomes))

    first_turns = open_turns(0, "first")
    # The first judge answers alone so that the shared context is in the provider's prompt
    # cache before the others send it; then the rest answer concurrently.
    try:
        await agents[0].run(task=first_prompt)
    except Exception as exc:
        raise failure(first_turns, exc) from exc
    results = await asyncio.gather(
        *(agent.run(task=first_prompt) for agent in agents[1:]), return_exceptions=True
    )
    for result in results:
        if isinstance(result, BaseException):
            raise failure(first_turns, result) from result
    outcomes.extend(first_turns)
    if rounds <= 1:
        return outcomes
    team = RoundRobinGroupChat(list(agents), max_turns=len(agents))
    for round_index in range(1, rounds):
        built = later_round(round_index, list(outcomes))
        spec = built if isinstance(built, DebateRound) else await built
        turns = open_turns(round_index, spec.kind)
        try:
            if spec.per_judge is None:
                await team.run(task=spec.prompt)
            else:
                await _alone(seats, turns, spec, bridge_for)
        except Exception as exc:
            raise failure(turns, exc) from exc
        missing = [t.judge for t in turns if t.attempts == 0]
        if missing:
            raise failure(turns, RuntimeError(f"judges did not speak: {', '.join(missing)}"))
        outcomes.extend(turns)
    return outcomes


def _agent(seat: Seat, bridge: _BridgeClient) -> AssistantAgent:
    return AssistantAgent(
        name=seat.name,
        model_client=bridge,
        system_message=seat.system_message,
        description=f"judge {seat.name}",
    )


async def _alone(
    seats: Sequence[Seat],
    turns: list[TurnOutcome],
    spec: DebateRound,
    bridge_for: Callable[[Seat], _BridgeClient],
) -> None:
    """Each judge answers in a fresh chat (no group history), concurrently."""
    assert spec.per_judge is not None
    runs = []
    for seat, turn in zip(seats, turns, strict=True):
        bridge = bridge_for(seat)
        bridge.round_kind = spec.kind
        bridge.pending = turn
        runs.append(_agent(seat, bridge).run(task=spec.per_judge[seat.name]))
    results = await asyncio.gather(*runs, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result


async def run_single_turn(
    seat: Seat,
    caller: CachingCaller,
    *,
    context: str | None,
    prompt: str,
    round_index: int,
    kind: RoundKind,
    rules: AnswerRules,
) -> TurnOutcome:
    """One agent answering once, alone (the moderator); failures are recorded, then raised."""
    bridge = _BridgeClient(seat=seat, context=context, caller=caller, rules=rules)
    turn = TurnOutcome(judge=seat.name, round=round_index, round_kind=kind, speaker_index=0)
    bridge.round_kind = kind
    bridge.pending = turn
    try:
        await _agent(seat, bridge).run(task=prompt)
    except Exception as exc:
        raise ModelCallError(turn.error or f"{seat.name} failed: {exc}") from exc
    return turn
