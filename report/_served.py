"""What the servers said they ran, as rows of the provenance table.

manifest.json's ``served`` block (per configured model: the model names and fingerprints the
servers reported, with call counts) and ``served_changes`` (a sentence per model whose name or
fingerprint changed during the run) tell a reader which model actually answered; a change
means the run's judgments did not all come from one model version. For a model on several
replicas, summary.json's ``replicas`` says which server answered how many calls, and failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["SERVED_FIELDS", "replica_rows", "served_rows"]

SERVED_FIELDS = frozenset({"served", "served_changes"})
"""The manifest keys these rows show (other pages list unknown keys raw)."""


def _values(entries: Any) -> str:
    return ", ".join(f"{entry['value']} ({int(entry['calls'])} calls)" for entry in entries or [])


def served_rows(manifest: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """(label, text) per configured model with what its server reported, then each change."""
    rows: list[tuple[str, str]] = []
    served: Mapping[str, Any] = (manifest or {}).get("served") or {}
    for model, block in served.items():
        names = _values(block.get("names"))
        prints = _values(block.get("fingerprints"))
        parts = [f"model {names}" if names else "no model name reported"]
        if prints:
            parts.append(f"fingerprint {prints}")
        rows.append((f"served for {model}", "; ".join(parts)))
    for change in (manifest or {}).get("served_changes") or []:
        rows.append(("changed during the run", str(change)))
    return rows


def replica_rows(summary: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """(label, text) per replica of each model served by several: calls, failed attempts,
    median latency (a model on one server has nothing to compare and gets no row)."""
    rows: list[tuple[str, str]] = []
    replicas: Mapping[str, Any] = (summary or {}).get("replicas") or {}
    for model, found in replicas.items():
        if len(found) < 2:
            continue
        for replica, numbers in found.items():
            latency = numbers.get("latency_s")
            median = f", median {float(latency['p50']):.2f} s" if latency else ""
            rows.append(
                (
                    f"replica of {model}",
                    f"{replica}: {int(numbers['calls']):,} calls, "
                    f"{int(numbers['failures']):,} failed attempts{median}",
                )
            )
    return rows
