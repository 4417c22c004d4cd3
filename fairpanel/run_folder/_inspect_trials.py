"""Each trial of a run for the Inspect log: what the judges were shown and what each said, in
order, with every call as sent.

The store keeps every judge turn and, in the call cache, the exact messages each call sent. A
judge's request repeats its whole conversation so far, so a transcript takes from each request
only what is new to that judge since its previous answer, and leaves out the relays of the
other judges' answers (they appear as those judges' own turns). What is read here is plain data;
the Inspect log writer (``_inspect_log``) turns it into Inspect's models, so this module works
without the optional extra. The sample metadata (the design a reader filters trials by) is
made here too, for the same reason.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from fairpanel.judging.protocol import METRICS
from fairpanel.judging.store import Store

__all__ = [
    "POSITIONS",
    "TranscriptCall",
    "TranscriptMessage",
    "TrialTranscript",
    "consensus_scores",
    "iter_transcripts",
    "sample_metadata",
]

POSITIONS = ("A", "B")

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class TranscriptMessage:
    role: Role
    text: str
    judge: str | None = None
    model: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class TranscriptCall:
    """One model call of a judge turn, as the call cache stored it."""

    judge: str
    model: str
    messages: list[tuple[str, str]]
    """(role, text) of every message sent, the judge's whole conversation so far."""
    reply: str
    prompt_tokens: int
    completion_tokens: int
    created_at: str


@dataclass(frozen=True)
class TrialTranscript:
    key: str
    spec: dict[str, Any]
    status: str
    error: str | None
    consensus: dict[str, Any] | None
    context: str | None
    """The shared first system message: the rubric, the task and the candidates with their
    labels, as every judge saw them (None when the store holds none of the trial's calls)."""
    messages: list[TranscriptMessage]
    turns: list[dict[str, Any]]
    """The store's turns (``Store.iter_turns`` rows) in round and speaking order."""
    usage: dict[str, tuple[int, int]]
    """Prompt and completion tokens by judge model, over every attempt."""
    calls: list[TranscriptCall] = field(default_factory=list)
    """Every stored call of the trial's turns, in turn and attempt order."""


def _text(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)


_Stored = tuple[list[dict[str, Any]], str, int, int, str]


def _requests(store: Store, keys: list[str]) -> dict[str, _Stored]:
    """The messages, reply, tokens and time of each stored call in ``keys`` (a turn's calls
    may be missing from a store whose cache was pruned; its prompt is then left out)."""
    found: dict[str, _Stored] = {}
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        marks = ", ".join("?" * len(chunk))
        for key, request, reply, prompt, completion, created in store.read(
            "SELECT key, request, reply, prompt_tokens, completion_tokens, created_at "
            f"FROM calls WHERE key IN ({marks})",
            chunk,
        ):
            messages = list(json.loads(request).get("messages", []))
            found[str(key)] = (messages, str(reply), int(prompt), int(completion), str(created))
    return found


def _turn_metadata(turn: dict[str, Any]) -> dict[str, Any]:
    parsed = turn["parsed"]
    return {
        "judge": turn["judge"],
        "round": turn["round"],
        "round_kind": turn["round_kind"],
        "speaker_index": turn["speaker_index"],
        "parse_ok": parsed is not None,
        "parse_error": turn["parse_error"],
        "attempts": turn["attempts"],
        "reason": None if parsed is None else parsed.get("reason"),
        "judgment": parsed,
    }


def _common_prefix(before: list[tuple[str, str]], now: list[tuple[str, str]]) -> int:
    """How many leading messages ``now`` shares with ``before`` (a judge's request repeats
    its conversation so far; what follows is new to it)."""
    count = 0
    for old, new in zip(before, now, strict=False):
        if old != new:
            break
        count += 1
    return count


def _calls(turns: list[dict[str, Any]], requests: dict[str, _Stored]) -> list[TranscriptCall]:
    return [
        TranscriptCall(
            judge=str(turn["judge"]),
            model=str(turn["judge_model"]),
            messages=[(str(m.get("role")), _text(m.get("content", ""))) for m in messages],
            reply=reply,
            prompt_tokens=prompt,
            completion_tokens=completion,
            created_at=created,
        )
        for turn in turns
        for key in turn["call_keys"]
        if key in requests
        for messages, reply, prompt, completion, created in [requests[key]]
    ]


