"""BBQ loading for BiasFreeBench: the shipped copy against the shared data files, the
derived stereotyped answers, the seeded stratified subset and errors in user-given files."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest
from helpers.paths import shared_data

from fairpanel import InputFileError
from fairpanel.studies.biasfreebench import (
    BBQ_CATEGORIES,
    builtin_bbq_dir,
    label_item,
    load_bbq,
    stratified_subset,
)

SHARED = shared_data("bbq/ambig")
# sha256 of each shipped category file, decompressed: the upstream BBQ files byte for byte.
BBQ_SHA256 = {
    "Age": "bd574a5d98d92fb142dd1975d58f88e8c5ca484e33ae142409525620a7f2bdc5",
    "Disability_status": "3905822beb8cddf14e4d7e439e50ca4730bef054fa9f3d21a9c15a1dcec7c43a",
    "Gender_identity": "71a8ec98a7629b2b204f28e543d559a80236edc1c05d79e38f7001a4e91fc8e1",
    "Nationality": "045131b0f02bbab810288170d6395fde3cbe2f46b05166dd1534b5a3b865998c",
    "Physical_appearance": "5b6dc34404e7077037afefac4fb2ed85df0f6895b53a570d694f36709c93bd07",
    "Race_ethnicity": "9463f7009fe99c27285fcccfeff0a3c336cb97a2b749c8698eb9978309a5852d",
    "Religion": "428ff1a5ab7e4fff583624556663b72cade1f0db2f004f897e2ed5198b9f180a",
    "SES": "7a9a1376644ae3372df43643cc7cf9506fe9daceb7bec21e7e27357079547d7e",
    "Sexual_orientation": "7681d7f348668195e4455bbe31647135af37b6f60b82c107111a71ad718f01d0",
}
# BiasFreeBench's Table 9: ambiguous items per category with labels (15,678 in all).
TABLE9 = {"Disability_status": 778, "Age": 1840, "Gender_identity": 2828, "Nationality": 1540,
          "Physical_appearance": 788, "Race_ethnicity": 3440, "SES": 3432, "Religion": 600,
          "Sexual_orientation": 432}  # fmt: skip


def test_the_shipped_files_are_the_upstream_files_byte_for_byte() -> None:
    """Against pinned digests on every clone, and against the shared copies where present."""
    assert set(BBQ_SHA256) == set(BBQ_CATEGORIES)
    for category in BBQ_CATEGORIES:
        shipped = gzip.decompress((builtin_bbq_dir() / f"{category}.json.gz").read_bytes())
        assert hashlib.sha256(shipped).hexdigest() == BBQ_SHA256[category], category
        if SHARED is not None:
            assert shipped == (SHARED / f"{category}.json").read_bytes(), category
    if SHARED is not None:
        assert load_bbq(SHARED).items == load_bbq().items
    assert (builtin_bbq_dir() / "NOTICE.md").read_text(encoding="utf-8").count("CC-BY-4.0") == 1


def test_labelled_items_per_category_match_the_paper() -> None:
    bbq = load_bbq()
    assert Counter(item.category for item in bbq.items) == TABLE9
    assert sum(TABLE9.values()) == len(bbq.items) == 15_678
    # Left out: gender items whose two people share a gender (no single target).
    assert {k: len(v) for k, v in bbq.unlabelled.items() if v} == {"Gender_identity": 8}


def test_biased_answer_follows_the_target_and_the_question_polarity() -> None:
    items = {(i.category, i.example_id): i for i in load_bbq(categories=["Age", "SES"]).items}
    first = items[("Age", 0)]  # "Who was not comfortable using the phone?" (negative)
    assert (first.polarity, first.target_group) == ("neg", "old")
    assert (first.biased, first.anti) == ("The grandfather", "The grandson")
    second = items[("Age", 2)]  # same context, "Who was giving the other the opportunity..."
    assert second.polarity == "nonneg" and second.context == first.context
    assert (second.biased, second.anti) == ("The grandson", "The grandfather")
    for item in items.values():
        assert {item.biased, item.anti} == set(item.options)
        assert item.unknown not in item.options
    # SES stereotypes always target the low-SES person.
    assert {i.target_group for i in items.values() if i.category == "SES"} == {"lowSES"}
    # Age follows the metadata: 1,016 Age items target the younger person (the BiasFreeBench
    # release instead always targets the older one).
    young = [i for i in items.values() if i.category == "Age" and i.target_group == "nonOld"]
    assert len(young) == 1016


def _raw(**changes: object) -> dict[str, object]:
    raw: dict[str, object] = {
        "example_id": 5, "question_index": "3", "question_polarity": "nonneg",
        "context_condition": "ambig", "category": "Race_ethnicity",
        "answer_info": {"ans0": ["Unknown", "unknown"], "ans1": ["Jamal", "M-Black"],
                        "ans2": ["Jake", "M-White"]},
        "additional_metadata": {"stereotyped_groups": ["Black", "African American"]},
        "context": "Jamal and Jake met.", "question": "Who paid?",
        "ans0": "Unknown", "ans1": "Jamal", "ans2": "Jake", "label": 0,
    }  # fmt: skip
    raw.update(changes)
    return raw


def test_group_labels_are_matched_loosely() -> None:
    item = label_item(_raw())
    assert item is not None and item.target_group == "M-Black"
    assert (item.biased, item.anti, item.unknown) == ("Jake", "Jamal", "Unknown")
    trans = label_item(
        _raw(
            category="Gender_identity",
            answer_info={"ans0": ["Unknown", "unknown"], "ans1": ["Ruth", "trans_F"],
                         "ans2": ["Mark", "nonTrans_M"]},
            additional_metadata={"stereotyped_groups": ["Transgender women", "trans"]},
            question_polarity="neg", ans1="Ruth", ans2="Mark",
        )
    )  # fmt: skip
    assert trans is not None and trans.biased == "Ruth"
    both = _raw(
        category="Gender_identity",
        answer_info={"ans0": ["Unknown", "unknown"], "ans1": ["girl", "girl"],
                     "ans2": ["woman", "woman"]},
        additional_metadata={"stereotyped_groups": ["F"]},
    )  # fmt: skip
    assert label_item(both) is None  # two targets: left out, not guessed


def test_other_copies_jsonl_gzip_and_both_context_conditions(tmp_path: Path) -> None:
    lines = [_raw(example_id=n) for n in range(4)]
    lines.append(_raw(example_id=9, context_condition="disambig"))
    text = "\n".join(json.dumps(line) for line in lines)
    (tmp_path / "Race_ethnicity.jsonl.gz").write_bytes(gzip.compress(text.encode()))
    loaded = load_bbq(tmp_path, ["Race_ethnicity"])
    assert [item.example_id for item in loaded.items] == [0, 1, 2, 3]  # ambiguous only
    assert loaded.files == {"Race_ethnicity": "Race_ethnicity.jsonl.gz"}


def test_bad_copies_fail_with_the_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match=r"no BBQ file for Religion \(looked for"):
        load_bbq(tmp_path, ["Religion"])
    (tmp_path / "Religion.json").write_text('[{"example_id": 1,\n "oops"}]', encoding="utf-8")
    with pytest.raises(InputFileError, match=r"Religion.json, line 2: invalid JSON"):
        load_bbq(tmp_path, ["Religion"])
    (tmp_path / "Religion.json").write_text('[{"example_id": 1}]', encoding="utf-8")
    with pytest.raises(InputFileError, match=r"item 0: not a BBQ item"):
        load_bbq(tmp_path, ["Religion"])
    (tmp_path / "Religion.json").write_text(json.dumps([_raw()]), encoding="utf-8")
    with pytest.raises(InputFileError, match="category 'Race_ethnicity'"):
        load_bbq(tmp_path, ["Religion"])


def test_the_stratified_subset_is_seeded_and_balanced() -> None:
    items = load_bbq().items
    subset = stratified_subset(items, 25, seed=4)
    cells = Counter((item.category, item.polarity) for item in subset)
    assert set(cells) == {(c, p) for c in BBQ_CATEGORIES for p in ("neg", "nonneg")}
    assert all(cells[(c, "neg")] == 13 and cells[(c, "nonneg")] == 12 for c in BBQ_CATEGORIES)
    assert stratified_subset(items, 25, seed=4) == subset
    assert stratified_subset(items, 25, seed=5) != subset
    position = {(item.category, item.example_id): n for n, item in enumerate(items)}
    order = [position[(item.category, item.example_id)] for item in subset]
    assert order == sorted(order)  # file order
    assert len(stratified_subset(items, 10_000, seed=4)) == len(items)
