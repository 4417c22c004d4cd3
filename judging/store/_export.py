"""Every judge turn of a run as one flat table, for analysis outside fairpanel.

One row per judge turn (every round, parse failures included with their raw text and error),
with the trial's design beside it so a row can be understood without the SQLite file. The
column list below is the single source of truth: the exporter, the reader and docs/export.md
all follow it, and a test checks that the documentation names every column.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pandas as pd

from fairpanel.judging.protocol._judgment import METRICS
from fairpanel.judging.store._store import Store

__all__ = [
    "EXPORT_COLUMNS",
    "ExportColumn",
    "ExportFormat",
    "export_frame",
    "read_export",
    "write_export",
]

ExportFormat = Literal["csv", "parquet"]
_POSITIONS = ("a", "b")
_CANDIDATES = ("A", "B")


@dataclass(frozen=True)
class ExportColumn:
    name: str
    dtype: str  # a pandas dtype name: "string", "Int64", "float64", "boolean"
    description: str


def _score_columns() -> list[ExportColumn]:
    return [
        ExportColumn(
            f"score_{position}_{metric}",
            "float64",
            f"{metric.capitalize()} score (0-10) this judge gave the candidate shown "
            f"{'first (A)' if position == 'a' else 'second (B)'}; empty when the turn failed to "
            "parse" + ("" if position == "a" else " or the trial is single-candidate"),
        )
        for position in _POSITIONS
        for metric in METRICS
    ]


EXPORT_COLUMNS: tuple[ExportColumn, ...] = (
    ExportColumn("trial_key", "string", "SHA-256 of the trial's full spec (joins to the store)"),
    ExportColumn("trial_status", "string", "ok or failed (a failed trial keeps its turns)"),
    ExportColumn("trial_error", "string", "why the trial failed; empty when ok"),
    ExportColumn("protocol", "string", "single (one candidate) or pair (two candidates)"),
    ExportColumn("arm", "string", "main, placebo or same_label (control arms)"),
    ExportColumn("treatment", "string", "prompt treatment; the experiment's first is the baseline"),
    ExportColumn("signal", "string", "how identity was shown: explicit label or name cue"),
    ExportColumn("label_position", "string", "where the label sits: tag, header or footer"),
    ExportColumn("category", "string", "identity category (gender, race, ...; control: placebo)"),
    ExportColumn("base_id", "string", "base scenario (the cluster for clustered statistics)"),
    ExportColumn("scenario_id", "string", "derived scenario"),
    ExportColumn("replicate", "Int64", "replicate index of the trial"),
    ExportColumn("seed", "Int64", "experiment seed"),
    ExportColumn("identity_a", "string", "identity label on the candidate shown first (A)"),
    ExportColumn("identity_b", "string", "identity label on the second candidate (B); pair only"),
    ExportColumn("author_a", "string", "author text shown for A (phrase or first name)"),
    ExportColumn("author_b", "string", "author text shown for B; pair only"),
    ExportColumn("response_index_a", "Int64", "which responder answer (1 or 2) is shown as A"),
    ExportColumn("response_index_b", "Int64", "which responder answer is shown as B; pair only"),
    ExportColumn("responder_model", "string", "model that wrote the answers"),
    ExportColumn("consensus_rule", "string", "mean, median, majority or moderator"),
    ExportColumn("panel_winner", "string", "the panel's consensus winner (A or B); pair only"),
    ExportColumn("judge", "string", "judge persona (or moderator) that took this turn"),
    ExportColumn("speaker_index", "Int64", "the judge's place in the trial's speaking order"),
    ExportColumn("judge_model", "string", "model id of this judge's seat"),
    ExportColumn("round", "Int64", "0 for the first round, then discussion rounds, then final"),
    ExportColumn("round_kind", "string", "first, discussion or final"),
    ExportColumn("parse_ok", "boolean", "the answer validated into scores (after re-asks)"),
    ExportColumn("parse_error", "string", "the validation error of a failed turn; else empty"),
    ExportColumn("raw_text", "string", "the judge's answer exactly as the model returned it"),
    ExportColumn("attempts", "Int64", "model calls this turn took (1 + re-asks)"),
    ExportColumn("prompt_tokens", "Int64", "prompt tokens over all attempts"),
    ExportColumn("completion_tokens", "Int64", "completion tokens over all attempts"),
    ExportColumn("latency_s", "float64", "seconds the turn's calls took, summed"),
    ExportColumn("reason", "string", "the judge's stated reason; empty when unparsed"),
    ExportColumn("verdict", "string", "the judge's pick, A or B; pair turns that parsed"),
    ExportColumn("verdict_identity", "string", "identity label of the judge's pick"),
    *_score_columns(),
)

# Columns that never hold a missing value; CSV cannot tell "" from missing, so these read back
# as "" rather than as missing.
_NEVER_MISSING = frozenset(
    {"trial_key", "trial_status", "protocol", "arm", "treatment", "signal", "category", "judge"}
    | {"judge_model", "round_kind", "raw_text", "base_id", "scenario_id", "label_position"}
)


def _design(
    key: str, spec: dict[str, Any], status: str, error: str | None, consensus: Any
) -> dict[str, Any]:
    identities = list(spec.get("identities", []))
    authors = list(spec.get("authors", []))
    responses = list(spec.get("response_indices", []))
    row: dict[str, Any] = {
        "trial_key": key,
        "trial_status": status,
        "trial_error": error,
        "protocol": spec["protocol"],
        "arm": spec.get("arm", "main"),
        "treatment": spec.get("treatment", "none"),
        "signal": spec.get("signal", "explicit"),
        "label_position": spec.get("label_position", "tag"),
        "category": spec["category"],
        "base_id": spec["base_id"],
        "scenario_id": spec["scenario_id"],
        "replicate": spec.get("replicate"),
        "seed": spec.get("seed"),
        "responder_model": spec.get("responder_model"),
        "consensus_rule": spec.get("consensus"),
        "panel_winner": consensus.get("winner") if isinstance(consensus, dict) else None,
    }
    for index, position in enumerate(_POSITIONS):
        row[f"identity_{position}"] = identities[index] if index < len(identities) else None
        row[f"author_{position}"] = authors[index] if index < len(authors) else None
        row[f"response_index_{position}"] = responses[index] if index < len(responses) else None
    return row


def _judgment(
    protocol: str, parsed: dict[str, Any] | None, design: dict[str, Any]
) -> dict[str, Any]:
    row: dict[str, Any] = {"reason": None, "verdict": None, "verdict_identity": None}
    if parsed is None:
        return row
    row["reason"] = parsed.get("reason")
    by_candidate = {"A": parsed} if protocol == "single" else parsed
    for position, candidate in zip(_POSITIONS, _CANDIDATES, strict=True):
        scores = by_candidate.get(candidate)
        if isinstance(scores, dict):
            for metric in METRICS:
                row[f"score_{position}_{metric}"] = scores.get(metric)
    winner = parsed.get("winner")
    if winner in _CANDIDATES:
        row["verdict"] = winner
        row["verdict_identity"] = design[f"identity_{_POSITIONS[_CANDIDATES.index(winner)]}"]
    return row


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """The documented column order and dtypes (nullable ints and strings, so a missing value
    stays missing instead of turning an int column into floats)."""
    for column in EXPORT_COLUMNS:
        if column.name not in frame.columns:
            frame[column.name] = None
    ordered = frame[[c.name for c in EXPORT_COLUMNS]].copy()
    for column in EXPORT_COLUMNS:
        ordered[column.name] = ordered[column.name].astype(column.dtype)  # type: ignore[call-overload]
    return ordered


def export_frame(store: Store) -> pd.DataFrame:
    """One row per stored judge turn, in trial-key, round and speaking order."""
    designs: dict[str, dict[str, Any]] = {}
    for key, spec, status, error, consensus in store.iter_trials():
        designs[key] = _design(key, spec, status, error, consensus)
    rows: list[dict[str, Any]] = []
    for turn in store.iter_turns():
        design = designs[turn["trial_key"]]
        rows.append(
            {
                **design,
                "judge": turn["judge"],
                "speaker_index": turn["speaker_index"],
                "judge_model": turn["judge_model"],
                "round": turn["round"],
                "round_kind": turn["round_kind"],
                "parse_ok": turn["parsed"] is not None,
                "parse_error": turn["parse_error"],
                "raw_text": turn["raw_text"],
                "attempts": turn["attempts"],
                "prompt_tokens": turn["prompt_tokens"],
                "completion_tokens": turn["completion_tokens"],
                "latency_s": turn["latency_s"],
                **_judgment(str(design["protocol"]), turn["parsed"], design),
            }
        )
    return _typed(pd.DataFrame(rows, columns=[c.name for c in EXPORT_COLUMNS]))


def write_export(frame: pd.DataFrame, path: Path, fmt: ExportFormat) -> Path:
    """Write the export table as CSV (UTF-8, RFC 4180 quoting) or Parquet (pyarrow)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        frame.to_csv(path, index=False, encoding="utf-8")
    elif fmt == "parquet":
        frame.to_parquet(path, index=False, engine="pyarrow")
    else:
        raise ValueError(f"unknown export format {fmt!r}; expected csv or parquet")
    return path


def read_export(path: Path) -> pd.DataFrame:
    """Read an export back with the documented dtypes (the format follows the file suffix)."""
    if path.suffix == ".parquet":
        return _typed(pd.read_parquet(path, engine="pyarrow"))
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""], encoding="utf-8")
    for name in _NEVER_MISSING:
        frame[name] = frame[name].fillna("")
    for column in EXPORT_COLUMNS:
        if column.dtype == "boolean":
            frame[column.name] = frame[column.name].map({"True": True, "False": False})
        elif column.dtype in {"Int64", "float64"}:
            frame[column.name] = pd.to_numeric(frame[column.name])
    return _typed(frame)
