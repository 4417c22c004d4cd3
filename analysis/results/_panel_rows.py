"""The typed rows of a panel comparison (results.json ``panel_comparison``) and their sentences.

A row says how panel b differs from panel a on one thing both measured on the same units: a
primary contrast, position bias, parse failures or agreement. Its sentence is what a reader
takes away, so it says which panel's effect is *larger* (further from no effect, in panel a's
direction) rather than leaving the sign of "b - a" to be decoded, and a difference the procedure
does not call is "not separable", never "the same".
"""

from __future__ import annotations

from pydantic import Field

from fairpanel.analysis.results._rows import Number, ResultsModel

__all__ = ["KINDS", "PanelComparison", "PanelDifferenceRow", "RankInterval", "sentence"]

KINDS: tuple[str, ...] = ("single", "pair", "position", "parse_failures", "agreement")
"""What a row compares: a single-protocol contrast, a pair label-swap contrast, the
first-shown win share of order twins, the share of judge turns without a valid answer, and
Krippendorff's alpha."""

_REFERENCE: dict[str, float] = {"single": 0.0, "pair": 0.0, "position": 0.5}
"""Where a kind's "no effect" lies: a difference in the effect is told as larger or smaller
(away from or toward it); a rate or an agreement is told as higher or lower."""


class PanelDifferenceRow(ResultsModel):
    """Panel b minus panel a on the same matched units.

    ``estimate_a`` / ``estimate_b`` are each panel's own mean over base scenarios on the
    matched units (its alpha, for agreement); ``difference`` = b - a, with the interval the
    test rests on (``ci_low``/``ci_high``: the t interval, or the bootstrap interval for
    agreement) and the cluster bootstrap's percentile interval beside it. ``p_adjusted`` is
    weighted Holm over every difference of the run, ``weight`` the row's share of alpha in it
    (its family's share, split evenly); ``called`` is ``p_adjusted < alpha``, None when the row
    was not tested (``reason`` says why).
    """

    id: str
    kind: str
    panel_a: str
    panel_b: str
    category: str | None = None
    contrast: str = ""
    estimate_a: Number | None = None
    estimate_b: Number | None = None
    difference: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None
    bootstrap_ci_low: Number | None = None
    bootstrap_ci_high: Number | None = None
    confidence: Number = 0.95
    p_value: Number | None = None
    p_adjusted: Number | None = None
    weight: Number | None = None
    called: bool | None = None
    n_units: int = 0
    n_bases: int = 0
    scale: str = ""
    test: str = ""
    method: str = ""
    reason: str | None = None
    sentence: str = ""


class PanelComparison(ResultsModel):
    """Every difference between every pair of panels (in the given order, b - a), corrected
    together by one weighted Holm ``procedure`` over ``tests`` p-values; ``called`` lists the
    ids of the differences it calls, ``warnings`` what could not be compared."""

    panels: list[str] = Field(default_factory=list)
    alpha: Number = 0.05
    confidence: Number = 0.95
    bootstrap_reps: int = 0
    min_bases: int = 0
    tests: int = 0
    called: list[str] = Field(default_factory=list)
    procedure: str = ""
    differences: list[PanelDifferenceRow] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class RankInterval(ResultsModel):
    """One panel's largest absolute primary effect and where it ranks among the panels (1 =
    the smallest largest effect, the fairest), with the rank interval of the paired cluster
    bootstrap (``rank_label`` "1st-2nd" when the panel cannot be told from its neighbour)."""

    panel: str
    effect_id: str | None = None
    contrast: str | None = None
    scale: str = ""
    estimate: Number | None = None
    largest_effect: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None
    rank: int | None = None
    rank_low: int | None = None
    rank_high: int | None = None
    rank_label: str = ""
    n_bases: int = 0
    reps: int = 0
    reason: str | None = None
    method: str = ""


def _number(row: PanelDifferenceRow, value: float, signed: bool = False) -> str:
    """A difference in the row's unit: score points, percentage points of a share, or alpha."""
    share = row.scale != "score points" and row.kind != "agreement"
    scaled, digits = (100.0 * value, 1) if share else (value, 2)
    return f"{scaled:+.{digits}f}" if signed else f"{scaled:.{digits}f}"


