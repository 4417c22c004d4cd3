"""B-score prompts in our own words, the seeded option orders, and how answers are read.

An answer is the content of the *last* ``{{...}}`` in the reply, stripped; it is valid only
when it matches one option (exactly, as in the paper, or ignoring case when configured).
Anything else (no brackets, two options, a refusal, text off the list) is *invalid*: kept with
the reason, never counted for an option.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from typing import Literal

from fairpanel.agents import canonical_json
from fairpanel.studies.bscore._data import Question

__all__ = [
    "CHOICE_SUFFIX",
    "CONFIDENCE_QUESTION",
    "Extraction",
    "extract_choice",
    "parse_confidence",
    "seeded_rng",
    "shown_question",
]

CHOICE_SUFFIX = (
    "\nPick exactly one option and write it inside double curly brackets, like this: "
    "{{your choice}}."
)
CONFIDENCE_QUESTION = (
    "How confident are you in your answer above? Reply with a number between 0 and 1, where 0 "
    "means no confidence at all and 1 means complete confidence, inside double curly "
    "brackets: {{confidence}}."
)

_MARKED = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_LIST = re.compile(r"\[[^\[\]\n]+\]")

InvalidReason = Literal["no_brackets", "not_an_option", "unreadable_verdict"]


def seeded_rng(*parts: object) -> random.Random:
    """A generator that depends only on ``parts`` (never on call order or the process)."""
    digest = hashlib.sha256(canonical_json([str(p) for p in parts]).encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def shown_question(question: Question, order: tuple[str, ...]) -> str:
    """The question with its bracketed list in ``order``, then the answer instruction."""
    text = question.text
    if question.listed:
        found = list(_LIST.finditer(text))[-1]
        text = f"{text[: found.start()]}[{', '.join(order)}]{text[found.end() :]}"
    return text + CHOICE_SUFFIX


@dataclass(frozen=True)
class Extraction:
    """What a reply chose: the canonical option, or None and why it is invalid."""

    marked: str | None
    answer: str | None
    invalid: InvalidReason | None


def extract_choice(
    text: str, options: tuple[str, ...], match: Literal["exact", "casefold"] = "exact"
) -> Extraction:
    found = _MARKED.findall(text)
    if not found:
        return Extraction(None, None, "no_brackets")
    marked = found[-1].strip()
    for option in options:
        if marked == option or (match == "casefold" and marked.casefold() == option.casefold()):
            return Extraction(marked, option, None)
    return Extraction(marked, None, "not_an_option")


def parse_confidence(text: str) -> float | None:
    """The number in the last ``{{...}}`` (or the whole reply), when it lies in [0, 1]."""
    found = _MARKED.findall(text)
    candidate = (found[-1] if found else text).strip().rstrip(".")
    try:
        value = float(candidate)
    except ValueError:
        return None
    return value if 0.0 <= value <= 1.0 else None
