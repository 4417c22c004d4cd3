"""The small panel experiment that tests run against one judge model, as YAML.

One base scenario, gender only, two judges (domain expert, creativity reviewer) and one
discussion round, on one model named ``judge`` that also writes the responses: the smallest
run that exercises every call kind of a provider.
"""

from __future__ import annotations

import copy
from typing import Any

import yaml

__all__ = ["SAMPLING", "panel_experiment"]

# Every sampling setting set, so a provider's handling of each one is exercised.
SAMPLING = {"temperature": 0.3, "top_p": 0.9, "seed": 5, "max_tokens": 150}

_PANEL: dict[str, Any] = {
    "models": {},
    "panel": {
        "judges": ["domain_expert", "creativity_reviewer"],
        "model": "judge",
        "discussion_rounds": 1,
    },
    "responder": {"model": "judge"},
    "scenarios": {"bases": ["fitness-coaching"], "derived_per_base": 1},
    "identities": {"categories": ["gender"]},
    "pair": {"counterbalance": False},
}


def _merged(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    for key, value in changes.items():
        if value is None:
            base.pop(key, None)
        elif isinstance(value, dict) and isinstance(base.get(key), dict):
            _merged(base[key], value)
        else:
            base[key] = value
    return base


def panel_experiment(name: str, judge: dict[str, Any], **changes: Any) -> str:
    """The experiment, named ``name``, with model ``judge``; ``changes`` are merged into the
    top-level sections (nested mappings merged key by key; a None value removes the key)."""
    config = {"name": name, **copy.deepcopy(_PANEL)}
    config["models"] = {"judge": judge}
    return yaml.safe_dump(_merged(config, changes), sort_keys=False)
