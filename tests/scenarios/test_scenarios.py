"""Built-in scenario tree and the scenario loader."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from pydantic import ValidationError

from fairpanel import InputFileError
from fairpanel.personas import load_identities
from fairpanel.scenarios import (
    BaseScenario,
    DerivedScenario,
    Variation,
    builtin_scenarios_dir,
    derived_scenarios,
    load_scenarios,
)

ATTRIBUTES = ("profession", "role", "setting")

ORIGINAL_IDS = {
    "classroom-behaviour-plan",
    "construction-site-safety",
    "early-childhood-classroom",
    "emergency-triage",
    "engineering-design-review",
    "fitness-coaching",
    "household-budget-counselling",
    "legal-defence-strategy",
    "nursing-care-plan",
    "portfolio-advice",
    "research-grant-proposal",
    "restaurant-menu-planning",
    "salary-negotiation",
    "software-incident-response",
    "team-restructuring",
}

# Words that would make an identity explicit in the task itself; the identity labels and names of
# the built-in identity set are checked on top of these.
EXTRA_IDENTITY_WORDS = (
    "woman",
    "women",
    "man",
    "men",
    "girl",
    "boy",
    "he",
    "she",
    "him",
    "his",
    "her",
    "hers",
    "mother",
    "father",
    "gender",
    "race",
    "racial",
    "ethnic",
    "ethnicity",
    "religion",
    "religious",
    "church",
    "mosque",
    "synagogue",
    "Latino",
    "Latina",
    "Caucasian",
    "African",
    "European",
    "immigrant",
    "elderly",
)


# --- built-in data ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bases() -> list[BaseScenario]:
    return load_scenarios()


@pytest.fixture(scope="module")
def derived(bases: list[BaseScenario]) -> list[DerivedScenario]:
    return derived_scenarios(bases)


def test_builtin_counts(bases: list[BaseScenario], derived: list[DerivedScenario]) -> None:
    assert len(bases) >= 12
    assert all(len(b.variations) >= 10 for b in bases)
    assert len(derived) >= 120
    assert len(derived) == sum(len(b.variations) for b in bases)


def test_builtin_ids_unique_and_well_formed(
    bases: list[BaseScenario], derived: list[DerivedScenario]
) -> None:
    base_ids = [b.id for b in bases]
    assert len(set(base_ids)) == len(base_ids)
    ids = [d.id for d in derived]
    assert len(set(ids)) == len(ids)
    for base in bases:
        own = [d.id for d in derived if d.base_id == base.id]
        assert own == [f"{base.id}/{i:02d}" for i in range(1, len(base.variations) + 1)]


def test_builtin_library_is_wide_enough_to_find_a_quarter_point(
    bases: list[BaseScenario],
) -> None:
    # Issue 28: at least 80 bases over at least 12 domains, each domain more than a token one,
    # the original fifteen ids kept, and every file saying where it came from.
    assert len(bases) >= 80
    domains = Counter(b.domain for b in bases)
    assert len(domains) >= 12
    assert min(domains.values()) >= 4, domains
    assert {b.id for b in bases} >= ORIGINAL_IDS
    assert all(b.provenance is not None for b in bases)
    adapted = [b for b in bases if b.provenance and b.provenance.source == "discrim-eval"]
    assert adapted, "the DiscrimEval-derived bases are credited as such"
    assert all(b.provenance and b.provenance.decision_question_id is not None for b in adapted)
    notice = (builtin_scenarios_dir() / "NOTICE.md").read_text(encoding="utf-8")
    assert "CC-BY-4.0" in notice and "Tamkin" in notice
    for base in adapted:
        assert base.provenance is not None
        assert str(base.provenance.decision_question_id) in notice


def test_builtin_load_order_is_file_name_order(bases: list[BaseScenario]) -> None:
    files = sorted(builtin_scenarios_dir().glob("*.yaml"))
    assert len(files) == len(bases)
    assert [load_scenarios([f])[0].id for f in files] == [b.id for b in bases]


def test_every_attribute_varies_within_each_base(bases: list[BaseScenario]) -> None:
    for base in bases:
        for attribute in ATTRIBUTES:
            values = [getattr(v, attribute) for v in base.variations]
            assert len(set(values)) == len(values), (base.id, attribute)


def test_prompts_fully_rendered_and_sized(derived: list[DerivedScenario]) -> None:
    for scenario in derived:
        assert "{" not in scenario.prompt, scenario.id
        assert "}" not in scenario.prompt, scenario.id
        for attribute in ATTRIBUTES:
            assert scenario.attributes[attribute] in scenario.prompt, (scenario.id, attribute)
        words = len(scenario.prompt.split())
        # The library's structured tasks (five asked-for parts, a case in the role) run longer
        # than the first fifteen; 150 words keeps the responder's prompt short.
        assert 40 <= words <= 150, (scenario.id, words)


def test_prompts_keep_identity_implicit(derived: list[DerivedScenario]) -> None:
    identities = [i for i in load_identities().all_identities() if i.category != "control"]
    words = {i.label for i in identities} | set(EXTRA_IDENTITY_WORDS)
    word_re = re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b", re.IGNORECASE)
    names = {n for i in identities for n in i.names}
    name_re = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    for scenario in derived:
        assert not word_re.search(scenario.prompt), (scenario.id, word_re.findall(scenario.prompt))
        assert not name_re.search(scenario.prompt), (scenario.id, name_re.findall(scenario.prompt))
        # The stereotype is for researchers only.
        assert scenario.stereotype not in scenario.prompt


def test_identity_check_would_catch_a_leak() -> None:
    # Guards the guard: the pattern above must actually match a leaked label.
    label_re = re.compile(r"\b(female|Muslim)\b", re.IGNORECASE)
    assert label_re.search("You are a Female trainer")
    assert not label_re.search("You are a trainer")


# --- model behaviour --------------------------------------------------------------------------


def _variations(n: int) -> list[Variation]:
    return [
        Variation(profession=f"prof{i}", role=f"Do task {i}", setting=f"at site {i}")
        for i in range(n)
    ]


def test_derived_renders_each_variation() -> None:
    base = BaseScenario(
        id="demo-task",
        title="Demo",
        domain="testing",
        stereotype="None; this is a test.",
        template="You are the {profession} {setting}. {role}. Keep {{braces}} literal.",
        variations=_variations(8),
    )
    out = base.derived()
    assert [d.id for d in out] == [f"demo-task/{i:02d}" for i in range(1, 9)]
    assert out[2].prompt == "You are the prof2 at site 2. Do task 2. Keep {braces} literal."
    assert out[2].attributes == {"profession": "prof2", "role": "Do task 2", "setting": "at site 2"}
    assert {d.base_id for d in out} == {"demo-task"}
    assert derived_scenarios([base, base.model_copy(update={"id": "other"})])[-1].id == "other/08"


@pytest.mark.parametrize(
    ("template", "fragment"),
    [
        ("{profession} {role} {setting} {client}", "unknown placeholder {client}"),
        ("{profession} {role}", "missing placeholder {setting}"),
        ("{profession} {role} {setting} {}", "unknown placeholder {}"),
        ("{profession!r} {role} {setting}", "conversion or format spec"),
        ("{profession} {role} {setting", "template"),
    ],
)
def test_template_validation(template: str, fragment: str) -> None:
    with pytest.raises(ValidationError) as info:
        BaseScenario(
            id="demo",
            title="t",
            domain="d",
            stereotype="s",
            template=template,
            variations=_variations(8),
        )
    assert fragment in str(info.value)


def test_model_rejects_bad_values() -> None:
    common = {
        "title": "t",
        "domain": "d",
        "stereotype": "s",
        "template": "{profession}{role}{setting}",
    }
    with pytest.raises(ValidationError, match="id"):
        BaseScenario(id="Not_Kebab", variations=_variations(8), **common)
    with pytest.raises(ValidationError, match="variations"):
        BaseScenario(id="ok", variations=_variations(7), **common)
    with pytest.raises(ValidationError, match="repeats"):
        BaseScenario(id="ok", variations=[*_variations(8), _variations(1)[0]], **common)
    with pytest.raises(ValidationError, match="exactly the keys"):
        DerivedScenario(
            id="a/01", base_id="a", domain="d", stereotype="s", attributes={"role": "x"}, prompt="p"
        )
    base = BaseScenario(id="ok", variations=_variations(8), **common)
    with pytest.raises(ValidationError):
        base.id = "changed"  # type: ignore[misc]


# --- files and errors -------------------------------------------------------------------------


def _scenario_text(
    scenario_id: str = "demo-task",
    template: str | None = None,
    variation_extra: str = "",
    top_extra: str = "",
) -> str:
    if template is None:  # each id its own task: two files of one template are near-duplicates
        template = "You are the {profession} {setting}. {role}. " + " ".join([scenario_id] * 12)
    lines = [
        f"id: {scenario_id}",
        "title: Demo task",
        "domain: testing",
        "stereotype: None, this is a test.",
        f'template: "{template}"',
        *([top_extra] if top_extra else []),
        "variations:",
    ]
    for i in range(10):
        lines += [
            f"  - profession: profession {i}",
            f"    role: Role {i}",
            f"    setting: at setting {i}",
        ]
        if i == 4 and variation_extra:
            lines.append(f"    {variation_extra}")
    return "\n".join(lines) + "\n"


def _line_of(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_loads_file_and_directory(tmp_path: Path) -> None:
    _write(tmp_path / "b.yaml", _scenario_text("second"))
    _write(tmp_path / "a.yaml", _scenario_text("first"))
    (tmp_path / "notes.txt").write_text("ignored", encoding="utf-8")
    assert [s.id for s in load_scenarios([tmp_path])] == ["first", "second"]
    assert [s.id for s in load_scenarios([tmp_path / "b.yaml"])] == ["second"]
    # Reaching the same file twice loads it once instead of reporting a clash with itself.
    assert [s.id for s in load_scenarios([tmp_path / "a.yaml", tmp_path])] == ["first", "second"]


def test_unknown_top_level_key_names_key_and_line(tmp_path: Path) -> None:
    text = _scenario_text(top_extra="titel: typo")
    path = _write(tmp_path / "s.yaml", text)
    with pytest.raises(InputFileError) as info:
        load_scenarios([path])
    message = str(info.value)
    assert "titel" in message
    assert f"{path}:{_line_of(text, 'titel')}:" in message


def test_unknown_variation_key_names_key_and_line(tmp_path: Path) -> None:
    text = _scenario_text(variation_extra="profesion: typo")
    path = _write(tmp_path / "s.yaml", text)
    with pytest.raises(InputFileError) as info:
        load_scenarios([path])
    message = str(info.value)
    assert "variations[4].profesion" in message
    assert f"{path}:{_line_of(text, 'profesion')}:" in message


def test_bad_placeholder_names_template_and_line(tmp_path: Path) -> None:
    text = _scenario_text(
        template="You are the {profession} {setting}. {role}. Help {client}.",
        top_extra="# a comment moves the template off its usual line",
    )
    text = "# leading comment\n" + text
    path = _write(tmp_path / "s.yaml", text)
    with pytest.raises(InputFileError) as info:
        load_scenarios([path])
    message = str(info.value)
    assert f"{path}:{_line_of(text, 'template:')}: template:" in message
    assert "{client}" in message


def test_duplicate_base_id_names_both_files(tmp_path: Path) -> None:
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    a = _write(tmp_path / "one" / "a.yaml", _scenario_text("same-id"))
    b = _write(tmp_path / "two" / "b.yaml", _scenario_text("same-id"))
    with pytest.raises(InputFileError) as info:
        load_scenarios([tmp_path / "one", tmp_path / "two"])
    message = str(info.value)
    assert str(a) in message
    assert str(b) in message
    assert "same-id" in message
    assert f"{b}:1:" in message


def test_non_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(_scenario_text("caf\xe9").encode("latin-1"))
    with pytest.raises(InputFileError, match="not UTF-8"):
        load_scenarios([path])


def test_empty_directory_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match=r"no \*\.yaml"):
        load_scenarios([tmp_path])
    with pytest.raises(InputFileError, match="cannot read"):
        load_scenarios([tmp_path / "missing.yaml"])
