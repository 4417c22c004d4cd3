"""The bias profile as people read it: each panel's manipulation arms (verbosity, authority,
bandwagon, register, the same-text control) with the effect, its interval and the call, for the
report's "Bias profile" section and the terminal.

It reads ``bias_profile`` from results.json (the first panel's at the top, every panel's own
under ``panels``) and computes nothing: which row is called, and by how much, is the analysis's.
What is decided here is only how a row reads: called, a control row called (the rule itself
misfired), not called, or not tested.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from fairpanel.analysis import BiasProfileRow, RunResults

__all__ = [
    "ProfilePanel",
    "ProfileState",
    "bias_profile_context",
    "is_share_row",
    "profile_estimate",
    "profile_interval",
    "profile_panels",
    "profile_state",
    "row_label",
]

ProfileState = Literal["called", "misfired", "clear", "untested"]
"""How a row reads: ``called`` (the manipulation moves the panel), ``misfired`` (the same-text
control was called: a false call of the rule itself), ``clear`` (tested, not called),
``untested`` (no p-value: too few base scenarios, or nothing to compare)."""

_STATE_TEXT: dict[ProfileState, str] = {
    "called": "called",
    "misfired": "control called: the rule misfired",
    "clear": "not called",
    "untested": "not tested",
}


@dataclass(frozen=True)
class ProfilePanel:
    """One panel's rows (``name`` is empty in a run with one panel)."""

    name: str
    rows: list[BiasProfileRow]

    @property
    def manipulations(self) -> list[str]:
        """The manipulations proper (the control left out), in the rows' order."""
        return list(dict.fromkeys(r.manipulation for r in self.rows if not r.control))

    @property
    def called(self) -> list[str]:
        """The manipulations with at least one called row (either protocol)."""
        return list(dict.fromkeys(r.manipulation for r in self.rows if not r.control and r.called))

    @property
    def untested(self) -> list[str]:
        """The manipulations none of whose rows could be tested."""
        return [
            name
            for name in self.manipulations
            if all(profile_state(r) == "untested" for r in self.rows if r.manipulation == name)
        ]

    @property
    def misfired(self) -> bool:
        return any(profile_state(r) == "misfired" for r in self.rows)


def profile_panels(results: RunResults) -> list[ProfilePanel]:
    """Each panel's bias profile: every panel of a multi-panel run (the top-level block repeats
    the first panel's, so it is not shown twice), else the run's own; panels without rows are
    left out, so an empty list means the run had no manipulation arms."""
    panels = [ProfilePanel(name, list(p.bias_profile)) for name, p in results.panels.items()]
    if not any(panel.rows for panel in panels):
        # One panel, or a file whose panels lack their own block: the top-level one is the
        # first panel's.
        first = next(iter(results.panels), "")
        panels = [ProfilePanel(first if len(results.panels) > 1 else "", results.bias_profile)]
    return [panel for panel in panels if panel.rows]


def profile_state(row: BiasProfileRow) -> ProfileState:
    if row.p_holm is None:  # no p-value, or none adjusted: the row was not in the family
        return "untested"
    if row.called:
        return "misfired" if row.control else "called"
    return "clear"


def is_share_row(row: BiasProfileRow) -> bool:
    """Whether the estimate is a win share (pair protocol) rather than score points."""
    scale = row.scale.lower()
    return "share" in scale or "rate" in scale or (not scale and row.protocol == "pair")


def profile_estimate(row: BiasProfileRow, *, interval: bool = True) -> str:
    """'+0.42 pts [+0.10, +0.74]' or '+12pp [+3pp, +20pp]': the estimate and its interval in
    the row's units, as the terminal writes effects (a dash when there is no estimate, no
    brackets when there is no interval); ``interval=False``: the estimate alone."""
    values = (row.estimate, row.ci_low, row.ci_high)
    if values[0] is None:
        return "-"
    if is_share_row(row):
        mid, low, high = ("-" if v is None else f"{100 * v:+.0f}pp" for v in values)
    else:
        mid, low, high = ("-" if v is None else f"{v:+.2f}" for v in values)
        mid += " pts"
    if not interval or (row.ci_low is None and row.ci_high is None):
        return mid
    return f"{mid} [{low}, {high}]"


def profile_interval(row: BiasProfileRow) -> str:
    """The interval alone, in the row's units ('+0.10, +0.74'; a dash when there is none)."""
    if row.ci_low is None or row.ci_high is None:
        return "-"
    full = profile_estimate(row)
    return full[full.index("[") + 1 : -1]


def row_label(row: BiasProfileRow, panel: str) -> str:
    where = f"{panel} · " if panel else ""
    return f"{where}{row.manipulation} ({row.protocol})"


def _row_cells(row: BiasProfileRow) -> dict[str, Any]:
    """A row with how it reads: its state, the badge's words and, beside the badge, the
    verdict of a called row or why an untested one was not tested."""
    state = profile_state(row)
    detail = row.verdict if state in ("called", "misfired") else ""
    if state == "untested":
        detail = row.verdict.removeprefix("not tested").lstrip(": ")
    return {
        "row": row,
        "state": state,
        "state_text": _STATE_TEXT[state],
        "hit": state in ("called", "misfired"),
        "detail": detail,
        "measure": row.measure or row.scale or "-",
    }


def bias_profile_context(
    results: RunResults, panels: Sequence[ProfilePanel]
) -> dict[str, Any] | None:
    """What the report's bias-profile section reads (``panels``: ``profile_panels(results)``),
    or None when the run had no manipulation arms (the section is then left out)."""
    if not panels:
        return None
    return {
        "panels": [
            {
                "name": panel.name,
                "rows": [_row_cells(row) for row in panel.rows],
                "called": panel.called,
                "manipulations": panel.manipulations,
                "untested": panel.untested,
                "misfired": panel.misfired,
            }
            for panel in panels
        ],
        "several": len(panels) > 1,
        "figure": None,  # drawn with the page's other figures (report_context)
        "confidence": panels[0].rows[0].confidence,
        # Rows share one method but for their counts: the first tested row's says it.
        "method": next(
            (r.method for p in panels for r in p.rows if r.method and r.p_holm is not None), ""
        ),
        "self_preference": [
            {
                "row": row,
                "estimate": _signed_or_dash(row.estimate),
                "interval": "–"
                if row.ci_low is None or row.ci_high is None
                else f"{row.ci_low:+.3f} to {row.ci_high:+.3f}",
            }
            for row in results.self_preference
        ],
    }


def _signed_or_dash(value: float | None) -> str:
    return "–" if value is None else f"{value:+.3f}"
