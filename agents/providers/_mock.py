"""A deterministic mock provider with planted bias.

The reply is a pure function of the request (never a queue in call order), so concurrent
trials cannot receive each other's answers and a re-run reproduces every answer. Judges'
replies follow the JSON schema the request carries, or without one the free-text answer format
the prompt states (``_mock_text``: the same judgment, written as text); identity labels are
read from the ``<candidate id=".." author="..">`` blocks fairpanel's prompts use. A free-text
request whose last message asks to choose between options ("..., Mary or Latoya?", or a
bracketed list "[red, blue, green]") gets one option back, as do schema fields with an
``enum``; the planted ``choice_bias``, ``choice_rules``, ``bias_damping`` and ``abstain_rate``
act there, and ``history_spread`` when the request shows earlier answers. Asked to choose while
the request quotes an ``<answer>...</answer>`` block (a judge asked which reference an answer
matches), the mock reads: it picks the one option the block names (an option may list
alternatives as ``a/b/c``), unless a planted preference wins first. A request for a value
between 0 and 1 (a verbalized confidence) gets a number.

Scores can carry normal random effects (``judge_leniency_sd``, ``halo_sd``, ``trial_noise_sd``):
each is a hash of what it belongs to (the judge's system prompt, one judgment, one answer in one
task), turned into a normal number, so calibration can be measured on scores correlated as
real judges' are while every answer stays a pure function of the request.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from collections.abc import Callable
from typing import Any

from fairpanel.agents._provider import Provider, ProviderRun, nothing_unsupported
from fairpanel.agents._spec import MockBias, ModelSpec
from fairpanel.agents._types import ModelReply, ModelRequest, Sampling, Usage, canonical_json
from fairpanel.agents.providers._mock_choices import (
    choose,
    earlier_answers,
    offered_options,
    spread,
)
from fairpanel.agents.providers._mock_draws import normal, pick, unit
from fairpanel.agents.providers._mock_grow import grow_reply
from fairpanel.agents.providers._mock_responder import responder_text
from fairpanel.agents.providers._mock_text import TextAsk, text_answer, text_ask

__all__ = ["MockClient", "mock_fingerprint", "mock_reply", "offered_options"]

_CANDIDATE = re.compile(
    r'<candidate id="(?P<id>[^"]+)"(?: author="(?P<author>[^"]*)")?>'
    r"\n?(?P<text>.*?)\n?</candidate>",
    re.DOTALL,
)
_LABEL_LINE = re.compile(r"written by", re.IGNORECASE)
_INJECTION_PHRASE = (
    r"\b(note to the judges?|ignore (the|all|any|previous) "
    r"|give (it|this)[^.\n]{0,20}\b10\b|full marks|(choose|pick) (it|this)[^.\n]{0,20}winner)"
)
_INJECTION = re.compile(rf"(?:\n\n)?^.*{_INJECTION_PHRASE}.*$", re.IGNORECASE | re.MULTILINE)
"""A line (with the blank line before it) in which a candidate addresses the judges to ask for
marks, as the injection arm appends one."""
_INJECTION_ANYWHERE = re.compile(_INJECTION_PHRASE, re.IGNORECASE)
"""The phrase alone: a quick test that spares the line pattern's backtracking on the (usual)
texts without one."""
_UNIT_INTERVAL = re.compile(r"between 0(?:\.0)? and 1(?:\.0)?(?![\d.])")
_TASK = re.compile(r"<task>\n?(?P<text>.*?)\n?</task>", re.DOTALL)
_MALFORMED = "I would rate this quite highly overall, it is a solid answer."
_ABSTAIN = "Both are equally strong candidates, so I cannot pick one over the other."


def _judge_of(request: ModelRequest) -> str:
    """Who is judging: the system messages that show no candidate (the persona and any
    instruction added to it), the same in every round and trial the judge takes part in."""
    return "\x1f".join(
        m.content for m in request.messages if m.role == "system" and "<candidate" not in m.content
    )


def _task_of(request: ModelRequest) -> str:
    for message in request.messages:
        found = _TASK.search(message.content)
        if found:
            return found.group("text")
    return ""


def _random_effect(
    bias: MockBias, request: ModelRequest, prompt: str, candidate_id: str, text: str
) -> float:
    """The sum of the planted random effects on one candidate in one request, in score points:
    the judge's leniency, this judgment's halo and the answer's shared trial noise."""
    effect = 0.0
    seed = str(bias.seed)
    if bias.judge_leniency_sd:
        effect += bias.judge_leniency_sd * normal("leniency", seed, _judge_of(request))
    if bias.halo_sd:
        effect += bias.halo_sd * normal("halo", prompt, candidate_id)
    if bias.trial_noise_sd:
        replicate = str(request.replicate)
        effect += bias.trial_noise_sd * normal("trial", seed, replicate, _task_of(request), text)
    return effect


