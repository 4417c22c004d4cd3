"""What a trial leaves behind: every judge's turn in every round, and the panel's result.

These are the nouns the protocol produces and the store keeps; the store adds nothing to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fairpanel.agents import Usage

__all__ = ["TrialRecord", "TurnRecord"]


@dataclass(frozen=True)
class TurnRecord:
    round: int
    round_kind: str
    judge: str
    speaker_index: int
    judge_model: str
    raw_text: str
    parsed: dict[str, Any] | None
    parse_error: str | None
    attempts: int
    usage: Usage
    latency_s: float
    call_keys: Sequence[str]


@dataclass(frozen=True)
class TrialRecord:
    key: str
    protocol: str
    spec: dict[str, Any]
    status: str
    error: str | None
    consensus: dict[str, Any] | None
    turns: Sequence[TurnRecord]
