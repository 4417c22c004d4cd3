"""What a design's trials would cost in calls and tokens, worked out without making a call.

A trial's calls follow from its shape (the panel's seats in speaking order, rounds, vote,
moderator, how many candidates), and every one of them starts with the trial's shared context
(rubric, task, labelled candidates). A design of thousands of trials has a few shapes and a few
hundred context lengths, so each is worked out once and the trials are counted by the pair;
the sums are the same as adding up every call of every trial.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from fairpanel.agents import Usage
from fairpanel.judging.experiment._design import SeatSpec, TrialSpec
from fairpanel.judging.protocol._prompts import (
    discussion_prompt,
    final_prompt,
    judge_ask,
    judge_context,
)

__all__ = ["CHARS_PER_TOKEN", "Tally", "TrialCounts", "tokens"]

CHARS_PER_TOKEN = 4
_DEFAULT_JUDGE_TOKENS = 200
_DEFAULT_MODERATOR_TOKENS = 200


def tokens(text: str) -> int:
    return max(1, len(text) // CHARS_PER_TOKEN)


class Tally:
    """Calls and tokens summed as plain integers: a large design adds millions of calls, and a
    ``Usage`` per call cost most of an estimate's time."""

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()
        self.calls_by_model: Counter[str] = Counter()
        self._prompt: dict[str, int] = {}
        self._completion: dict[str, int] = {}

    def add(self, role: str, model: str, prompt: int, completion: int, calls: int = 1) -> None:
        """``calls`` calls of ``role`` to ``model``, with these tokens between them."""
        self.calls[role] += calls
        self.calls_by_model[model] += calls
        self._prompt[model] = self._prompt.get(model, 0) + prompt
        self._completion[model] = self._completion.get(model, 0) + completion

    @property
    def tokens(self) -> dict[str, Usage]:
        return {
            model: Usage(prompt_tokens=prompt, completion_tokens=self._completion[model])
            for model, prompt in self._prompt.items()
        }


