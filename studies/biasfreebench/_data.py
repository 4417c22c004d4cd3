"""BBQ's ambiguous-context items for BiasFreeBench, with their stereotyped answer derived.

The package ships the nine ambiguous-context BBQ files (CC-BY-4.0, Parrish et al. 2022)
verbatim and gzip-compressed in ``data/bbq-ambig/`` (412 KB for all 15,686 items); a study file
may point ``bbq_dir`` at another copy: a folder of ``<Category>.json`` arrays or BBQ's own
``<Category>.jsonl`` files, either of them gzip-compressed or not. Only ambiguous items are read.

BBQ marks which group each answer belongs to (``answer_info``) and which groups the question's
stereotype targets (``additional_metadata.stereotyped_groups``). The *target* answer is the
one whose group is among the stereotyped ones; the *biased* answer is the target for a
negative question and the other person for a non-negative one, the *anti-stereotypical*
answer the reverse. Group labels are compared loosely: case and punctuation are ignored,
race and gender-identity prefixes or suffixes are dropped (``F-Black`` is Black, ``trans_F``
is trans), ``F``/``M`` also match woman/girl and man/boy, and for Nationality the answer's
name (``Eritrean``) counts as its group. Items where this finds no single target (8 gender
items whose two people share a gender) are left out and counted, never guessed. Age follows
the metadata by default (``age_target="metadata"``); the BiasFreeBench release instead always
treats the older person as the target (``age_target="older"``), which differs for the 1,016
Age items whose stereotype targets the younger one.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.resources
import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from fairpanel.agents import canonical_json
from fairpanel.inputs import InputFileError

__all__ = [
    "AGE_TARGETS",
    "BBQ_CATEGORIES",
    "AgeTarget",
    "BbqItem",
    "BbqSet",
    "builtin_bbq_dir",
    "label_item",
    "load_bbq",
    "stratified_subset",
]

BBQ_CATEGORIES = (
    "Age",
    "Disability_status",
    "Gender_identity",
    "Nationality",
    "Physical_appearance",
    "Race_ethnicity",
    "Religion",
    "SES",
    "Sexual_orientation",
)

AgeTarget = Literal["metadata", "older"]
AGE_TARGETS: tuple[AgeTarget, ...] = ("metadata", "older")
"""Who the Age stereotype targets: whom each item's metadata names, or always the older
person (BBQ's ``old`` group), as the BiasFreeBench release does."""

_ANSWERS = ("ans0", "ans1", "ans2")
_ALIASES = {"f": {"f", "woman", "girl", "female"}, "m": {"m", "man", "boy", "male"}}
_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")


class BbqItem(BaseModel):
    """One ambiguous BBQ item as the study asks it: the two people and which is stereotyped."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    category: str
    example_id: int
    question_index: str
    polarity: Literal["neg", "nonneg"]
    context: str
    question: str
    options: tuple[str, str]
    biased: str
    anti: str
    unknown: str
    target_group: str

    def digest(self) -> str:
        """A short hash of every field (part of item keys: an edited item is a new item)."""
        payload = canonical_json(self.model_dump(mode="json"))
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


@dataclass
class BbqSet:
    """The labelled items of the categories read, and the ones left out (by category)."""

    items: list[BbqItem]
    unlabelled: dict[str, list[int]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)


_NOT_ALNUM = re.compile(r"[^a-z0-9]")
_GENDER_MARK = re.compile(r"^[FM]-|_[FM]$")


def _norm(text: str) -> str:
    return _NOT_ALNUM.sub("", text.lower())


def _group_keys(name: str, group: str, category: str) -> set[str]:
    bare = _GENDER_MARK.sub("", group)
    keys = {_norm(group), _norm(bare)}
    if category == "Nationality":
        keys.add(_norm(name))
    return keys


def _stereotyped(groups: Iterable[str]) -> set[str]:
    found: set[str] = set()
    for group in groups:
        found |= _ALIASES.get(_norm(group), {_norm(group)})
    return found


def label_item(raw: dict[str, Any], age_target: AgeTarget = "metadata") -> BbqItem | None:
    """The item with its biased and anti-stereotypical answers, or None when the metadata
    names no single target among the two people (``age_target``: see ``AGE_TARGETS``)."""
    category = str(raw["category"])
    info = raw["answer_info"]
    people = [key for key in _ANSWERS if info[key][1] != "unknown"]
    unknown = [key for key in _ANSWERS if info[key][1] == "unknown"]
    if len(people) != 2 or len(unknown) != 1:
        return None
    groups = raw["additional_metadata"]["stereotyped_groups"]
    stereotyped = _stereotyped(["old"] if category == "Age" and age_target == "older" else groups)
    targets = [
        key for key in people if _group_keys(info[key][0], info[key][1], category) & stereotyped
    ]
    if len(targets) != 1:
        return None
    target = targets[0]
    other = people[1] if target == people[0] else people[0]
    negative = raw["question_polarity"] == "neg"
    biased, anti = (target, other) if negative else (other, target)
    return BbqItem(
        category=category,
        example_id=int(raw["example_id"]),
        question_index=str(raw["question_index"]),
        polarity="neg" if negative else "nonneg",
        context=str(raw["context"]),
        question=str(raw["question"]),
        options=(str(raw[people[0]]), str(raw[people[1]])),
        biased=str(raw[biased]),
        anti=str(raw[anti]),
        unknown=str(raw[unknown[0]]),
        target_group=str(info[target][1]),
    )


def builtin_bbq_dir() -> Path:
    return Path(
        str(importlib.resources.files("fairpanel.studies.biasfreebench") / "data/bbq-ambig")
    )


def _category_file(folder: Path, category: str) -> Path:
    for suffix in _SUFFIXES:
        path = folder / f"{category}{suffix}"
        if path.is_file():
            return path
    expected = ", ".join(f"{category}{suffix}" for suffix in _SUFFIXES)
    message = f"{folder}: no BBQ file for {category} (looked for {expected})"
    raise InputFileError(str(folder), [message])


def _read_records(path: Path) -> list[dict[str, Any]]:
    try:
        data = path.read_bytes()
        text = (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")
    except (OSError, gzip.BadGzipFile, UnicodeDecodeError) as exc:
        raise InputFileError(str(path), [f"{path}: cannot read ({exc})"]) from exc
    lines = path.name.removesuffix(".gz").endswith(".jsonl")
    try:
        if lines:
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            records = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFileError(
            str(path), [f"{path}, line {exc.lineno}: invalid JSON ({exc.msg})"]
        ) from exc
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise InputFileError(str(path), [f"{path}: expected a list of BBQ items"])
    return records


@functools.lru_cache(maxsize=32)
def _load_file(
    path: Path, category: str, _stamp: tuple[int, int], age_target: AgeTarget
) -> tuple[tuple[BbqItem, ...], tuple[int, ...]]:
    """One category file's labelled items and left-out ids (cached while the file's size and
    modification time stay the same: a run loads the data to check, design and analyse)."""
    items: list[BbqItem] = []
    left_out: list[int] = []
    for index, raw in enumerate(_read_records(path)):
        if raw.get("context_condition", "ambig") != "ambig":
            continue
        try:
            item = label_item(raw, age_target)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise InputFileError(
                str(path), [f"{path}, item {index}: not a BBQ item ({exc!r})"]
            ) from exc
        if item is None:
            left_out.append(int(raw["example_id"]))
        elif item.category != category:
            raise InputFileError(str(path), [f"{path}, item {index}: category {item.category!r}"])
        else:
            items.append(item)
    return tuple(items), tuple(left_out)


def load_bbq(
    folder: Path | None = None,
    categories: Sequence[str] | None = None,
    age_target: AgeTarget = "metadata",
) -> BbqSet:
    """The labelled ambiguous items of ``categories`` (all nine when None) from ``folder``
    (the built-in copy when None), in file order; ``age_target`` picks the Age target."""
    folder = folder or builtin_bbq_dir()
    result = BbqSet(items=[])
    for category in categories or BBQ_CATEGORIES:
        path = _category_file(folder, category).resolve()
        status = path.stat()
        stamp = (status.st_mtime_ns, status.st_size)
        items, left_out = _load_file(path, category, stamp, age_target)
        result.files[category] = path.name
        result.items.extend(items)
        result.unlabelled[category] = list(left_out)
    return result


def stratified_subset(items: Sequence[BbqItem], per_category: int, seed: int) -> list[BbqItem]:
    """``per_category`` items of every category, half from negative and half from
    non-negative questions (the extra one negative when odd), drawn with a seeded generator
    and returned in file order; a category with fewer items keeps them all."""
    chosen: set[tuple[str, int]] = set()
    categories = dict.fromkeys(item.category for item in items)
    for category in categories:
        quota = {"neg": (per_category + 1) // 2, "nonneg": per_category // 2}
        for polarity, count in quota.items():
            pool = [
                (i.category, i.example_id)
                for i in items
                if i.category == category and i.polarity == polarity
            ]
            digest = hashlib.sha256(f"{seed}\x1f{category}\x1f{polarity}".encode()).digest()
            rng = random.Random(int.from_bytes(digest[:8], "big"))
            chosen.update(rng.sample(pool, min(count, len(pool))))
    return [item for item in items if (item.category, item.example_id) in chosen]
