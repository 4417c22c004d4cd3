"""What every study that asks BBQ's ambiguous items shares (BiasFreeBench and judge-bias).

Both study files name the same things (``bbq_dir``, ``categories``, ``age_target``,
``items_per_category``, ``seed``), checked and read the same way: unknown categories are
reported, then the files are loaded once to see that they read. Both studies ask a seeded,
stratified subset of the labelled items, write the same ``bbq`` block into manifest.json, and
key their items on the same four fields of the BBQ item asked (``BbqItemSpec``). Each config
keeps its own fields (their defaults and descriptions differ, and the field order is what
``fairpanel study`` shows); what they do with them is here, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from fairpanel.inputs import InputFileError, Problem
from fairpanel.studies._base import ItemSpec
from fairpanel.studies.biasfreebench._data import (
    BBQ_CATEGORIES,
    AgeTarget,
    BbqItem,
    BbqSet,
    load_bbq,
    stratified_subset,
)

__all__ = [
    "BbqItemSpec",
    "BbqSource",
    "bbq_dir_from",
    "bbq_file_problems",
    "bbq_manifest",
    "category_problems",
    "chosen_items",
    "load_configured_bbq",
]

_BUILT_IN = "built-in (CC-BY-4.0, Parrish et al. 2022)"


class BbqSource(Protocol):
    """The fields of a study file that say which BBQ items the study asks."""

    @property
    def seed(self) -> int: ...

    @property
    def bbq_dir(self) -> str | None: ...

    @property
    def categories(self) -> list[str]: ...

    @property
    def age_target(self) -> AgeTarget: ...

    @property
    def items_per_category(self) -> int | None: ...


def category_problems(categories: Sequence[str]) -> list[Problem]:
    """Every category BBQ does not have, at its place in ``categories``."""
    return [
        (
            ("categories", index),
            f"unknown BBQ category {category!r}; known: {', '.join(BBQ_CATEGORIES)}",
        )
        for index, category in enumerate(categories)
        if category not in BBQ_CATEGORIES
    ]


def load_configured_bbq(source: BbqSource) -> BbqSet:
    """The labelled items of the configured categories (the built-in copy without ``bbq_dir``)."""
    folder = Path(source.bbq_dir) if source.bbq_dir else None
    return load_bbq(folder, source.categories, source.age_target)


def bbq_file_problems(source: BbqSource) -> list[Problem]:
    """Why the configured BBQ files do not load (none when they do); ``source``'s ``bbq_dir``
    already made absolute against the study file's folder."""
    try:
        load_configured_bbq(source)
    except InputFileError as exc:
        return [(("bbq_dir",), "; ".join(exc.problems))]
    return []


def bbq_dir_from(base: Path, bbq_dir: str | None) -> str | None:
    """``bbq_dir`` made absolute against the study file's folder ``base`` (as written when it
    already is, or unset)."""
    if bbq_dir is None or Path(bbq_dir).is_absolute():
        return bbq_dir
    return str(base / bbq_dir)


def chosen_items(source: BbqSource, items: list[BbqItem]) -> list[BbqItem]:
    """The items the study asks: a seeded subset of ``items_per_category`` per category, half
    negative and half non-negative questions, or every item when that is unset."""
    if source.items_per_category is None:
        return items
    return stratified_subset(items, source.items_per_category, source.seed)


def bbq_manifest(
    source: BbqSource, bbq: BbqSet, chosen: Sequence[BbqItem], **left_out: Any
) -> dict[str, Any]:
    """manifest.json's ``bbq`` block: where the items came from, how many were labelled, the
    study's own count of items ``left_out`` (by name), how many it asks and the Age target."""
    return {
        "source": source.bbq_dir or _BUILT_IN,
        "files": bbq.files,
        "labelled": len(bbq.items),
        **left_out,
        "asked": len(chosen),
        "age_target": source.age_target,
    }


class BbqItemSpec(ItemSpec):
    """An item spec that asks one BBQ item: which one, and a digest of every field of it, so
    an edited BBQ item is a new study item."""

    category: str
    example_id: int
    polarity: Literal["neg", "nonneg"]
    item_digest: str

    @staticmethod
    def fields_of(item: BbqItem) -> dict[str, Any]:
        """The four fields of a spec that asks ``item``."""
        return {
            "category": item.category,
            "example_id": item.example_id,
            "polarity": item.polarity,
            "item_digest": item.digest(),
        }
