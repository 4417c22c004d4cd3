"""A run on frozen candidates: the responses of ``responses_from`` copied into its store.

The copy is made once the run holds its folder and before any trial, so the run folder stands
on its own afterwards (its store has every response its trials showed, whatever happens to the
source) and the runner reads responses from its own store instead of calling the responder.
The source is read again here, not trusted from load time: it may be a live run's folder. A
response the run folder already holds is never replaced; one that differs from the source's
stops the run, since trials judged on it would no longer match the recorded digest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairpanel.inputs import InputFileError
from fairpanel.judging.experiment._candidates import (
    Candidate,
    CandidateSourceError,
    candidate_problems,
    candidates_digest,
    needed_candidates,
    read_candidate_source,
)
from fairpanel.judging.experiment._config import ExperimentConfig
from fairpanel.judging.store import Store

__all__ = ["FrozenResponses", "frozen_responses"]


@dataclass(frozen=True)
class FrozenResponses:
    """The responses a run takes from ``source`` (both of each needed scenario)."""

    source: Path
    candidates: tuple[Candidate, ...]

    @property
    def digest(self) -> str:
        return candidates_digest(self.candidates)

    def manifest(self) -> dict[str, Any]:
        """manifest.json's ``responses_from``: where the candidates came from and which."""
        return {
            "path": str(self.source),
            "digest": self.digest,
            "responses": len(self.candidates),
            "scenarios": len({c.scenario_id for c in self.candidates}),
        }

    def copy_into(self, store: Store) -> int:
        """Write every response ``store`` lacks; returns how many were written. Raises
        ``InputFileError`` (before writing any) when the store holds a different one."""
        missing: list[Candidate] = []
        differing: list[str] = []
        for c in self.candidates:
            held = store.get_response(c.scenario_id, c.index, c.responder_model)
            if held is None:
                missing.append(c)
            elif held != c.text:
                differing.append(f"{c.scenario_id} #{c.index}")
        if differing:
            raise InputFileError(
                str(self.source),
                [
                    f"{store.path} already holds other responses than {self.source} for "
                    f"{len(differing)} response(s) ({', '.join(differing[:3])}); judge the "
                    "frozen candidates in a new run folder"
                ],
            )
        for c in missing:
            store.put_response(c.scenario_id, c.index, c.responder_model, c.text, c.call_key)
        return len(missing)


def frozen_responses(config: ExperimentConfig, scenario_ids: Sequence[str]) -> FrozenResponses:
    """The responses ``config.responses_from`` holds for ``scenario_ids``, checked as at load
    (same responder and sampling, both responses of every scenario). Raises
    ``InputFileError`` naming ``responses_from`` when the source cannot stand in."""
    if config.responses_from is None:
        raise ValueError("the experiment has no responses_from")
    path = Path(config.responses_from).absolute()
    try:
        source = read_candidate_source(path)
        problems = candidate_problems(source, config, scenario_ids)
    except CandidateSourceError as exc:
        problems = [str(exc)]
    if problems:
        raise InputFileError(str(path), [f"responses_from: {p}" for p in problems])
    chosen = needed_candidates(source, config.responder_spec.id, scenario_ids)
    return FrozenResponses(path, tuple(chosen))