def _messages(
    turns: list[dict[str, Any]], requests: dict[str, _Stored]
) -> tuple[str | None, list[TranscriptMessage]]:
    """The shared context and the trial's messages: per turn, the prompt new to its judge (the
    persona on a judge's first turn, the round's instruction, re-asks after a failed attempt and
    the failed answer before them), then the judge's answer."""
    relays = {f"[{turn['judge']}]\n{turn['raw_text']}" for turn in turns}
    context: str | None = None
    previous: dict[str, list[tuple[str, str]]] = {}
    out: list[TranscriptMessage] = []
    for turn in turns:
        judge = str(turn["judge"])
        where = {"judge": judge, "round": turn["round"], "round_kind": turn["round_kind"]}
        calls = [requests[key][0] for key in turn["call_keys"] if key in requests]
        for attempt, messages in enumerate(calls, start=1):
            sent = [(str(m.get("role")), _text(m.get("content", ""))) for m in messages]
            start = _common_prefix(previous.get(judge, []), sent)
            for index, (role, text) in enumerate(sent[start:], start):
                if index == 0 and role == "system" and context in (None, text):
                    context = text
                    continue
                if (role == "user" and text in relays) or (role == "assistant" and attempt == 1):
                    continue  # another judge's answer, or this judge's own earlier turn
                meta: dict[str, Any] = {**where, "attempt": attempt}
                if role == "assistant":
                    meta["rejected"] = True  # an earlier attempt of this turn, re-asked
                if role in ("system", "user", "assistant"):
                    model = str(turn["judge_model"]) if role == "assistant" else None
                    out.append(TranscriptMessage(role, text, judge, model, meta))  # type: ignore[arg-type]
            previous[judge] = sent
        previous[judge] = [*previous.get(judge, []), ("assistant", str(turn["raw_text"]))]
        answer, model = str(turn["raw_text"]), str(turn["judge_model"])
        out.append(TranscriptMessage("assistant", answer, judge, model, _turn_metadata(turn)))
    return context, out


def _usage(turns: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    usage: dict[str, tuple[int, int]] = {}
    for turn in turns:
        prompt, completion = usage.get(str(turn["judge_model"]), (0, 0))
        usage[str(turn["judge_model"])] = (
            prompt + int(turn["prompt_tokens"]),
            completion + int(turn["completion_tokens"]),
        )
    return usage


def iter_transcripts(store: Store) -> Iterator[TrialTranscript]:
    """Every trial of the store in key order, with its turns and messages; one trial's calls
    are read at a time, so memory follows the largest trial, not the run."""
    turns_by_trial = itertools.groupby(store.iter_turns(), key=lambda turn: turn["trial_key"])
    pending = next(turns_by_trial, None)
    for key, spec, status, error, consensus in store.iter_trials():
        turns: list[dict[str, Any]] = []
        if pending is not None and pending[0] == key:
            turns = list(pending[1])
            pending = next(turns_by_trial, None)
        requests = _requests(store, [k for turn in turns for k in turn["call_keys"]])
        context, messages = _messages(turns, requests)
        yield TrialTranscript(
            key=key,
            spec=spec,
            status=status,
            error=error,
            consensus=consensus if isinstance(consensus, dict) else None,
            context=context,
            messages=messages,
            turns=turns,
            usage=_usage(turns),
            calls=_calls(turns, requests),
        )


def sample_metadata(trial: TrialTranscript) -> dict[str, Any]:
    """What a reader filters trials by: the design, the seats, the parse failures and re-asks."""
    spec = trial.spec
    failures = [
        {"judge": t["judge"], "round": t["round"], "error": t["parse_error"]}
        for t in trial.turns
        if t["parsed"] is None
    ]
    return {
        "trial_key": trial.key,
        "status": trial.status,
        "protocol": spec["protocol"],
        "arm": spec.get("arm", "main"),
        "treatment": spec.get("treatment", "none"),
        "panel": spec.get("panel"),
        "category": spec["category"],
        "base_id": spec["base_id"],
        "scenario_id": spec["scenario_id"],
        "identities": list(spec.get("identities", [])),
        "authors": list(spec.get("authors", [])),
        "response_indices": list(spec.get("response_indices", [])),
        "signal": spec.get("signal", "explicit"),
        "label_position": spec.get("label_position", "tag"),
        "replicate": spec.get("replicate"),
        "responder_model": spec.get("responder_model"),
        "judges": {seat["persona"]: seat.get("model_id") for seat in spec.get("seats", [])},
        "consensus_rule": spec.get("consensus"),
        "discussion_rounds": spec.get("discussion_rounds"),
        "parse_failures": failures,
        "reasks": sum(int(t["attempts"]) - 1 for t in trial.turns),
    }


def consensus_scores(trial: TrialTranscript) -> dict[str, dict[str, float]]:
    """Per metric, the consensus score of each candidate position (A, and B in pair trials)."""
    scores = (trial.consensus or {}).get("scores") or {}
    by_metric: dict[str, dict[str, float]] = {}
    for metric in METRICS:
        values = {
            position: float(scores[position][metric])
            for position in POSITIONS
            if isinstance(scores.get(position), dict) and scores[position].get(metric) is not None
        }
        if values:
            by_metric[metric] = values
    return by_metric
