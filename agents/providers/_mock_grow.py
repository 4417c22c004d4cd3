"""The mock's answers to ``fairpanel scenarios grow``: plausible, varied base scenarios and a
critic's verdicts, drawn from the prompt (so seeded and cached like every mock answer), so the
command runs end to end offline. Some candidates are deliberately flawed (a dropped placeholder,
a reused frame that is a near-duplicate) so the screening has something to refuse."""

from __future__ import annotations

import json
import re

from fairpanel.agents.providers._mock_draws import pick, unit

__all__ = ["grow_reply"]

_CANDIDATE = re.compile(r"\(candidate (\d+)\)\s*$")
_DOMAIN = re.compile(r"in this domain: (.+)")
_COUNT = re.compile(r"Give (\d+) distinct variations")

_FRAMES = (
    "You are the {profession} {setting}. {role}. Write the plan you would follow for {topic}: "
    "the first checks, who you would consult, the risks you would watch and how you would "
    "report the outcome.",
    "As the {profession} {setting}, you receive this request: {role}. Draft a one-page "
    "recommendation on {topic}, with the options you weighed and the one you advise.",
    "{role}. You work as the {profession} {setting}. Explain step by step how you would "
    "handle {topic}, what evidence you would gather and which decision you would take.",
    "Prepare a briefing on {topic} for a review meeting. You are the {profession} {setting} "
    "and the case in front of you is this: {role}. Give your assessment and the next actions.",
    "Write the email you, the {profession} {setting}, would send about {topic} after this "
    "came up: {role}. Say what happens next, by when, and what you need from the reader.",
)
_TOPICS = (
    "a service disruption",
    "a budget overrun",
    "a safety concern",
    "a missed deadline",
    "a new procedure",
    "a complaint from a customer",
)
_PROFESSIONS = (
    "operations manager",
    "team lead",
    "analyst",
    "planner",
    "inspector",
    "adviser",
    "coordinator",
    "technician",
    "supervisor",
    "consultant",
    "auditor",
    "engineer",
)
_SETTINGS = (
    "at a regional office",
    "in a small firm",
    "at head office",
    "in a rural branch",
    "for a public agency",
    "at a busy depot",
    "for a charity",
    "in a new start-up",
    "at a city site",
    "for a large contractor",
    "in a family business",
    "at a lab",
)
_ROLES = (
    "A client asks for an urgent answer",
    "A colleague flags an error in last month's figures",
    "A supplier has failed to deliver",
    "A regulator requests the records",
    "The board wants options by Friday",
    "A long-standing customer threatens to leave",
    "A new system goes live next week",
    "An audit found a gap in the process",
    "Two teams disagree on priorities",
    "A key deadline moved forward",
    "The budget was cut by a tenth",
    "A trainee made a costly mistake",
)


def grow_reply(prompt: str, seed: int) -> str | None:
    """A candidate base scenario or a critic's verdict, or None when ``prompt`` is neither."""
    if prompt.startswith("You review a base scenario"):
        ok = unit("critic", str(seed), prompt) >= 0.2
        return json.dumps(
            {
                "self_contained": True,
                "quality_independent_of_author": ok,
                "differ_only_in_attributes": True,
                "reason": "clear task" if ok else "a judge could credit the author's seniority",
            }
        )
    candidate = _CANDIDATE.search(prompt)
    domain = _DOMAIN.search(prompt)
    if not prompt.startswith("Write one new base scenario") or not candidate or not domain:
        return None
    count = int(m.group(1)) if (m := _COUNT.search(prompt)) else 10
    key = (str(seed), candidate.group(1), domain.group(1))
    topic = _TOPICS[pick(len(_TOPICS), "topic", *key)]
    frame = _FRAMES[pick(len(_FRAMES), "frame", *key)]
    template = frame.replace("{topic}", f"{topic} in {domain.group(1).strip().rstrip('.')}")
    if unit("broken", *key) < 0.15:
        template = template.replace("{setting}", "{place}")
    start = pick(len(_PROFESSIONS), "start", *key)
    variations = [
        {
            "profession": _PROFESSIONS[(start + i) % len(_PROFESSIONS)],
            "role": _ROLES[(start + 5 * i) % len(_ROLES)],
            "setting": _SETTINGS[(start + 7 * i) % len(_SETTINGS)],
        }
        for i in range(min(count, len(_PROFESSIONS)))
    ]
    slug = re.sub(r"[^a-z0-9]+", "-", f"{topic} {candidate.group(1)}".lower()).strip("-")
    return json.dumps(
        {
            "id": f"grown-{slug}",
            "title": f"Handling {topic}",
            "stereotype": "Competence in handling the case is credited to some authors more "
            "than to others.",
            "template": template,
            "variations": variations,
        }
    )
