"""The one p-value formatter, pinned for both of its readers: the pages and the terminal."""

from __future__ import annotations

import pytest

from fairpanel.report import format_p, percent


@pytest.mark.parametrize(
    ("p_value", "page", "terminal"),
    [
        (None, "n/a", "-"),
        (0.0, "<0.0001", "<0.0001"),
        (0.00009999, "<0.0001", "<0.0001"),
        (0.0001, "0.0001", "0.0001"),
        (0.0034567, "0.0035", "0.0035"),
        (0.01, "0.010", "0.0100"),
        (0.04567, "0.046", "0.0457"),
        (1.0, "1.000", "1.0000"),
    ],
)
def test_one_p_formatter_serves_the_pages_and_the_terminal(
    p_value: float | None, page: str, terminal: str
) -> None:
    """Pages write three decimals from 0.01 up (four below); the terminal's tables always four,
    with a dash for a missing p, so their columns line up."""
    assert format_p(p_value) == page
    assert format_p(p_value, missing="-", digits=4) == terminal


def test_percent_writes_shares_and_a_dash_for_none() -> None:
    assert percent(None) == "–"
    assert percent(0.625) == "62%"  # round half to even, as Python formats
    assert percent(0.625, 1) == "62.5%"