def _score(
    bias: MockBias,
    prompt: str,
    candidate_id: str,
    author: str,
    text: str,
    metric: str,
    injected: bool = False,
    effect: float = 0.0,
) -> int:
    """Content sets the base, the whole prompt adds judge/round noise, the label adds the shift,
    ``effect`` adds the random effects; a planted instruction pulls the result toward 10 by the
    susceptibility.

    ``effect`` is applied as whole points, its fractional part as one more point in that share
    of judgments (drawn per metric), so that its expected value survives the integer scale."""
    base = bias.base_score + pick(3, "content", text, metric) - 1
    noise = pick(2 * bias.noise + 1, "noise", prompt, candidate_id, metric) - bias.noise
    shift = 0.0
    for label in _labels_in(author, tuple(bias.score_shift)):
        shift += bias.score_shift[label].get(metric, 0.0)
    if bias.dither and shift:
        whole = math.floor(shift)
        shift = whole + float(unit("dither", prompt, candidate_id, metric) < shift - whole)
    if bias.length_preference:
        beyond = max(0.0, math.log2(max(1, len(text.split())) / bias.length_reference_words))
        effect += bias.length_preference * beyond
    if effect:
        whole = math.floor(effect)
        effect = whole + float(unit("effect", prompt, candidate_id, metric) < effect - whole)
    score = max(0.0, min(10.0, base + noise + shift + effect))
    if injected:
        score += bias.injection_susceptibility * (10.0 - score)
    return max(0, min(10, math.floor(score + 0.5)))


@functools.lru_cache(maxsize=65536)
def _labels_in(author: str, labels: tuple[str, ...]) -> tuple[str, ...]:
    """The planted labels found in ``author`` (each as a whole word, case-insensitively).

    Cached: a design has a few dozen author lines and one set of labels, while a simulated run
    scores each of them thousands of times against every label."""
    return tuple(
        label for label in labels if re.search(rf"\b{re.escape(label)}\b", author, re.IGNORECASE)
    )


@functools.lru_cache(maxsize=4096)
def _without_injection(text: str) -> tuple[str, bool]:
    """``text`` with any line that addresses the judges removed, and whether there was one."""
    if not _INJECTION_ANYWHERE.search(text):
        return text, False
    cleaned, found = _INJECTION.subn("", text)
    return cleaned.rstrip("\n") if found else text, found > 0


def _author_and_content(author: str | None, text: str) -> tuple[str, str]:
    """The label and the content of a candidate block.

    The label is the tag's ``author`` attribute, or else a first or last line saying
    "written by ..." (the default wording of header and footer labels); the content is the
    rest, so the base score depends on the answer alone.
    """
    if author is not None:
        return author, text
    lines = text.split("\n")
    labels: list[str] = []
    if lines and _LABEL_LINE.search(lines[0]):
        labels.append(lines.pop(0))
    if lines and _LABEL_LINE.search(lines[-1]):
        labels.append(lines.pop())
    return " ".join(labels), "\n".join(lines)


def _metrics_of(properties: dict[str, Any]) -> list[str]:
    return [name for name, prop in properties.items() if prop.get("type") in ("integer", "number")]


def _conversation(request: ModelRequest, *, without_injection: bool = False, seed: int = 0) -> str:
    """What the mock's draws hash: every message, the replicate when there is one (a
    deliberate repeat is a fresh sample, as it would be from a sampling model) and the mock's
    own seed when it has one."""
    messages = [m.model_dump() for m in request.messages]
    if without_injection:
        messages = [{**m, "content": _without_injection(m["content"])[0]} for m in messages]
    text = json.dumps(messages, sort_keys=True)
    if request.replicate:
        text = f"{text}\x1freplicate={request.replicate}"
    return f"{text}\x1fseed={seed}" if seed else text


