"""What a judge must answer, and a tolerant reader of what judges actually write.

The typed models put the reason first (a judge that explains before scoring scores more
consistently). Any answer that does not yield a complete, in-range object is a parse failure:
it is recorded with its raw text and never turned into a score. A panel answers as JSON (the
default) or as free text ending in score lines and a verdict (``_text_answer``); both are read
into the same typed judgments.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from fairpanel.judging.protocol._text_answer import read_text_answer

__all__ = [
    "METRICS",
    "MetricScores",
    "PairJudgment",
    "SingleJudgment",
    "output_schema",
    "parse_judgment",
    "parse_text_judgment",
]

METRICS = ("creativity", "accuracy", "efficiency", "reliability")
CANDIDATE_IDS = ("A", "B")

Score = Field(ge=0, le=10)


class MetricScores(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    creativity: float = Score
    accuracy: float = Score
    efficiency: float = Score
    reliability: float = Score

    def as_dict(self) -> dict[str, float]:
        return {metric: float(getattr(self, metric)) for metric in METRICS}


class SingleJudgment(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    reason: str
    creativity: float = Score
    accuracy: float = Score
    efficiency: float = Score
    reliability: float = Score

    def scores(self) -> dict[str, dict[str, float]]:
        """Scores keyed by candidate id, like a pair's."""
        return {"A": {metric: float(getattr(self, metric)) for metric in METRICS}}


class PairJudgment(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    reason: str
    A: MetricScores
    B: MetricScores
    winner: Literal["A", "B"]

    def scores(self) -> dict[str, dict[str, float]]:
        return {"A": self.A.as_dict(), "B": self.B.as_dict()}


_SCORE_SCHEMA = {"type": "integer", "minimum": 0, "maximum": 10}
_REASON_SCHEMA = {"type": "string", "maxLength": 120}


def _metric_object() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {metric: dict(_SCORE_SCHEMA) for metric in METRICS},
        "required": list(METRICS),
        "additionalProperties": False,
    }


def output_schema(protocol: Literal["single", "pair"]) -> dict[str, Any]:
    """The JSON schema sent as structured output (OpenAI ``json_schema`` response format)."""
    if protocol == "single":
        properties: dict[str, Any] = {"reason": dict(_REASON_SCHEMA)}
        properties.update({metric: dict(_SCORE_SCHEMA) for metric in METRICS})
        required = ["reason", *METRICS]
    else:
        properties = {
            "reason": dict(_REASON_SCHEMA),
            "A": _metric_object(),
            "B": _metric_object(),
            "winner": {"type": "string", "enum": list(CANDIDATE_IDS)},
        }
        required = ["reason", "A", "B", "winner"]
    return {
        "name": f"{protocol}_judgment",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        },
    }


_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_SCORE_TEXT = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:/\s*10|out of 10)?\s*$")
_WINNER_TEXT = re.compile(r"^\s*(?:candidate|response)?\s*([AB])\s*\.?\s*$", re.IGNORECASE)


def _json_objects(text: str) -> list[Any]:
    """Every top-level JSON object found in fences or in the prose, last first."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    sources = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for source in sources:
        index = source.find("{")
        while index != -1:
            try:
                value, end = decoder.raw_decode(source, index)
            except json.JSONDecodeError:
                index = source.find("{", index + 1)
                continue
            if isinstance(value, dict):
                found.append(value)
            index = source.find("{", end)
    return list(reversed(found))


def _normalise(value: Any, *, top: bool) -> Any:
    """Lower-case metric keys, upper-case candidate keys, read "8/10" and "8.5" as numbers."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            name = str(key).strip()
            lowered = name.lower()
            if top and name.upper() in CANDIDATE_IDS:
                out[name.upper()] = _normalise(item, top=False)
            elif lowered == "winner" and isinstance(item, str):
                match = _WINNER_TEXT.match(item)
                out["winner"] = match.group(1).upper() if match else item
            elif lowered in METRICS:
                out[lowered] = _score_value(item)
            elif lowered == "reason":
                out[lowered] = item
            else:
                out[name] = _normalise(item, top=False)
        return out
    return value


def _score_value(value: Any) -> Any:
    """A score written as text ("8", "8/10", "8.5 out of 10") read as a number."""
    if isinstance(value, str):
        match = _SCORE_TEXT.match(value)
        if match:
            return float(match.group(1))
    return value


def _describe(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "answer"
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


def parse_judgment(
    text: str,
    protocol: Literal["single", "pair"],
    answer_format: Literal["json", "text"] = "json",
) -> SingleJudgment | PairJudgment | str:
    """The judgment in ``text``, or a message saying why there is none (used to re-ask).

    ``answer_format`` is the panel's: a JSON object, or free text read by
    ``parse_text_judgment``. A trial reads each answer several times (to validate it, to
    summarise it for the next round, to form the consensus, to store it); the result is
    immutable, so it is cached.
    """
    if answer_format == "text":
        return parse_text_judgment(text, protocol)
    return _parse_cached(text, protocol)


@functools.lru_cache(maxsize=4096)
def parse_text_judgment(
    text: str, protocol: Literal["single", "pair"]
) -> SingleJudgment | PairJudgment | str:
    """The judgment in a free-text answer ("Creativity: 7" lines, a pair's verdict line), or
    why there is none; the reading rules are ``_text_answer``'s."""
    read = read_text_answer(text, METRICS, pair=protocol == "pair")
    if isinstance(read, str):
        return read
    try:
        if protocol == "single":
            return SingleJudgment(reason=read.reason, **read.scores["A"])
        return PairJudgment.model_validate(
            {"reason": read.reason, **read.scores, "winner": read.winner}
        )
    except ValidationError as exc:
        return _describe(exc)


@functools.lru_cache(maxsize=4096)
def _parse_cached(text: str, protocol: str) -> SingleJudgment | PairJudgment | str:
    candidates = _json_objects(text)
    if not candidates:
        return "no JSON object found in the answer"
    model: type[SingleJudgment] | type[PairJudgment] = (
        SingleJudgment if protocol == "single" else PairJudgment
    )
    first_error = ""
    for candidate in candidates:
        try:
            return model.model_validate(_normalise(candidate, top=True))
        except ValidationError as exc:
            first_error = first_error or _describe(exc)
    return first_error
