"""What a study hands the report: its verdict card and its sections (``StudyPage``).

Each study builds its own page from its results (``Study.report`` in ``fairpanel.studies``);
the report only lays it out. A section is a title, a lede and a list of blocks (a figure, a
display table, or a note when a block is missing). Tables come from the study's own
``tables`` (the ones the terminal shows): a section claims them by title through
``DisplayTables``, and the page shows any table no section claimed at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # the figure kit loads matplotlib, which laying out a page does not need
    from fairpanel.report._figure import EmbeddedFigure

__all__ = [
    "Block",
    "DisplayTables",
    "Section",
    "StudyPage",
    "StudyVerdict",
    "VerdictTone",
    "tables_page",
    "unclaimed_tables",
]

VerdictTone = Literal["detected", "clear", "nodata", "measured"]
LONG_TABLE_ROWS = 30
"""A table with more rows than this is shown folded, so the figures stay in view."""


@dataclass(frozen=True)
class Block:
    """One piece of a section: a figure with its caption, a display table, or a note."""

    figure: EmbeddedFigure | None = None
    caption: str = ""
    table: Mapping[str, Any] | None = None
    note: str | None = None
    collapsed: bool = False
    """A long table: shown folded, under its title, so the figures stay in view."""


@dataclass
class Section:
    """A card of the page; ``id`` is its anchor in the table of contents."""

    id: str
    title: str
    lede: str
    blocks: list[Block] = field(default_factory=list)

    def figure(self, figure: EmbeddedFigure | None, caption: str, missing: str) -> None:
        """Add ``figure`` with its caption, or the ``missing`` note when there was nothing to
        draw (figure functions return ``None`` then)."""
        self.blocks.append(Block(figure=figure, caption=caption) if figure else Block(note=missing))


@dataclass(frozen=True)
class StudyVerdict:
    """The card at the top: ``tone`` is detected / clear / nodata, or measured for studies that
    estimate a quantity without testing a null."""

    tone: VerdictTone
    label: str
    sentence: str
    details: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class StudyPage:
    """A study's own part of its report: the verdict card and the sections under it."""

    verdict: StudyVerdict
    sections: list[Section] = field(default_factory=list)


class DisplayTables:
    """The study's display tables (``results["tables"]``), handed to sections by title."""

    def __init__(self, results: Mapping[str, Any]) -> None:
        self.left: list[Mapping[str, Any]] = list(results.get("tables") or [])

    def claim(self, section: Section, prefix: str) -> None:
        """Move every table whose title starts with ``prefix`` into ``section``."""
        for table in [t for t in self.left if str(t.get("title", "")).startswith(prefix)]:
            self.left.remove(table)
            rows = table.get("rows") or []
            section.blocks.append(Block(table=table, collapsed=len(rows) > LONG_TABLE_ROWS))


def tables_page(results: Mapping[str, Any]) -> StudyPage:
    """The page of a study that brings no sections of its own: a plain verdict card (its
    display tables follow as the page's other tables)."""
    return StudyPage(
        StudyVerdict("measured", "Results", f"Results of study {results.get('study')}.")
    )


def unclaimed_tables(
    tables: Sequence[Mapping[str, Any]], sections: Sequence[Section]
) -> Section | None:
    """The section of the display tables no section shows, so none is lost; None if all are."""
    left = list(tables)
    for section in sections:
        for block in section.blocks:
            if block.table is not None and block.table in left:
                left.remove(block.table)
    if not left:
        return None
    rest = Section("tables", "Other tables", "Further tables from the study's analysis.")
    rest.blocks.extend(Block(table=t) for t in left)
    return rest
