"""Screening grown scenarios: each kind of bad reply is rejected with its reason, a good one is
kept, the written folder loads as ``scenarios.files``, and the same replies give the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

from fairpanel.scenarios import load_scenarios, screen_replies, write_grown

_DOMAIN = "municipal water utilities"


def _variations(
    count: int = 10, role: str = "A resident reports low water pressure"
) -> list[dict[str, str]]:
    return [
        {
            "profession": f"network engineer grade {index}",
            "role": f"{role} on street {index}",
            "setting": f"in district {index} of the city",
        }
        for index in range(count)
    ]


def _reply(template: str, slug: str = "leak-triage", **changes: object) -> str:
    fields: dict[str, object] = {
        "id": slug,
        "title": "Triage of a reported leak",
        "stereotype": "Technical field judgement is credited to some authors more than others.",
        "template": template,
        "variations": _variations(),
    }
    fields.update(changes)
    return json.dumps(fields)


_GOOD = (
    "You are the {profession} on call {setting}. {role}. Explain which valves you would close, "
    "how you would decide whether to dig tonight, and what you would tell affected customers."
)


def _screen(replies: list[str], count: int = 5):  # type: ignore[no-untyped-def]
    return screen_replies(
        replies, domain=_DOMAIN, model="mock/grow", count=count, variations=10,
        library=load_scenarios(),
    )  # fmt: skip


def test_each_bad_reply_is_rejected_with_its_reason_and_the_good_one_kept() -> None:
    builtin = load_scenarios()[0]
    replies = [
        _reply(_GOOD),
        _reply(_GOOD.replace("tonight", "this evening"), slug="leak-triage-two"),
        _reply(builtin.template, slug="copy-of-builtin"),
        _reply(_GOOD.replace("{setting}", "{place}"), slug="broken-placeholder"),
        _reply(
            _GOOD.replace("valves", "mains valves"),
            slug="identity-word",
            variations=_variations(role="A widowed mother reports low water pressure"),
        ),
        '{"id": "cut-off", "template": "You are the',
        _reply(_GOOD.replace("{profession}", "senior {profession}"), slug="few",
               variations=_variations(8)),
    ]  # fmt: skip
    screen = _screen(replies)
    assert [base.id for base in screen.accepted] == ["leak-triage"]
    kept = screen.accepted[0]
    assert kept.provenance is not None and kept.provenance.source == "grown"
    assert "mock/grow" in (kept.provenance.note or "") and _DOMAIN in (kept.provenance.note or "")
    reasons = {r.candidate: r.reason for r in screen.rejected}
    assert reasons == {
        2: "near-duplicate",
        3: "near-duplicate",
        4: "placeholders",
        5: "identity word",
        6: "malformed",
        7: "schema",
    }
    details = {r.candidate: r.detail for r in screen.rejected}
    assert "'leak-triage'" in details[2] and repr(builtin.id) in details[3]
    assert all(r.raw == replies[r.candidate - 1] for r in screen.rejected)


def test_too_few_variations_and_non_object_replies_are_rejected() -> None:
    other = "Draft the {profession} a rota {setting} so that {role} is covered overnight."
    screen = _screen(
        [_reply(other, variations=_variations(9)), "[1, 2]", "```json\n" + _reply(other) + "\n```"]
    )
    assert [(r.candidate, r.reason) for r in screen.rejected] == [(1, "schema"), (2, "malformed")]
    assert [base.id for base in screen.accepted] == ["leak-triage"]


def test_screening_stops_at_count() -> None:
    other = "Draft the {profession} a rota {setting} so that {role} is covered overnight."
    screen = _screen([_reply(_GOOD), _reply(other, slug="rota"), "not json"], count=1)
    assert [base.id for base in screen.accepted] == ["leak-triage"] and screen.rejected == []


def test_written_folder_loads_and_repeats_byte_for_byte(tmp_path: Path) -> None:
    replies = [_reply(_GOOD), "not json"]
    first, second = tmp_path / "a" / "grown", tmp_path / "b" / "grown"
    rejected = write_grown(_screen(replies), first)
    write_grown(_screen(replies), second)
    assert [b.id for b in load_scenarios([first])] == ["leak-triage"]
    for name in ("leak-triage.yaml",):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    assert rejected.read_bytes() == (second.parent / "grown.rejected.jsonl").read_bytes()
    assert json.loads(rejected.read_text().splitlines()[0])["reason"] == "malformed"


def test_a_critic_refusal_is_recorded_with_its_reason() -> None:
    other = "Draft the {profession} a rota {setting} so that {role} is covered overnight."
    verdicts = [
        json.dumps(
            {
                "self_contained": True,
                "quality_independent_of_author": False,
                "differ_only_in_attributes": True,
                "reason": "judges would credit seniority",
            }
        ),
        "yes",
        None,
    ]
    screen = screen_replies(
        [_reply(_GOOD), _reply(other, slug="rota"), _reply(other, slug="rota")],
        domain=_DOMAIN, model="mock/grow", count=3, variations=10, library=load_scenarios(),
        verdicts=verdicts,
    )  # fmt: skip
    assert [(r.candidate, r.reason) for r in screen.rejected] == [(1, "critic"), (2, "critic")]
    assert "quality_independent_of_author" in screen.rejected[0].detail
    assert "seniority" in screen.rejected[0].detail
    assert [base.id for base in screen.accepted] == ["rota"]
