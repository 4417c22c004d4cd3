"""The mock judge's free-text answers.

A judge asked without an output schema to end with lines like ``Creativity: <0-10>`` (and, for
a pair, ``Candidate A:`` / ``Candidate B:`` headings and a ``Verdict:`` line: fairpanel's text
answer format) gets the judgment the mock would have sent as JSON for the same messages, written
as that text: the same draws, so the same scores and verdict, and the planted biases act alike
in both formats. The format is read from the request (the latest message that states it), as
the mock reads everything else, so the provider needs nothing from fairpanel's judging code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from fairpanel.agents._types import ModelRequest

__all__ = ["TextAsk", "text_answer", "text_ask", "text_verdict"]

_SCORE_SLOT = re.compile(r"^(?P<name>[A-Za-z][A-Za-z _-]*?): <0-10>$", re.MULTILINE)
_PAIR_HEADING = re.compile(r"^Candidate B:$", re.MULTILINE)
_VERDICT = re.compile(r"^Verdict: Candidate (?P<id>\S+) is better$", re.MULTILINE)


@dataclass(frozen=True)
class TextAsk:
    """What a text-format request asks for: the metrics as written, and whether it is a pair."""

    shown: tuple[str, ...]
    pair: bool

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metric names as the JSON schema has them (lower case), so draws match JSON's."""
        return tuple(name.lower() for name in self.shown)


def text_ask(request: ModelRequest) -> TextAsk | None:
    """The text format a schema-less request asks for, from the latest message stating it (in
    a discussion the last message may be another judge's answer); None when none does."""
    if request.response_schema is not None:
        return None
    for message in reversed(request.messages):
        names = list(dict.fromkeys(m.group("name") for m in _SCORE_SLOT.finditer(message.content)))
        if names:
            return TextAsk(shown=tuple(names), pair=bool(_PAIR_HEADING.search(message.content)))
    return None


def text_answer(reply: dict[str, Any], ask: TextAsk) -> str:
    """``reply`` (the mock's JSON answer as a dict) written in the requested text format."""

    def lines(scores: dict[str, Any]) -> list[str]:
        return [
            f"{shown}: {scores[key]}" for shown, key in zip(ask.shown, ask.metrics, strict=True)
        ]

    out = [str(reply["reason"]), ""]
    if ask.pair:
        for candidate_id in sorted(k for k in reply if k not in ("reason", "winner")):
            out += [f"Candidate {candidate_id}:", *lines(reply[candidate_id])]
        out.append(f"Verdict: Candidate {reply['winner']} is better")
    else:
        out += lines(reply)
    return "\n".join(out)


def text_verdict(text: str) -> str | None:
    """The candidate a text answer of the mock's declared better (for its earlier answers)."""
    found = _VERDICT.findall(text)
    return found[-1] if found else None
