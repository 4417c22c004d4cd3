"""Which judge answered: what the servers said they ran, per configured model.

A model id in the config names what was asked for; the server names what answered. An alias
moved to a new snapshot, or a backend redeployed, in the middle of a run splits its calls
between two judges that the analysis would otherwise treat as one. Every stored call carries
the server's model name and fingerprint (``ModelReply.served_model`` / ``fingerprint``), so the
split can be counted after the fact and named in the manifest, where a reader of the run
folder finds it next to the models the run was configured with.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairpanel.judging.store._store import Store

__all__ = [
    "ServedModel",
    "ServedValue",
    "record_served",
    "served_model_changes",
    "served_models",
]


@dataclass(frozen=True)
class ServedValue:
    """One model name or fingerprint a server reported, on how many stored calls, and the
    ``created_at`` of the first and last of them."""

    value: str
    calls: int
    first_seen: str
    last_seen: str

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


@dataclass(frozen=True)
class ServedModel:
    """What the servers reported for the calls of one configured model (the request's model).

    ``names`` and ``fingerprints`` are the distinct values in the order they were first seen;
    calls whose server reported none (a server that says nothing, or calls stored before
    fairpanel recorded it) are counted in ``unreported_names`` / ``unreported_fingerprints``
    and are not a change.
    """

    model: str
    calls: int
    names: tuple[ServedValue, ...]
    fingerprints: tuple[ServedValue, ...]
    unreported_names: int = 0
    unreported_fingerprints: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "names": [value.as_dict() for value in self.names],
            "fingerprints": [value.as_dict() for value in self.fingerprints],
            "unreported_names": self.unreported_names,
            "unreported_fingerprints": self.unreported_fingerprints,
        }


class _Tally:
    """Distinct values in first-seen order, with counts and first/last times."""

    def __init__(self) -> None:
        self.seen: dict[str, ServedValue] = {}
        self.unreported = 0

    def add(self, value: str | None, created: str) -> None:
        if value is None:
            self.unreported += 1
            return
        before = self.seen.get(value)
        self.seen[value] = (
            ServedValue(value, 1, created, created)
            if before is None
            else ServedValue(value, before.calls + 1, before.first_seen, created)
        )

    def values(self) -> tuple[ServedValue, ...]:
        return tuple(self.seen.values())


def served_models(store: Store) -> dict[str, ServedModel]:
    """Every configured model's served names and fingerprints, from the calls in ``store``,
    keyed by model id in the order the models were first called."""
    tallies: dict[str, tuple[_Tally, _Tally]] = {}
    calls: dict[str, int] = {}
    for model, served, fingerprint, created in store.iter_served():
        names, fingerprints = tallies.setdefault(model, (_Tally(), _Tally()))
        names.add(served, created)
        fingerprints.add(fingerprint, created)
        calls[model] = calls.get(model, 0) + 1
    return {
        model: ServedModel(
            model=model,
            calls=calls[model],
            names=names.values(),
            fingerprints=fingerprints.values(),
            unreported_names=names.unreported,
            unreported_fingerprints=fingerprints.unreported,
        )
        for model, (names, fingerprints) in tallies.items()
    }


def _counted(values: tuple[ServedValue, ...]) -> str:
    return ", ".join(f"{v.value} {v.calls} call{'' if v.calls == 1 else 's'}" for v in values)


def served_model_changes(served: Mapping[str, ServedModel]) -> list[str]:
    """One sentence for each model whose server reported more than one model name, and one
    for each that reported more than one fingerprint, during the run."""
    sentences: list[str] = []
    for model, found in served.items():
        for kind, values in (("model names", found.names), ("fingerprints", found.fingerprints)):
            if len(values) > 1:
                sentences.append(
                    f"{model}: the server reported {len(values)} {kind} during the run "
                    f"({_counted(values)})"
                )
    return sentences


def record_served(manifest_file: Path, store: Store) -> None:
    """Add ``served`` (by model id) and ``served_changes`` to the run's manifest.

    The manifest is written before the first call; what the servers reported is only known
    after the last, so a finished invocation adds it, from every call in the store (earlier
    invocations of a resumed run included).
    """
    manifest = json.loads(manifest_file.read_text(encoding="utf-8"))
    served = served_models(store)
    manifest["served"] = {model: found.as_dict() for model, found in served.items()}
    manifest["served_changes"] = served_model_changes(served)
    manifest_file.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
