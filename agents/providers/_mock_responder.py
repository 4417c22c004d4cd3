"""The mock as a responder: a deterministic answer of four steps to a task, or a rewrite of a
fenced response (a few words swapped, or restated to the length it is asked for)."""

from __future__ import annotations

import re

from fairpanel.agents._types import ModelRequest
from fairpanel.agents.providers._mock_draws import pick

__all__ = ["responder_text"]

_REWRITE = re.compile(r"<response>\n?(?P<text>.*?)\n?</response>", re.DOTALL)
_LONGER = re.compile(r"to about (\d+(?:\.\d+)?) times its length")
_STEP_VERBS = ("Assess", "Plan", "Prioritise", "Communicate", "Review", "Document", "Adjust")
_SYNONYMS = (("Step", "Stage"), ("review", "check"), ("plan", "schedule"), ("clear", "explicit"))


def responder_text(request: ModelRequest, style: int = 0) -> str:
    """An answer of four steps, or a rewrite of the fenced response: a few words swapped, or
    (asked for "about N times its length") followed by restatements of itself to that length."""
    last = request.messages[-1].content
    rewrite = _REWRITE.search(last)
    if rewrite:
        text = rewrite.group("text")
        longer = _LONGER.search(last)
        if longer:
            words, wanted = len(text.split()), float(longer.group(1)) * len(text.split())
            restated = [text]
            while sum(len(part.split()) for part in restated) < wanted - words / 2:
                restated.append(f"In other words: {text}")
            return "\n\n".join(restated)
        for old, new in _SYNONYMS:
            text = text.replace(old, new, 1)
        return text
    topic = " ".join(last.split()[:10])
    salt = (f"style={style}",) if style else ()  # the default mock's answers stay as they were
    steps = [
        f"Step {i + 1}: {_STEP_VERBS[pick(len(_STEP_VERBS), last, str(i), *salt)]} "
        f"the key points of the task ({topic}...)."
        for i in range(4)
    ]
    return "\n".join(steps)
