"""Pages people read: the run's HTML report, the study reports and the compare page.

Everything here renders what ``fairpanel.analysis`` computed; no statistic is computed here.
"""

from fairpanel.report._compare_page import (
    COLUMNS,
    leaderboard_cells,
    render_compare_html,
)
from fairpanel.report._run_file import REPORT_FILE, write_report, write_report_html
from fairpanel.report._run_page import ReportInputs, render_report
from fairpanel.report._study_file import write_study_report
from fairpanel.report._study_page import StudyReportInputs, render_study_report
from fairpanel.report._verdict import Headline, format_p, headline_of, small_n_warnings

__all__ = [
    "COLUMNS",
    "REPORT_FILE",
    "Headline",
    "ReportInputs",
    "StudyReportInputs",
    "format_p",
    "headline_of",
    "leaderboard_cells",
    "render_compare_html",
    "render_report",
    "render_study_report",
    "small_n_warnings",
    "write_report",
    "write_report_html",
    "write_study_report",
]
