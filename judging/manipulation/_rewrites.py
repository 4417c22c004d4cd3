"""Manipulations a model writes: padding and register rewrites by the responder, and the
self-preference arm's answer by another model. Each asks once (``RewriteAsk``) and is checked
before any judge sees it: a rewrite that misses its length or drops the original's content is
refused, and the trial fails with the reason, so a weak rewriter shows up as failures, never
as a bias."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from fairpanel.judging.manipulation._model import (
    Manipulated,
    ManipulationInput,
    RewriteAsk,
)
from fairpanel.judging.manipulation._templates import (
    NoParams,
    VerbosityParams,
    word_count,
)

__all__ = [
    "SelfPreferenceParams",
    "content_overlap",
    "register_ask",
    "register_check",
    "self_preference",
    "self_preference_ask",
    "self_preference_label",
    "verbosity_ask",
    "verbosity_check",
]

_WORD = re.compile(r"[a-z][a-z'-]{3,}")
_COMMON = frozenset(
    re.findall(
        r"\w+",
        "this that with from have will your they them their there were been into than then "
        "what when which while would could should about also each more most other some such "
        "only very just over make made many much must need sure well",
    )
)


def _content_words(text: str) -> set[str]:
    return {word for word in _WORD.findall(text.lower()) if word not in _COMMON}


def content_overlap(original: str, rewritten: str) -> float:
    """The share of the original's content words (four letters or more, common words left
    out) that the rewrite still contains: a lexical check that the content was kept."""
    words = _content_words(original)
    return 1.0 if not words else len(words & _content_words(rewritten)) / len(words)


def _kept(params: BaseModel, original: str, rewritten: str) -> str | None:
    overlap = content_overlap(original, rewritten)
    wanted = float(params.model_dump()["min_overlap"])
    if overlap < wanted:
        return (
            f"the rewrite keeps {overlap:.0%} of the original's content words (needs {wanted:.0%})"
        )
    return None


def verbosity_ask(params: BaseModel) -> RewriteAsk | None:
    checked = VerbosityParams.model_validate(params.model_dump())
    if checked.by != "responder":
        return None
    return RewriteAsk(
        instruction=f"Rewrite this response to about {checked.ratio:g} times its length by "
        "restating its points in other words and adding general filler sentences. Keep every "
        "step, in the same order; add no new steps, facts or advice."
    )


def verbosity_check(params: BaseModel, original: str, rewritten: str) -> str | None:
    ratio = VerbosityParams.model_validate(params.model_dump()).ratio
    achieved = word_count(rewritten) / max(1, word_count(original))
    if not 1.0 + 0.6 * (ratio - 1.0) <= achieved <= 1.5 * ratio:
        return f"the rewrite is {achieved:.2f}x the original's words (asked for {ratio:g}x)"
    return _kept(params, original, rewritten)


_TONES = {
    "confident": "a confident, assertive register, stating each step with certainty",
    "hedging": "a hedging, tentative register, qualifying each step with doubt",
    "positive": "an upbeat, enthusiastic register",
    "negative": "a gloomy, pessimistic register",
}


def register_ask(params: BaseModel) -> RewriteAsk | None:
    dumped = params.model_dump()
    if dumped["by"] != "responder":
        return None
    return RewriteAsk(
        instruction=f"Rewrite this response in {_TONES[dumped['tone']]}. Keep every step, in "
        "the same order, with the same content and about the same length; change only the tone."
    )


def register_check(params: BaseModel, original: str, rewritten: str) -> str | None:
    achieved = word_count(rewritten) / max(1, word_count(original))
    if not 0.7 <= achieved <= 1.6:
        return f"the rewrite is {achieved:.2f}x the original's words (a register rewrite keeps it)"
    return _kept(params, original, rewritten)


class SelfPreferenceParams(NoParams):
    model: str = Field(
        min_length=1,
        description="The second responder model (a name from `models` or a 'provider/model' "
        "id): it answers every task afresh, and its answer stands in for response 1",
    )


def self_preference_ask(params: BaseModel) -> RewriteAsk:
    return RewriteAsk(instruction=None, model=SelfPreferenceParams.model_validate(
        params.model_dump()).model)  # fmt: skip


def self_preference(given: ManipulationInput) -> Manipulated:
    """The other model's answer is already in place of response 1."""
    return Manipulated(texts=given.texts)


def self_preference_label(params: BaseModel) -> str:
    return f"answer-by-{SelfPreferenceParams.model_validate(params.model_dump()).model}"
