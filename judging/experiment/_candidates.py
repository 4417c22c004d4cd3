"""Frozen candidates: the responder's answers of an earlier run, read back for a new one.

A judge added months later must be judged on the same candidate answers as the judges before
it, or a difference between them could be the responder's. ``responses_from`` names where the
answers come from: an earlier run folder (its store's ``responses`` table, read through a
read-only connection without the folder's lock, so the folder may belong to a run still going)
or a JSON Lines file written by ``fairpanel responses export``. The digest is the same for the
same answers wherever they were read from, so a manifest's digest says which answers a run
judged whatever file carried them.

This module sits below the engine (the engine imports the experiment package, not the other
way round), so it names the run folder's two files itself; tests hold them equal to the
engine's ``STORE_FILE`` and ``RESOLVED_CONFIG_FILE``.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from fairpanel.agents import Sampling
from fairpanel.judging.experiment._config import ExperimentConfig

__all__ = [
    "CANDIDATE_FIELDS",
    "Candidate",
    "CandidateSource",
    "CandidateSourceError",
    "candidate_problems",
    "candidates_digest",
    "needed_candidates",
    "read_candidate_source",
    "responder_of",
    "write_candidates",
]

SOURCE_STORE_FILE = "fairpanel.sqlite"
SOURCE_RESOLVED_FILE = "experiment.resolved.json"
CANDIDATE_FIELDS = ("scenario_id", "index", "text", "responder_model")
"""The fields of one line of an exported responses file (``call_key`` is optional)."""
_SHOWN = 3
"""Missing scenarios named one by one; the rest are counted."""


class CandidateSourceError(ValueError):
    """A ``responses_from`` that cannot be read: no such folder or file, no store, bad lines."""


@dataclass(frozen=True)
class Candidate:
    """One stored response: scenario, which of the two answers, its text and its writer."""

    scenario_id: str
    index: int
    text: str
    responder_model: str
    call_key: str = ""
    """The request key of the responder call in the source store ("" when not known)."""

    def as_json(self) -> dict[str, Any]:
        line: dict[str, Any] = {
            "scenario_id": self.scenario_id,
            "index": self.index,
            "text": self.text,
            "responder_model": self.responder_model,
        }
        if self.call_key:
            line["call_key"] = self.call_key
        return line


@dataclass(frozen=True)
class CandidateSource:
    """What a ``responses_from`` path holds: every stored response, and for a run folder the
    responder its experiment named (a JSON Lines file records the model of each line only)."""

    path: Path
    candidates: tuple[Candidate, ...]
    is_run_folder: bool


def candidates_digest(candidates: Iterable[Candidate]) -> str:
    """``sha256:`` of the responses in a fixed order; the call keys are left out, so a run
    folder and its export have the same digest."""
    lines = sorted(
        json.dumps([c.scenario_id, c.index, c.responder_model, c.text], separators=(",", ":"))
        for c in candidates
    )
    return "sha256:" + hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def _read_store(store: Path) -> tuple[Candidate, ...]:
    """Every row of the store's ``responses`` table, through a read-only connection: no
    schema is created, no migration runs and no lock is taken, so another run may be writing
    the folder at the same time (WAL lets a reader in while a writer works)."""
    try:
        db = sqlite3.connect(f"{store.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise CandidateSourceError(f"cannot open {store} read-only: {exc}") from None
    try:
        db.execute("PRAGMA busy_timeout=5000")
        rows = db.execute(
            "SELECT scenario_id, response_index, model, text, call_key FROM responses "
            "ORDER BY scenario_id, response_index, model"
        ).fetchall()
    except sqlite3.Error as exc:
        raise CandidateSourceError(f"cannot read the responses in {store}: {exc}") from None
    finally:
        db.close()
    return tuple(
        Candidate(str(scenario), int(index), str(text), str(model), str(key))
        for scenario, index, model, text, key in rows
    )


def _candidate_of(line: Any) -> Candidate:
    if not isinstance(line, dict):
        raise ValueError("not a JSON object")
    missing = [name for name in CANDIDATE_FIELDS if name not in line]
    if missing:
        raise ValueError(f"missing {', '.join(missing)}")
    unknown = sorted(set(line) - {*CANDIDATE_FIELDS, "call_key"})
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r}")
    index = line["index"]
    if isinstance(index, bool) or index not in (1, 2):
        raise ValueError(f"index must be 1 or 2, not {index!r}")
    for name in ("scenario_id", "text", "responder_model", "call_key"):
        if not isinstance(line.get(name, ""), str):
            raise ValueError(f"{name} must be a string")
    return Candidate(
        line["scenario_id"], index, line["text"], line["responder_model"], line.get("call_key", "")
    )


def _read_jsonl(path: Path) -> tuple[Candidate, ...]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CandidateSourceError(f"cannot read {path}: {exc}") from None
    found: dict[tuple[str, int, str], Candidate] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            candidate = _candidate_of(json.loads(raw))
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            raise CandidateSourceError(f"{path}:{number}: not a stored response ({exc})") from None
        key = (candidate.scenario_id, candidate.index, candidate.responder_model)
        if key in found:
            raise CandidateSourceError(
                f"{path}:{number}: response {candidate.index} of {candidate.scenario_id!r} by "
                f"{candidate.responder_model} is given twice"
            )
        found[key] = candidate
    return tuple(found[key] for key in sorted(found))


def read_candidate_source(path: Path) -> CandidateSource:
    """The responses stored in ``path``: a run folder, or a ``.jsonl`` export."""
    if path.is_dir():
        store = path / SOURCE_STORE_FILE
        if not store.is_file():
            raise CandidateSourceError(f"{path} is not a run folder (no {SOURCE_STORE_FILE})")
        return CandidateSource(path, _read_store(store), is_run_folder=True)
    if path.is_file():
        return CandidateSource(path, _read_jsonl(path), is_run_folder=False)
    raise CandidateSourceError(f"{path} does not exist (a run folder or a responses .jsonl)")


def responder_of(run_dir: Path) -> tuple[str, Sampling]:
    """The responder model id and the sampling it was called with, from the run folder's
    resolved experiment (defaults filled in by the run that wrote it)."""
    resolved_file = run_dir / SOURCE_RESOLVED_FILE
    try:
        resolved = json.loads(resolved_file.read_text(encoding="utf-8"))
        responder = resolved["responder"]
        spec = (resolved.get("models") or {}).get(responder["model"]) or {"id": responder["model"]}
        base = Sampling.model_validate(spec.get("sampling") or {})
        return str(spec["id"]), base.merged(Sampling.model_validate(responder["sampling"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CandidateSourceError(
            f"cannot tell which responder wrote {run_dir}'s responses from {resolved_file} "
            f"({_reason(exc)})"
        ) from None


def _reason(exc: Exception) -> str:
    """Why the resolved experiment gave no responder, in a few words."""
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, KeyError):
        return f"no {exc.args[0]!r} (not a judge-panel run?)"
    if isinstance(exc, ValidationError):
        return str(exc.errors()[0]["msg"])
    return str(exc) or type(exc).__name__


def _sampling_text(sampling: Sampling) -> str:
    settings = sampling.model_dump(exclude_none=True)
    return ", ".join(f"{name} {value}" for name, value in settings.items()) or "provider defaults"


def _pairs(candidates: Iterable[Candidate], model: str) -> set[str]:
    """Scenarios with both responses by ``model``."""
    indices: dict[str, set[int]] = {}
    for candidate in candidates:
        if candidate.responder_model == model:
            indices.setdefault(candidate.scenario_id, set()).add(candidate.index)
    return {scenario for scenario, found in indices.items() if found == {1, 2}}


def candidate_problems(
    source: CandidateSource, config: ExperimentConfig, scenario_ids: Sequence[str]
) -> list[str]:
    """Why ``source`` cannot stand in for ``config``'s responder on ``scenario_ids``: another
    responder model or sampling (the trial key carries the responder model), or scenarios
    without both responses. Empty when every needed pair is there."""
    model = config.responder_spec.id
    sampling = config.responder_spec.sampling.merged(config.responder.sampling)
    if source.is_run_folder:
        try:
            source_model, source_sampling = responder_of(source.path)
        except CandidateSourceError as exc:
            return [str(exc)]
        if (source_model, source_sampling) != (model, sampling):
            return [
                f"{source.path} was written by responder {source_model} "
                f"({_sampling_text(source_sampling)}), this experiment's responder is {model} "
                f"({_sampling_text(sampling)}): the trial key carries the responder, so its "
                "candidates stand in only for the same responder model and sampling"
            ]
    else:
        models = sorted({c.responder_model for c in source.candidates})
        if model not in models:
            return [
                f"{source.path} holds responses by {', '.join(models) or 'no responder'}, "
                f"not by this experiment's responder {model}"
            ]
    stored = _pairs(source.candidates, model)
    missing = [scenario for scenario in dict.fromkeys(scenario_ids) if scenario not in stored]
    if not missing:
        return []
    named = ", ".join(missing[:_SHOWN]) + (
        f" and {len(missing) - _SHOWN} more" if len(missing) > _SHOWN else ""
    )
    return [
        f"{len(missing)} scenario{'' if len(missing) == 1 else 's'} this experiment needs "
        f"{'has' if len(missing) == 1 else 'have'} no stored response pair by {model} in "
        f"{source.path}: {named}"
    ]


def needed_candidates(
    source: CandidateSource, model: str, scenario_ids: Iterable[str]
) -> list[Candidate]:
    """Both responses by ``model`` of every scenario in ``scenario_ids`` that has them."""
    wanted = set(scenario_ids)
    return [
        c
        for c in source.candidates
        if c.responder_model == model and c.scenario_id in wanted and c.index in (1, 2)
    ]


def write_candidates(candidates: Iterable[Candidate], out: Path) -> tuple[int, str]:
    """Write ``candidates`` to ``out`` as JSON Lines (one response a line, in digest order);
    returns how many and their digest."""
    ordered = sorted(candidates, key=lambda c: (c.scenario_id, c.index, c.responder_model))
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8", newline="\n") as handle:
        for candidate in ordered:
            handle.write(json.dumps(candidate.as_json(), sort_keys=False) + "\n")
    return len(ordered), candidates_digest(ordered)