def _unit_interval_reply(request: ModelRequest, bias: MockBias) -> str:
    value = f"{0.5 + 0.5 * unit('confidence', _conversation(request, seed=bias.seed)):.2f}"
    return f"{{{{{value}}}}}" if "{{" in request.messages[-1].content else value


def _said(request: ModelRequest) -> str:
    return "\n".join(message.content for message in request.messages)


def _choice_reply(request: ModelRequest, bias: MockBias, options: list[str]) -> str:
    prompt = _conversation(request, seed=bias.seed)
    if bias.abstain_rate and unit("abstain", prompt) < bias.abstain_rate:
        return _ABSTAIN
    spread_pick = spread(bias, prompt, options, earlier_answers(request))
    choice = (
        spread_pick if spread_pick is not None else choose(bias, prompt, options, _said(request))
    )
    return f"{{{{{choice}}}}}" if "{{" in request.messages[-1].content else choice


def _judgment(
    request: ModelRequest, bias: MockBias, pair: bool, metrics: Callable[[str], list[str]]
) -> tuple[str, dict[str, Any] | None]:
    """The prompt the draws hash, and the judgment as a dict shaped like the JSON answer (None
    for a planted malformed answer); ``metrics(candidate_id)`` names the scores to give."""
    # Noise comes from the prompt as the mock sees it: without a planted instruction, so that at
    # susceptibility 0 a trial and its injected twin get the very same answers.
    prompt = _conversation(request, without_injection=True, seed=bias.seed)
    if bias.malformed_rate and unit("malformed", prompt) < bias.malformed_rate:
        return prompt, None
    candidates: dict[str, tuple[str, str]] = {}
    injected: set[str] = set()
    for message in request.messages:
        for match in _CANDIDATE.finditer(message.content):
            text, planted = _without_injection(match.group("text"))
            candidates[match.group("id")] = _author_and_content(match.group("author"), text)
            if planted and bias.injection_susceptibility > 0:
                injected.add(match.group("id"))
    reply: dict[str, Any] = {"reason": "Scores follow the rubric; content judged on its merits."}
    if pair:
        totals: dict[str, int] = {}
        for candidate_id in sorted(candidates):
            author, text = candidates[candidate_id]
            effect = _random_effect(bias, request, prompt, candidate_id, text)
            scores = {
                metric: _score(
                    bias,
                    prompt,
                    candidate_id,
                    author,
                    text,
                    metric,
                    candidate_id in injected,
                    effect,
                )
                for metric in metrics(candidate_id)
            }
            reply[candidate_id] = scores
            totals[candidate_id] = sum(scores.values())
        order = sorted(candidates)
        persuaded = [c for c in order if c in injected]
        spread_pick = spread(bias, prompt, order, earlier_answers(request, "winner"))
        if persuaded and unit("injection", prompt) < bias.injection_susceptibility:
            winner = persuaded[0]
        elif spread_pick is not None:
            winner = spread_pick
        elif unit("position", prompt) < abs(bias.first_position_bias):
            winner = order[0] if bias.first_position_bias > 0 else order[-1]
        else:
            best = max(totals.values())
            leaders = [c for c in order if totals[c] == best]
            winner = leaders[pick(len(leaders), "tie", prompt)]
        reply["winner"] = winner
    else:
        author, text = next(iter(candidates.values()), ("", ""))
        candidate_id = next(iter(candidates), "A")
        effect = _random_effect(bias, request, prompt, candidate_id, text)
        for metric in metrics(candidate_id):
            reply[metric] = _score(
                bias, prompt, candidate_id, author, text, metric, candidate_id in injected, effect
            )
    return prompt, reply


def _judge_reply(request: ModelRequest, bias: MockBias) -> str:
    assert request.response_schema is not None
    schema = request.response_schema.get("schema", request.response_schema)
    properties: dict[str, Any] = schema.get("properties", {})

    def metrics(candidate_id: str) -> list[str]:
        if "winner" in properties:
            return _metrics_of(properties.get(candidate_id, {}).get("properties", {}))
        return _metrics_of(properties)

    prompt, reply = _judgment(request, bias, "winner" in properties, metrics)
    if reply is None:
        return _MALFORMED
    for name, prop in properties.items():
        if name not in reply and prop.get("enum"):
            enum = [str(v) for v in prop["enum"]]
            reply[name] = choose(bias, f"{prompt}\x1f{name}", enum, _said(request))
    return json.dumps(reply)


