"""Built-in identities and judge personas, and their loaders."""

from __future__ import annotations

import keyword
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from fairpanel import InputFileError
from fairpanel.personas import (
    Identity,
    IdentityCategory,
    IdentitySet,
    JudgePersona,
    load_identities,
    load_judge_personas,
)

MALIBU = {
    "gender": ["female", "male"],
    "race": ["Black", "White", "Asian", "Hispanic"],
    "religion": ["Muslim", "Jewish", "Atheist", "Christian"],
}
PROPER_NOUN_LABELS = {
    "Black",
    "White",
    "Asian",
    "Hispanic",
    "Muslim",
    "Jewish",
    "Atheist",
    "Christian",
    "American",
    "Nigerian",
    "Indian",
    "Chinese",
    "Mexican",
    "German",
}
PLACEBO_CODES = {"K7", "Q3"}  # neutral participant codes, written as codes are
METRICS = ("Creativity", "Accuracy", "Efficiency", "Reliability")


# --- built-in identities ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def identities() -> IdentitySet:
    return load_identities()


def test_malibu_identities_exact(identities: IdentitySet) -> None:
    for name, labels in MALIBU.items():
        category = identities.category(name)
        assert [i.label for i in category.identities] == labels
        assert all(i.category == name for i in category.identities)


def test_extension_and_control_categories(identities: IdentitySet) -> None:
    assert len(identities.category("age").identities) >= 3
    assert len(identities.category("disability").identities) >= 2
    assert len(identities.category("nationality").identities) >= 4
    control = identities.category("control").identities
    # Two distinct, equivalent neutral labels: same wording, no names, only the code differs.
    assert [(i.label, i.explicit, i.names) for i in control] == [
        ("K7", "a participant coded K7", []),
        ("Q3", "a participant coded Q3", []),
    ]
    assert [c.name for c in identities.categories][:3] == list(MALIBU)


def test_labels_unique_and_cased(identities: IdentitySet) -> None:
    labels = [i.label for i in identities.all_identities()]
    assert len(set(labels)) == len(labels)
    for label in labels:
        assert label in PROPER_NOUN_LABELS | PLACEBO_CODES or label == label.lower(), label


def test_explicit_phrases_read_naturally(identities: IdentitySet) -> None:
    for identity in identities.all_identities():
        article, _, rest = identity.explicit.partition(" ")
        assert article == ("an" if rest[0].lower() in "aeiou" else "a"), identity.explicit
        assert identity.label.lower() in identity.explicit.lower()


def test_name_cues(identities: IdentitySet) -> None:
    for category in ("gender", "race"):
        for identity in identities.category(category).identities:
            assert len(identity.names) >= 6, identity.label
    # A name must point at one identity only, or the implicit cue is ambiguous.
    names = [n for i in identities.all_identities() for n in i.names]
    assert len(set(names)) == len(names)
    assert identities.identity("Atheist").names == []


def test_lookups(identities: IdentitySet) -> None:
    assert identities.identity("Hispanic").category == "race"
    assert identities.category("religion").name == "religion"
    assert len(identities.all_identities()) == sum(len(c.identities) for c in identities.categories)
    with pytest.raises(KeyError, match=r"unknown identity label 'hispanic'.*Hispanic"):
        identities.identity("hispanic")
    with pytest.raises(KeyError, match=r"unknown identity category 'sex'.*gender"):
        identities.category("sex")


def test_models_are_frozen_and_consistent() -> None:
    identity = Identity(category="gender", label="female", explicit="a female", names=[])
    with pytest.raises(ValidationError):
        identity.label = "male"  # type: ignore[misc]
    with pytest.raises(ValidationError, match="sits in category"):
        IdentityCategory(name="race", description="d", identities=[identity])
    gender = IdentityCategory(name="gender", description="d", identities=[identity])
    with pytest.raises(ValidationError, match="duplicate identity label: female"):
        IdentitySet(
            categories=[
                gender,
                IdentityCategory(
                    name="other",
                    description="d",
                    identities=[identity.model_copy(update={"category": "other"})],
                ),
            ]
        )
    with pytest.raises(ValidationError, match="duplicate names"):
        Identity(category="gender", label="x", explicit="an x", names=["Ann", "Ann"])
    with pytest.raises(ValidationError, match="label"):
        Identity(category="gender", label="two words", explicit="a x")


# --- identity file errors ---------------------------------------------------------------------


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _line_of(text: str, fragment: str, occurrence: int = 1) -> int:
    hits = [n for n, line in enumerate(text.splitlines(), 1) if fragment in line]
    return hits[occurrence - 1]


IDENTITIES_TEXT = """\
# test identities
categories:
  - name: gender
    description: Gender.
    identities:
      - label: female
        explicit: a female
        names: [Ann, Beth]
      - label: male
        explicit: a male
  - name: other
    description: Another.
    identities:
      - label: thing
        explicit: a thing
"""


def test_identity_file_fills_category(tmp_path: Path) -> None:
    loaded = load_identities(_write(tmp_path / "ids.yaml", IDENTITIES_TEXT))
    assert loaded.identity("male") == Identity(
        category="gender", label="male", explicit="a male", names=[]
    )
    assert loaded.identity("thing").category == "other"