# The prompts are pure functions of these arguments: each length is worked out once.
def _context_tokens(
    task: str, authors: tuple[str, ...], position: str, wording: str, response_tokens: int
) -> int:
    """The tokens of a trial's shared context with full-length responses. A candidate's block
    is its author's label around its text, and fencing keeps a text's length, so the context's
    length is its frame's (task and unlabelled candidates) plus each author's label."""
    frame = _frame_chars(task, len(authors), position, wording, response_tokens)
    return max(1, (frame + _labels_chars(authors, position, wording)) // CHARS_PER_TOKEN)


@functools.cache
def _frame_chars(task: str, count: int, position: str, wording: str, response_tokens: int) -> int:
    placeholder = "x" * (response_tokens * CHARS_PER_TOKEN)
    return len(judge_context(task, [("", placeholder)] * count, position=position, wording=wording))


@functools.cache
def _labels_chars(authors: tuple[str, ...], position: str, wording: str) -> int:
    return sum(_label_chars(author, position, wording) for author in authors)


@functools.cache
def _label_chars(author: str, position: str, wording: str) -> int:
    """What ``author``'s label adds to a candidate's block."""
    labelled, unlabelled = (
        judge_context("", [(name, "")], position=position, wording=wording) for name in (author, "")
    )
    return len(labelled) - len(unlabelled)


@functools.cache
def _prompt_tokens(prompt: Callable[[Any, Any], str], first: Any, second: Any) -> int:
    return tokens(prompt(first, second))


@functools.cache
def _discussion_tokens(
    round_index: int,
    outputs: tuple[tuple[str, int], ...],
    answer_format: Literal["json", "text"],
    count: int,
) -> int:
    summaries = [(persona, "x" * output * CHARS_PER_TOKEN) for persona, output in outputs]
    return tokens(discussion_prompt(round_index, summaries, answer_format, count))


_Seat = tuple[str, str, int, int]
"""A seat as its calls see it: persona, model id, persona tokens, answer tokens."""


@dataclass(frozen=True)
class _Calls:
    """A trial's calls of one role to one model: each starts with the trial's context, and
    ``prompt`` is their prompt tokens besides it."""

    role: str
    model: str
    calls: int
    prompt: int
    completion: int


@dataclass(frozen=True)
class _Shape:
    calls: tuple[_Calls, ...]
    steps: int
    """Batches one after another: the first judge alone, then the others; each speaker of a
    discussion round (a speaker reads the earlier ones); the final round (at once when the
    vote is blind); the moderator."""


def _shape(
    judge: str,
    seats: tuple[_Seat, ...],
    moderator: _Seat | None,
    count: int,
    answer_format: Literal["json", "text"],
    discussion_rounds: int,
    blind: bool,
) -> _Shape:
    summed: dict[tuple[str, str], list[int]] = {}

    def add(role: str, model: str, prompt: int, completion: int) -> None:
        one = summed.setdefault((role, model), [0, 0, 0])
        one[0] += 1
        one[1] += prompt
        one[2] += completion

    ask = _prompt_tokens(judge_ask, count, answer_format)
    histories = {persona: persona_tokens + ask for persona, _, persona_tokens, _ in seats}
    outputs = {persona: output for persona, _, _, output in seats}
    for persona, model, _, output in seats:
        add(f"{judge}:first", model, histories[persona], output)
        histories[persona] += output
    rounds = discussion_rounds + 1
    for round_index in range(1, rounds + 1):
        final = round_index == rounds
        kind = "final" if final else "discussion"
        summaries = tuple((persona, outputs[persona]) for persona, *_ in seats)
        prompt = (
            _prompt_tokens(final_prompt, answer_format, count)
            if final
            else _discussion_tokens(round_index, summaries, answer_format, count)
        )
        said = 0
        for persona, model, _, output in seats:
            history = histories[persona] + prompt
            if not (final and blind):
                history += said  # the earlier speakers of this round
            add(f"{judge}:{kind}", model, history, output)
            histories[persona] = history + output
            said += output
    if moderator is not None:
        _, model, persona_tokens, output = moderator
        add(f"{judge}:moderator", model, persona_tokens + sum(outputs.values()), output)
    size = len(seats)
    steps = 1 + (size > 1) + size * discussion_rounds + (1 if blind else size)
    return _Shape(
        calls=tuple(_Calls(role, model, *sums) for (role, model), sums in summed.items()),
        steps=steps + (moderator is not None),
    )


class TrialCounts:
    """A design's trials counted by panel, protocol and arm, shape and context length."""

    def __init__(self, persona_tokens: dict[str, int], response_tokens: int) -> None:
        self._persona_tokens = persona_tokens
        self._response_tokens = response_tokens
        self._shapes: list[_Shape] = []
        self._shape_of: dict[tuple[Any, ...], int] = {}
        self._held: list[Any] = []
        self._counts: Counter[tuple[str | None, str, str, int, int]] = Counter()

    def add(self, spec: TrialSpec, task: str) -> None:
        """One trial of ``task`` (its scenario's prompt)."""
        context = _context_tokens(
            task, spec.authors, spec.label_position, spec.label_wording, self._response_tokens
        )
        self._counts[spec.panel, spec.protocol, spec.arm, self._shape_index(spec), context] += 1

    def _shape_index(self, spec: TrialSpec) -> int:
        # A design's trials share its panels' seat objects, so a shape is found by their
        # identities; ``_held`` keeps every keyed object alive, so no identity is reused for
        # another seat (an unshared seat object costs only an entry).
        key = (
            spec.panel, *map(id, spec.seats), id(spec.moderator), len(spec.authors),
            spec.answer_format, spec.discussion_rounds, spec.final_vote,
        )  # fmt: skip
        index = self._shape_of.get(key)
        if index is None:
            self._held.append((spec.seats, spec.moderator))
            index = self._shape_of[key] = len(self._shapes)
            self._shapes.append(self._new_shape(spec))
        return index

    def _new_shape(self, spec: TrialSpec) -> _Shape:
        def seat(one: SeatSpec, default: int) -> _Seat:
            output = one.sampling.max_tokens or default
            return (one.persona, one.model_id, self._persona_tokens[one.persona], output)

        return _shape(
            f"{spec.panel} judge" if spec.panel else "judge",
            tuple(seat(one, _DEFAULT_JUDGE_TOKENS) for one in spec.seats),
            None if spec.moderator is None else seat(spec.moderator, _DEFAULT_MODERATOR_TOKENS),
            len(spec.authors),
            spec.answer_format,
            spec.discussion_rounds,
            spec.final_vote == "blind",
        )

    @property
    def steps(self) -> int:
        """The most batches one trial takes one after another."""
        return max((shape.steps for shape in self._shapes), default=0)

    def into(
        self, tally: Tally, trials: Counter[str], panels: dict[str, tuple[Counter[str], Tally]]
    ) -> None:
        """Add the trials' calls and tokens to ``tally`` and the trials to ``trials``; a panel's
        (in an experiment that compares panels) to its own pair in ``panels`` as well."""
        for (panel, protocol, arm, index, context), count in self._counts.items():
            targets = [(trials, tally)]
            if panel is not None:
                targets.append(panels.setdefault(panel, (Counter(), Tally())))
            for arms, into in targets:
                arms[f"{protocol}/{arm}"] += count
                for one in self._shapes[index].calls:
                    into.add(
                        one.role,
                        one.model,
                        count * (one.prompt + one.calls * context),
                        count * one.completion,
                        count * one.calls,
                    )