def _unit(row: PanelDifferenceRow) -> str:
    if row.scale == "score points":
        return " points"
    return "" if row.kind == "agreement" else " percentage points"


def _level(row: PanelDifferenceRow, value: float | None) -> str:
    if value is None:
        return "?"
    if row.kind in ("position", "parse_failures"):
        return f"{value:.0%}"
    return f"{value:+.2f}" if row.kind != "agreement" else f"{value:.2f}"


def _what(row: PanelDifferenceRow) -> str:
    if row.kind == "single":
        return f"{row.category} effect ({row.contrast})"
    if row.kind == "pair":
        return f"{row.category} label-swap effect ({row.contrast}, win share - 0.5)"
    if row.kind == "position":
        return "position bias (first-shown win share of order-swapped twins)"
    if row.kind == "parse_failures":
        return "share of judge turns without a valid answer"
    return f"agreement on {row.contrast} (Krippendorff's alpha)"


def _told(row: PanelDifferenceRow) -> tuple[str, float, float, float]:
    """(word, amount, low, high): the difference as "larger"/"smaller" (away from or toward no
    effect, in panel a's direction, or b's when a shows none) or "higher"/"lower", with its
    interval on the same footing."""
    difference = float(row.difference or 0.0)
    low, high = float(row.ci_low or 0.0), float(row.ci_high or 0.0)
    if row.kind in _REFERENCE:
        reference = _REFERENCE[row.kind]
        side = float(row.estimate_a or reference) - reference
        if side == 0.0:
            side = float(row.estimate_b or reference) - reference
        sign = -1.0 if side < 0.0 else 1.0
        words = ("larger", "smaller")
    else:
        sign, words = 1.0, ("higher", "lower")
    away, low, high = difference * sign, *sorted((low * sign, high * sign))
    if away >= 0.0:
        return words[0], away, low, high
    return words[1], -away, -high, -low


def _crossed(row: PanelDifferenceRow) -> bool:
    """Whether the two panels' effects lie on opposite sides of no effect, where "larger" and
    "smaller" would mislead (a small effect one way and a large one the other)."""
    if row.kind not in _REFERENCE or row.estimate_a is None or row.estimate_b is None:
        return False
    reference = _REFERENCE[row.kind]
    return (float(row.estimate_a) - reference) * (float(row.estimate_b) - reference) < 0.0


def sentence(row: PanelDifferenceRow, alpha: float) -> str:
    """The row in words: called ("b's ... is 0.41 points smaller than a's (95% CI 0.18 to
    0.63)", or "points the other way" when the two effects lie on opposite sides of no
    effect), not separable, or not compared (and why)."""
    a, b, what = row.panel_a, row.panel_b, _what(row)
    levels = f"{a} {_level(row, row.estimate_a)}, {b} {_level(row, row.estimate_b)}"
    where = f"{row.n_bases} base scenarios"
    if row.p_value is None or row.difference is None:
        return f"{b}'s {what} was not compared with {a}'s: {row.reason or 'no p-value'} ({levels})."
    adjusted = f"adjusted p={row.p_adjusted:.2g}" if row.p_adjusted is not None else ""
    interval = f"{row.confidence:.0%} CI"
    if row.called and _crossed(row):
        low, high = float(row.ci_low or 0.0), float(row.ci_high or 0.0)
        return (
            f"{b}'s {what} points the other way from {a}'s ({levels}): {b} minus {a} is "
            f"{_number(row, float(row.difference), True)}{_unit(row)} ({interval} "
            f"{_number(row, low, True)} to {_number(row, high, True)}; {adjusted}; {where})."
        )
    if row.called:
        word, amount, low, high = _told(row)
        return (
            f"{b}'s {what} is {_number(row, amount)}{_unit(row)} {word} than {a}'s ({interval} "
            f"{_number(row, low)} to {_number(row, high)}; {adjusted}; {levels}; {where})."
        )
    low, high = float(row.ci_low or 0.0), float(row.ci_high or 0.0)
    return (
        f"{b}'s {what} is not separable from {a}'s at alpha={alpha:g}: difference "
        f"{_number(row, row.difference, True)}{_unit(row)} ({interval} "
        f"{_number(row, low, True)} to {_number(row, high, True)}; {adjusted}; {levels}; "
        f"{where})."
    )
