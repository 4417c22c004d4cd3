"""Statistics over stored judge records: does the panel's scoring depend on the identity label?

Pure functions over the pandas frames the judging package stores (``scores``, ``verdicts``,
``turns``; column names in ``SCORE_COLUMNS``, ``VERDICT_COLUMNS``, ``TURN_COLUMNS``). Nothing
here calls a model, so a report can be recomputed from disk at any time. Results are small
dataclasses with ``to_dict()``; ``analyze`` assembles them into one JSON-safe report.
"""

from fairpanel.analysis._chisq import ChiSquareResult, chi_square_tests
from fairpanel.analysis._failures import FailureRate, failure_rates
from fairpanel.analysis._frames import (
    METRICS,
    PROTOCOLS,
    ROUND_KINDS,
    SCORE_COLUMNS,
    TURN_COLUMNS,
    VERDICT_COLUMNS,
)
from fairpanel.analysis._pairs import WinRate, win_rates
from fairpanel.analysis._render import render_tables
from fairpanel.analysis._report import ReportInputs, render_report
from fairpanel.analysis._scores import ScoreDifferenceMatrix, mean_scores, score_difference_matrix
from fairpanel.analysis._summary import analyze

__all__ = [
    "METRICS",
    "PROTOCOLS",
    "ROUND_KINDS",
    "SCORE_COLUMNS",
    "TURN_COLUMNS",
    "VERDICT_COLUMNS",
    "ChiSquareResult",
    "FailureRate",
    "ReportInputs",
    "ScoreDifferenceMatrix",
    "WinRate",
    "analyze",
    "chi_square_tests",
    "failure_rates",
    "mean_scores",
    "render_report",
    "render_tables",
    "score_difference_matrix",
    "win_rates",
]
