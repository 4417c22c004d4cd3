"""How numbers read in a study's display tables (``results.json``'s ``tables``).

The cells are plain JSON the CLI and the report show as they are, so every study writes a
p-value, a percentage or an interval the same way: a dash where there is no value, p below
0.001 as ``<0.001``, shares as percentages with one decimal.
"""

from __future__ import annotations

__all__ = ["interval_cell", "p_cell", "percent_cell", "rounded"]


def p_cell(value: float | None) -> str:
    """A p-value: three decimals, ``<0.001`` below that, a dash when there is none."""
    if value is None:
        return "-"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def percent_cell(value: float | None) -> str:
    """A share as a percentage with one decimal (no % sign: the table's title says %)."""
    return "-" if value is None else f"{100 * value:.1f}"


def interval_cell(low: float | None, high: float | None) -> str:
    """An interval of shares in percent, ``low to high``; a dash without both ends."""
    return "-" if low is None or high is None else f"{100 * low:.1f} to {100 * high:.1f}"


def rounded(value: float | None, digits: int = 3) -> float | None:
    """A number kept a number, rounded for the table; None stays None."""
    return None if value is None else round(value, digits)
