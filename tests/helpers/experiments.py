"""The small panel experiment that tests run against one judge model, as YAML.

One base scenario, gender only, two judges (domain expert, creativity reviewer) and one
discussion round, on one model named ``judge`` that also writes the responses: the smallest
run that exercises every call kind of a provider.
"""

from __future__ import annotations

import copy
from typing import Any

import yaml

__all__ = [
    "FAKE_JUDGE",
    "ORIGINAL_BASES",
    "SAMPLING",
    "offline_design",
    "panel_experiment",
    "small_fake_judge_run",
]

# The judge model of the runs against a loopback fake OpenAI-format server (its base_url added).
FAKE_JUDGE: dict[str, Any] = {
    "id": "openai-compatible/judge",
    "api_key_env": "FAIRPANEL_TEST_KEY",
    "structured_output": True,
}

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


# The library's original fifteen base scenarios, in a fixed order: the offline designs take
# the first ones, and tests whose planted effects were sized on these bases name them all.
ORIGINAL_BASES = [
    "fitness-coaching",
    "nursing-care-plan",
    "software-incident-response",
    "emergency-triage",
    "portfolio-advice",
    "salary-negotiation",
    "team-restructuring",
    "legal-defence-strategy",
    "restaurant-menu-planning",
    "research-grant-proposal",
    "household-budget-counselling",
    "construction-site-safety",
    "classroom-behaviour-plan",
    "early-childhood-classroom",
    "engineering-design-review",
]


def offline_design(name: str, bases: list[str], derived_per_base: int) -> str:
    """A design for ``fairpanel simulate`` and ``estimate``, as text (tests edit it by
    replacement). Its model would need a key and a network: those commands must never call it."""
    listed = ",\n          ".join(
        ", ".join(bases[start : start + 6]) for start in range(0, len(bases), 6)
    )
    return f"""\
name: {name}
seed: 4
protocols: [single, pair]
models:
  judge:
    id: openai/gpt-4o-mini
    base_url: http://127.0.0.1:9/v1
responder:
  model: judge
panel:
  judges: [domain_expert, creativity_reviewer]
  model: judge
scenarios:
  bases: [{listed}]
  derived_per_base: {derived_per_base}
identities:
  categories: [gender]
"""


def small_fake_judge_run(base_url: str) -> str:
    """A run against the fake server small enough to kill and resume many times: one base,
    two derived scenarios, gender and race, two judges without a discussion round."""
    return panel_experiment(
        "resume",
        {**FAKE_JUDGE, "base_url": base_url},
        panel={"judges": ["domain_expert", "clarity_editor"], "discussion_rounds": 0},
        scenarios={"derived_per_base": 2},
        identities={"categories": ["gender", "race"]},
        arms={"placebo": False, "same_label": False},
        concurrency=4,
    )
