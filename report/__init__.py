"""Pages people read: the run's HTML report, the study reports and the compare page.

Everything here renders what ``fairpanel.analysis`` computed; no statistic is computed here.
A study brings its own part of its page (``Study.report`` returns a ``StudyPage`` of
``Section``s); the figure kit it draws with (``new_figure``, ``styled``, ``embed``,
``interval_bars``, the palette) and the number formatters are public here for that. The bias
profile's reading (``profile_panels``, ``profile_state``, ``profile_estimate``) is public for the
terminal, which shows the same rows.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairpanel.report._bias_profile import (
        ProfilePanel,
        ProfileState,
        profile_estimate,
        profile_interval,
        profile_panels,
        profile_state,
    )
    from fairpanel.report._compare_page import (
        COLUMNS,
        RANK_COLUMN,
        compare_columns,
        leaderboard_cells,
        render_compare_html,
    )
    from fairpanel.report._figure import (
        HIGHLIGHT,
        INK,
        MUTED,
        PALETTE,
        IntervalBar,
        colour_map,
        embed,
        interval_bars,
        legend_beside,
        light_grid,
        new_figure,
        percent_axis,
        styled,
    )
    from fairpanel.report._figure_workers import (
        Draw,
        EmbeddedFigure,
        FigureJob,
        FigureWorkers,
        Pending,
        draw_here,
    )
    from fairpanel.report._numbers import format_p, percent, ties_note
    from fairpanel.report._run_file import REPORT_FILE, write_report, write_report_html
    from fairpanel.report._run_page import ReportInputs, render_report
    from fairpanel.report._study_file import write_study_report
    from fairpanel.report._study_page import StudyReportInputs, render_study_report
    from fairpanel.report._study_sections import (
        Block,
        DisplayTables,
        Section,
        StudyPage,
        StudyVerdict,
        VerdictTone,
        tables_page,
    )
    from fairpanel.report._transcripts import transcripts_page
    from fairpanel.report._transcripts_data import TranscriptSource, embed_json
    from fairpanel.report._transcripts_link import (
        TRANSCRIPT_FILTERS,
        TRANSCRIPTS_FILE,
        transcripts_link,
    )
    from fairpanel.report._verdict import (
        Headline,
        decided_win_rates,
        headline_of,
        small_n_warnings,
    )


__all__ = [
    "COLUMNS",
    "HIGHLIGHT",
    "INK",
    "MUTED",
    "PALETTE",
    "RANK_COLUMN",
    "REPORT_FILE",
    "TRANSCRIPTS_FILE",
    "TRANSCRIPT_FILTERS",
    "Block",
    "DisplayTables",
    "Draw",
    "EmbeddedFigure",
    "FigureJob",
    "FigureWorkers",
    "Headline",
    "IntervalBar",
    "Pending",
    "ProfilePanel",
    "ProfileState",
    "ReportInputs",
    "Section",
    "StudyPage",
    "StudyReportInputs",
    "StudyVerdict",
    "TranscriptSource",
    "VerdictTone",
    "colour_map",
    "compare_columns",
    "decided_win_rates",
    "draw_here",
    "embed",
    "embed_json",
    "format_p",
    "headline_of",
    "interval_bars",
    "leaderboard_cells",
    "legend_beside",
    "light_grid",
    "new_figure",
    "percent",
    "percent_axis",
    "profile_estimate",
    "profile_interval",
    "profile_panels",
    "profile_state",
    "render_compare_html",
    "render_report",
    "render_study_report",
    "small_n_warnings",
    "styled",
    "tables_page",
    "ties_note",
    "transcripts_link",
    "transcripts_page",
    "write_report",
    "write_report_html",
    "write_study_report",
]

_HOME: dict[str, str] = {
    **dict.fromkeys(
        (
            "ProfilePanel",
            "ProfileState",
            "profile_estimate",
            "profile_interval",
            "profile_panels",
            "profile_state",
        ),
        "fairpanel.report._bias_profile",
    ),
    **dict.fromkeys(
        (
            "COLUMNS",
            "RANK_COLUMN",
            "compare_columns",
            "leaderboard_cells",
            "render_compare_html",
        ),
        "fairpanel.report._compare_page",
    ),
    **dict.fromkeys(
        (
            "HIGHLIGHT",
            "INK",
            "MUTED",
            "PALETTE",
            "IntervalBar",
            "colour_map",
            "embed",
            "interval_bars",
            "legend_beside",
            "light_grid",
            "new_figure",
            "percent_axis",
            "styled",
        ),
        "fairpanel.report._figure",
    ),
    **dict.fromkeys(
        (
            "Draw",
            "EmbeddedFigure",
            "FigureJob",
            "FigureWorkers",
            "Pending",
            "draw_here",
        ),
        "fairpanel.report._figure_workers",
    ),
    **dict.fromkeys(
        (
            "format_p",
            "percent",
            "ties_note",
        ),
        "fairpanel.report._numbers",
    ),
    **dict.fromkeys(
        (
            "REPORT_FILE",
            "write_report",
            "write_report_html",
        ),
        "fairpanel.report._run_file",
    ),
    **dict.fromkeys(
        (
            "ReportInputs",
            "render_report",
        ),
        "fairpanel.report._run_page",
    ),
    **dict.fromkeys(
        ("write_study_report",),
        "fairpanel.report._study_file",
    ),
    **dict.fromkeys(
        (
            "StudyReportInputs",
            "render_study_report",
        ),
        "fairpanel.report._study_page",
    ),
    **dict.fromkeys(
        (
            "Block",
            "DisplayTables",
            "Section",
            "StudyPage",
            "StudyVerdict",
            "VerdictTone",
            "tables_page",
        ),
        "fairpanel.report._study_sections",
    ),
    **dict.fromkeys(
        ("transcripts_page",),
        "fairpanel.report._transcripts",
    ),
    **dict.fromkeys(
        (
            "TranscriptSource",
            "embed_json",
        ),
        "fairpanel.report._transcripts_data",
    ),
    **dict.fromkeys(
        (
            "TRANSCRIPT_FILTERS",
            "TRANSCRIPTS_FILE",
            "transcripts_link",
        ),
        "fairpanel.report._transcripts_link",
    ),
    **dict.fromkeys(
        (
            "Headline",
            "decided_win_rates",
            "headline_of",
            "small_n_warnings",
        ),
        "fairpanel.report._verdict",
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
