"""How the mock answers a question that offers options: which options it sees, the planted
preferences that act on them, reading a quoted answer, and spreading its picks when it sees its
own earlier answers."""

from __future__ import annotations

import json
import re

from fairpanel.agents._spec import MockBias
from fairpanel.agents._types import ModelRequest
from fairpanel.agents.providers._mock_draws import pick, unit
from fairpanel.agents.providers._mock_text import text_verdict

__all__ = ["choose", "earlier_answers", "offered_options", "spread"]

_OR_QUESTION = re.compile(
    r"(?:^|[,:;]\s*)(?P<first>[^,:;?\n]{1,80}?)\s+or\s+(?P<second>[^,:;?\n]{1,80}?)\?", re.M
)
_BRACKETED = re.compile(r"\[(?P<items>[^\[\]\n]+,[^\[\]\n]+)\]")
_MARKED = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_QUOTED_ANSWER = re.compile(r"<answer>\n?(?P<text>.*?)\n?</answer>", re.DOTALL)


def offered_options(text: str) -> list[str]:
    """The options of the last choice question in ``text`` (empty when there is none)."""
    found: list[tuple[int, list[str]]] = [
        (m.start(), [m.group("first").strip(), m.group("second").strip()])
        for m in _OR_QUESTION.finditer(text)
    ]
    found.extend(
        (m.start(), [part.strip() for part in m.group("items").split(",") if part.strip()])
        for m in _BRACKETED.finditer(text)
    )
    return max(found)[1] if found else []


def _names(text: str, phrase: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])", text, re.IGNORECASE) is not None


def _planted_share(bias: MockBias, option: str, said: str) -> float:
    """The option's planted share in this request (``said``: every message's text)."""
    entries = list(bias.choice_bias.items())
    for rule in bias.choice_rules:
        if re.search(rule.when, said, re.IGNORECASE):
            entries.extend(rule.favour.items())
    share = sum(value for key, value in entries if _names(option, key))
    for phrase, factor in bias.bias_damping.items():
        if phrase.lower() in said.lower():
            share *= factor
    return max(-1.0, min(1.0, share))


def _read_answer(options: list[str], said: str) -> str | None:
    """The one option a quoted ``<answer>`` block names, if exactly one."""
    blocks = _QUOTED_ANSWER.findall(said)
    if not blocks:
        return None
    named = [
        option
        for option in options
        if any(_names(blocks[-1], alt.strip()) for alt in option.split("/") if alt.strip())
    ]
    return named[0] if len(named) == 1 else None


def choose(bias: MockBias, prompt: str, options: list[str], said: str) -> str:
    """An option: a planted preference wins its share outright (a negative share avoids the
    option), else the option a quoted answer names, else uniformly among the rest."""
    favoured: list[str] = []
    avoided: set[str] = set()
    for option in options:
        share = _planted_share(bias, option, said)
        if share > 0 and unit("favour", prompt, option) < share:
            favoured.append(option)
        elif share < 0 and unit("favour", prompt, option) < -share:
            avoided.add(option)
    read = _read_answer(options, said)
    if favoured:
        pool = favoured
    elif read is not None and read not in avoided:
        pool = [read]
    else:
        pool = [option for option in options if option not in avoided] or options
    return pool[pick(len(pool), "choice", prompt)]


def earlier_answers(request: ModelRequest, field: str | None = None) -> list[str]:
    """What the mock answered earlier in this conversation: the last ``{{...}}`` of each
    assistant message (else its whole text), or with ``field`` that field of its JSON (a text
    answer's verdict line for ``winner``)."""
    answers = []
    for message in request.messages[:-1]:
        if message.role != "assistant":
            continue
        if field is None:
            marked = _MARKED.findall(message.content)
            answers.append((marked[-1] if marked else message.content).strip())
            continue
        try:
            data = json.loads(message.content)
        except json.JSONDecodeError:
            verdict = text_verdict(message.content) if field == "winner" else None
            if verdict is not None:
                answers.append(verdict)
            continue
        if isinstance(data, dict) and isinstance(data.get(field), str):
            answers.append(data[field])
    return answers


def spread(bias: MockBias, prompt: str, options: list[str], earlier: list[str]) -> str | None:
    """With earlier answers in view, in ``history_spread`` of the requests: the option named
    least often so far (ties by hash); otherwise None (answer as without history)."""
    if not earlier or unit("spread", prompt) >= bias.history_spread:
        return None
    named = [answer.casefold() for answer in earlier]
    counts = {option: named.count(option.casefold()) for option in options}
    fewest = min(counts.values())
    pool = [option for option in options if counts[option] == fewest]
    return pool[pick(len(pool), "spread-pick", prompt)]
