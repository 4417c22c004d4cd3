"""Did the same configured model answer in every compared run? Served names and fingerprints.

A comparison of two runs that name the same model id reads as "the same judge, twice". Yet an
alias may have moved to a new snapshot, or a backend been redeployed, between the runs; each
manifest's ``served`` block records what the servers said answered (model names and
fingerprints, per configured model id), so a change between runs can be named. A run whose
server reported nothing for a model (``unreported``) is not counted as a change; and a model
that changed within one run is already in that run's ``served_changes``, repeated here.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from fairpanel.analysis import RunInputs

__all__ = ["served_changes", "served_warnings"]


def _values(served: Mapping[str, Any], kind: str) -> list[str]:
    return [str(v.get("value")) for v in served.get(kind) or [] if isinstance(v, Mapping)]


def _described(served: Mapping[str, Any]) -> str:
    """'gpt-4o-mini-2024-07-18 (fp_x)': the served names, then the fingerprints."""
    names = " / ".join(_values(served, "names")) or "an unreported model name"
    fingerprints = ", ".join(_values(served, "fingerprints"))
    return f"{names} ({fingerprints})" if fingerprints else names


def _differs(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two runs' servers named another model or fingerprint for the same model id
    (only kinds both runs' servers reported count)."""
    for kind in ("names", "fingerprints"):
        first, second = set(_values(a, kind)), set(_values(b, kind))
        if first and second and first != second:
            return True
    return False


def _judges(manifest: Mapping[str, Any]) -> set[str]:
    """Every judge model id of a run: the first panel's and, for a run of several panels,
    every panel's."""
    ids = {str(m) for m in ((manifest.get("models") or {}).get("judges") or {}).values()}
    for panel in (manifest.get("panels") or {}).values():
        ids |= {str(m) for m in ((panel or {}).get("judges") or {}).values()}
    return ids


def _role(model: str, manifests: Sequence[Mapping[str, Any]]) -> str:
    if any(model in _judges(manifest) for manifest in manifests):
        return "judge"
    responders = {str((m.get("models") or {}).get("responder")) for m in manifests}
    return "responder" if model in responders else "model"


def served_changes(runs: Sequence[RunInputs]) -> dict[str, list[str]]:
    """Each run's own ``served_changes`` (a model that answered as more than one name or
    fingerprint within the run), by run."""
    return {
        run.name: [str(change) for change in (run.manifest or {}).get("served_changes") or []]
        for run in runs
    }


def served_warnings(runs: Sequence[RunInputs]) -> list[str]:
    """A sentence for every model id two runs both called whose servers reported another
    model name or fingerprint in one than in the other, then every run's own changes."""
    warnings: list[str] = []
    for a, b in itertools.combinations(runs, 2):
        manifest_a, manifest_b = a.manifest or {}, b.manifest or {}
        served_a = manifest_a.get("served") or {}
        served_b = manifest_b.get("served") or {}
        for model in [m for m in served_a if m in served_b]:
            if _differs(served_a[model], served_b[model]):
                role = _role(model, (manifest_a, manifest_b))
                warnings.append(
                    f"{model}: run {a.name} was served {_described(served_a[model])}, run "
                    f"{b.name} was served {_described(served_b[model])}: the {role} changed "
                    "between runs, so the same model id names two models here"
                )
    for name, changes in served_changes(runs).items():
        warnings += [f"run {name}: {change}" for change in changes]
    return warnings
