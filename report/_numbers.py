"""How numbers read on a page and in the terminal: p-values and shares.

One formatter per kind of number, so a p-value reads the same in a sentence, a figure label, a
report table and the terminal's tables.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SWAP_SCALE", "format_p", "percent", "ties_note"]

_TINY_P = 1e-4
"""Below this a p-value is written ``<0.0001`` (MALIBU's threshold): more digits would be false
precision for tests whose assumptions are already approximate."""


def format_p(p_value: float | None, *, missing: str = "n/a", digits: int | None = None) -> str:
    """A p-value for reading: ``<0.0001`` below 1e-4, else ``digits`` decimals.

    By default (``digits=None``) four decimals below 0.01 and three above, as the pages write
    them; the terminal's tables pass ``digits=4`` and ``missing="-"`` to keep their columns
    aligned.
    """
    if p_value is None:
        return missing
    if p_value < _TINY_P:
        return "<0.0001"
    if digits is None:
        digits = 4 if p_value < 0.01 else 3
    return f"{p_value:.{digits}f}"


def percent(value: Any, digits: int = 0) -> str:
    """A share as a percentage; a dash when there is none."""
    return "–" if value is None else f"{float(value):.{digits}%}"


SWAP_SCALE = "win share - 0.5"
"""The label-swap contrast's scale: there a tie counts half, it is not left out."""


def ties_note(tie_share: float | None, scale: str = "") -> str:
    """'among decided pairs; ties 12%', the words every win rate is shown with; for a label
    swap's win share, where a tie counts half, 'ties 12%, counted half'."""
    share = "–" if tie_share is None else f"{tie_share:.0%}"
    if scale == SWAP_SCALE:
        return f"ties {share}, counted half"
    return f"among decided pairs; ties {share}"