def test_identity_file_unknown_key(tmp_path: Path) -> None:
    text = IDENTITIES_TEXT.replace("        names: [Ann, Beth]", "        nmes: [Ann, Beth]")
    path = _write(tmp_path / "ids.yaml", text)
    with pytest.raises(InputFileError) as info:
        load_identities(path)
    message = str(info.value)
    assert "categories[0].identities[0].nmes" in message
    assert f"{path}:{_line_of(text, 'nmes')}:" in message


def test_identity_file_must_not_repeat_category(tmp_path: Path) -> None:
    text = IDENTITIES_TEXT.replace(
        "      - label: thing\n", "      - label: thing\n        category: other\n"
    )
    path = _write(tmp_path / "ids.yaml", text)
    with pytest.raises(
        InputFileError, match=f"{re.escape(str(path))}:{_line_of(text, 'category: other')}:"
    ):
        load_identities(path)


def test_duplicate_label_across_categories(tmp_path: Path) -> None:
    text = IDENTITIES_TEXT.replace("label: thing", "label: female")
    path = _write(tmp_path / "ids.yaml", text)
    with pytest.raises(InputFileError) as info:
        load_identities(path)
    message = str(info.value)
    second = _line_of(text, "label: female", occurrence=2)
    first = _line_of(text, "label: female")
    assert (
        f"{path}:{second}: categories[1].identities[0].label: duplicate identity label" in message
    )
    assert "'female'" in message
    assert f"first at line {first}" in message


def test_duplicate_category_name(tmp_path: Path) -> None:
    text = IDENTITIES_TEXT.replace("name: other", "name: gender")
    path = _write(tmp_path / "ids.yaml", text)
    with pytest.raises(
        InputFileError, match=f"{re.escape(str(path))}:{_line_of(text, 'name: gender', 2)}:"
    ):
        load_identities(path)


def test_identity_file_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "ids.yaml"
    path.write_bytes(IDENTITIES_TEXT.replace("Beth", "Bj\xf6rk").encode("latin-1"))
    with pytest.raises(InputFileError, match="not UTF-8"):
        load_identities(path)


# --- judges -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def judges() -> list[JudgePersona]:
    return load_judge_personas()


def test_builtin_judges(judges: list[JudgePersona]) -> None:
    assert len(judges) >= 5
    names = [j.name for j in judges]
    assert len(set(names)) == len(names)
    assert len({j.responsibility for j in judges}) == len(judges)
    for judge in judges:
        assert judge.name.isidentifier()
        assert not keyword.iskeyword(judge.name)
        assert 40 <= len(judge.system_message.split()) <= 90, judge.name
        # A debiasing instruction is a treatment an experiment applies, never part of a persona
        # that measures bias (the fairness reviewer's whole job is the exception).
        if judge.name != "fairness_reviewer":
            assert "who wrote it" not in judge.system_message, judge.name


def test_each_metric_owned_by_exactly_one_judge(judges: list[JudgePersona]) -> None:
    for metric in METRICS:
        owners = [j.name for j in judges if metric in j.responsibility]
        assert len(owners) == 1, (metric, owners)
    assert any(not any(m in j.responsibility for m in METRICS) for j in judges)


JUDGES_TEXT = """\
judges:
  - name: first_judge
    title: First
    responsibility: One thing.
    system_message: Judge the content only.
  - name: second_judge
    title: Second
    responsibility: Another thing.
    system_message: Judge the content only.
"""


def test_judges_file_loads_in_order(tmp_path: Path) -> None:
    loaded = load_judge_personas(_write(tmp_path / "j.yaml", JUDGES_TEXT))
    assert [j.name for j in loaded] == ["first_judge", "second_judge"]


def test_duplicate_judge_name(tmp_path: Path) -> None:
    text = JUDGES_TEXT.replace("second_judge", "first_judge")
    path = _write(tmp_path / "j.yaml", text)
    with pytest.raises(InputFileError) as info:
        load_judge_personas(path)
    message = str(info.value)
    assert f"{path}:{_line_of(text, 'name: first_judge', 2)}: judges[1].name:" in message
    assert "duplicate judge name 'first_judge'" in message


@pytest.mark.parametrize("bad", ["second-judge", "class", "2nd_judge", "SecondJudge"])
def test_judge_name_must_be_identifier(tmp_path: Path, bad: str) -> None:
    text = JUDGES_TEXT.replace("second_judge", bad)
    path = _write(tmp_path / "j.yaml", text)
    with pytest.raises(
        InputFileError, match=rf"{re.escape(str(path))}:{_line_of(text, bad)}: judges\[1\]\.name"
    ):
        load_judge_personas(path)


def test_judge_unknown_key(tmp_path: Path) -> None:
    text = JUDGES_TEXT.replace("    title: Second", "    titel: Second")
    path = _write(tmp_path / "j.yaml", text)
    with pytest.raises(InputFileError) as info:
        load_judge_personas(path)
    assert f"{path}:{_line_of(text, 'titel')}: judges[1].titel: unknown field 'titel'" in str(
        info.value
    )
