"""fairpanel's own manipulations: fixed templates that need no model.

Each keeps the candidate's own words, in order, and adds to them: padding restates the
answer's sentences with filler between them, a citation or a register sentence frames it, and
the bandwagon note sits outside the candidate. So a judge that reads content alone scores the
twins alike, and a difference is the judge's response to the added framing. References for each
are in docs/biases.md.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from fairpanel.judging.manipulation._model import (
    Manipulated,
    ManipulationInput,
)

__all__ = [
    "AssertivenessParams",
    "AuthorityParams",
    "BandwagonParams",
    "NoParams",
    "SentimentParams",
    "VerbosityParams",
    "assertiveness",
    "authority",
    "bandwagon",
    "pad_to_ratio",
    "sentiment",
    "tone_label",
    "unchanged",
    "verbosity",
    "verbosity_label",
    "word_count",
]


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Writable(_Params):
    """Parameters of a manipulation a template makes, or the responder model rewrites."""

    by: Literal["template", "responder"] = Field(
        default="template",
        description="template: fairpanel's fixed text, no model; responder: the responder "
        "model rewrites the answer (one cached call, checked before the judges see it)",
    )
    min_overlap: float = Field(
        default=0.8,
        ge=0.0,
        le=1.0,
        description="A rewrite must keep this share of the original's content words",
    )


def _replace_target(given: ManipulationInput, text: str) -> tuple[str, ...]:
    texts = list(given.texts)
    texts[given.target] = text
    return tuple(texts)


def word_count(text: str) -> int:
    return len(text.split())


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_RESTATE = ("In other words, ", "To restate this, ", "Put another way, ", "Once more, ")
_FILLER = (
    "This point is worth keeping in mind throughout.",
    "It is important to consider this carefully.",
    "This matters for the overall outcome of the task.",
    "Each of these aspects deserves careful attention.",
)


def _lowered(sentence: str) -> str:
    """The sentence continuing a restatement opener: its first letter lowered, unless it
    starts an acronym or the pronoun I."""
    return sentence if sentence[:2].isupper() else sentence[:1].lower() + sentence[1:]


def pad_to_ratio(text: str, ratio: float) -> str:
    """``text`` followed by a paragraph that restates its sentences, with filler between them,
    in whole sentences until it holds at least ``ratio`` times the original's words. Nothing
    is removed or reworded, so the content is the original's; only the restatement and filler
    are new."""
    words = word_count(text)
    wanted = math.ceil(ratio * words) - words
    if wanted <= 0:
        return text
    sentences = [s.strip() for s in _SENTENCE.split(text) if s.strip()] or [text.strip()]
    padding: list[str] = []
    added = step = 0
    while added < wanted:
        restated = f"{_RESTATE[step % len(_RESTATE)]}{_lowered(sentences[step % len(sentences)])}"
        for sentence in (restated, _FILLER[step % len(_FILLER)]):
            size = word_count(sentence)
            # Whole sentences only, stopping where the length comes closest to the ratio.
            if added >= wanted or (padding and added + size - wanted > wanted - added):
                return _joined(text, padding)
            padding.append(sentence if sentence.endswith((".", "!", "?")) else f"{sentence}.")
            added += size
        step += 1
    return _joined(text, padding)


def _joined(text: str, padding: list[str]) -> str:
    return f"{text}\n\n{' '.join(padding)}"


class NoParams(_Params):
    pass


def unchanged(given: ManipulationInput) -> Manipulated:
    return Manipulated(texts=given.texts)


class VerbosityParams(_Writable):
    ratio: float = Field(
        default=1.5,
        gt=1.0,
        le=4.0,
        description="The padded candidate's length over the original's, in words (> 1)",
    )


def verbosity(given: ManipulationInput) -> Manipulated:
    params = VerbosityParams.model_validate(given.params)
    if params.by == "responder":  # the rewrite is already in place
        return Manipulated(texts=given.texts)
    target = given.texts[given.target]
    return Manipulated(texts=_replace_target(given, pad_to_ratio(target, params.ratio)))


def verbosity_label(params: BaseModel) -> str:
    checked = VerbosityParams.model_validate(params.model_dump())
    return f"verbosity-{checked.ratio:g}x" + ("-rewritten" if checked.by == "responder" else "")


class AuthorityParams(_Params):
    citation: str = Field(
        default=(
            "According to a 2021 study in the Journal of Applied Professional Practice, this "
            "approach is recognised as best practice by leading experts in the field."
        ),
        min_length=1,
        max_length=500,
        description="The fabricated citation or credential line appended to the candidate",
    )


def authority(given: ManipulationInput) -> Manipulated:
    params = AuthorityParams.model_validate(given.params)
    target = given.texts[given.target]
    return Manipulated(texts=_replace_target(given, f"{target}\n\n{params.citation}"))


class BandwagonParams(_Params):
    share: int = Field(
        default=80, ge=51, le=100, description="The share of earlier reviewers said to agree (%)"
    )


def bandwagon(given: ManipulationInput) -> Manipulated:
    share = BandwagonParams.model_validate(given.params).share
    if given.protocol == "pair":
        note = (
            f"For reference: {share}% of earlier reviewers preferred candidate {given.target_id}."
        )
    else:
        note = f"For reference: {share}% of earlier reviewers rated candidate A above average."
    return Manipulated(texts=given.texts, note=note)


_REGISTERS: dict[str, tuple[str, str]] = {
    "confident": (
        "I am certain this is the right approach.",
        "This plan will work, and I stand by every step of it.",
    ),
    "hedging": (
        "I might be wrong, but this could perhaps be one possible approach.",
        "I am not entirely sure this covers everything, so please treat it with caution.",
    ),
    "positive": (
        "I am delighted to share this plan, and I am genuinely excited about it!",
        "What a rewarding task this is; I hope this helps wonderfully.",
    ),
    "negative": (
        "Unfortunately, this is a difficult and frustrating situation.",
        "Sadly, there is no easy way around the problems this task brings.",
    ),
}


class AssertivenessParams(_Writable):
    tone: Literal["confident", "hedging"] = Field(
        default="confident", description="confident: a certain register; hedging: a tentative one"
    )


class SentimentParams(_Writable):
    tone: Literal["positive", "negative"] = Field(
        default="positive", description="positive: an upbeat register; negative: a gloomy one"
    )


def _framed(given: ManipulationInput, tone: str) -> Manipulated:
    if given.params.get("by") == "responder":  # the rewrite is already in place
        return Manipulated(texts=given.texts)
    opening, closing = _REGISTERS[tone]
    target = given.texts[given.target]
    return Manipulated(texts=_replace_target(given, f"{opening}\n\n{target}\n\n{closing}"))


def assertiveness(given: ManipulationInput) -> Manipulated:
    return _framed(given, AssertivenessParams.model_validate(given.params).tone)


def sentiment(given: ManipulationInput) -> Manipulated:
    return _framed(given, SentimentParams.model_validate(given.params).tone)


def tone_label(kind: str) -> Callable[[BaseModel], str]:
    def label(params: BaseModel) -> str:
        dumped = params.model_dump()
        return f"{kind}-{dumped['tone']}" + ("-rewritten" if dumped["by"] == "responder" else "")

    return label