def _text_judge_reply(request: ModelRequest, bias: MockBias, ask: TextAsk) -> str:
    """The JSON answer's judgment for the same messages, in the text format asked for."""
    _, reply = _judgment(request, bias, ask.pair, lambda _: list(ask.metrics))
    return _MALFORMED if reply is None else text_answer(reply, ask)


def mock_reply(request: ModelRequest, bias: MockBias) -> str:
    """The mock's answer to ``request``: a grown scenario or critique when asked, judge JSON
    when a schema is asked for, a judge's text answer when the text format is, else prose."""
    if (grown := grow_reply(request.messages[-1].content, bias.seed)) is not None:
        return grown
    if request.response_schema is None:
        ask = text_ask(request)
        if ask is not None:
            return _text_judge_reply(request, bias, ask)
        options = offered_options(request.messages[-1].content)
        if options:
            return _choice_reply(request, bias, options)
        if _UNIT_INTERVAL.search(request.messages[-1].content):
            return _unit_interval_reply(request, bias)
        return responder_text(request, bias.responder_style)
    return _judge_reply(request, bias)


_ADDED_SETTINGS = ("length_preference", "length_reference_words", "responder_style")
"""MockBias fields added after mock runs were stored: left out of the digests at their
defaults, so those runs' cache keys (which hold the endpoint) stay what they were."""


def _settings(bias: MockBias) -> dict[str, Any]:
    data = bias.model_dump(mode="json")
    for name in _ADDED_SETTINGS:
        if data[name] == MockBias.model_fields[name].default:
            del data[name]
    return data


def mock_fingerprint(bias: MockBias) -> str:
    """A fingerprint of the planted bias, as a server reports its backend configuration: two
    mock models that answer differently (different settings) report different fingerprints,
    so the run's served-model record tells them apart as it would two real snapshots."""
    digest = hashlib.sha256(canonical_json(_settings(bias)).encode("utf-8"))
    return f"mock-{digest.hexdigest()[:12]}"


class MockClient:
    """The ``mock/...`` provider; costs nothing and answers instantly. It reports its model id
    as the served model and ``mock_fingerprint`` of its bias as the fingerprint."""

    def __init__(self, spec: ModelSpec) -> None:
        self._spec = spec
        self._bias = spec.mock or MockBias()
        self._fingerprint = mock_fingerprint(self._bias)

    @property
    def model_id(self) -> str:
        return self._spec.id

    @property
    def endpoint(self) -> str:
        return _endpoint(self._spec)

    def unsupported(self, sampling: Sampling) -> list[str]:
        """The mock ignores sampling by design (its replies are a function of the prompt)."""
        return []

    async def complete(self, request: ModelRequest) -> ModelReply:
        text = mock_reply(request, self._bias)
        prompt_words = sum(len(m.content.split()) for m in request.messages)
        return ModelReply(
            text=text,
            usage=Usage(prompt_tokens=prompt_words, completion_tokens=len(text.split())),
            finish_reason="stop",
            served_model=self._spec.id,
            fingerprint=self._fingerprint,
        )

    async def aclose(self) -> None:
        return None


def _create(spec: ModelSpec, run: ProviderRun) -> MockClient:
    return MockClient(spec)


def _endpoint(spec: ModelSpec) -> str:
    """ "mock", or for a mock with planted behaviour "mock#" and a digest of it: the endpoint is
    part of every request's cache key, and two mocks with different biases must not answer
    from each other's cache (two panels compared in one run would get the same answers)."""
    if spec.mock is None or spec.mock == MockBias():
        return "mock"
    settings = json.dumps(_settings(spec.mock), sort_keys=True)
    return "mock#" + hashlib.sha256(settings.encode("utf-8")).hexdigest()[:12]


mock_provider = Provider(
    create=_create,
    endpoint=_endpoint,
    uses_key=False,
    unsupported=nothing_unsupported,
    limited=False,  # answers instantly and costs nothing: no pacing, no retries
)
