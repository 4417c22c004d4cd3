"""The judge-bias study's figure, from the ``manipulations`` block in results.json."""

from __future__ import annotations

from collections.abc import Sequence

from fairpanel.report import (
    MUTED,
    EmbeddedFigure,
    IntervalBar,
    embed,
    interval_bars,
    light_grid,
    new_figure,
    percent_axis,
    styled,
)
from fairpanel.studies.judge_bias._readers import Sensitivity

__all__ = ["sensitivity_figure"]


@styled
def sensitivity_figure(rows: Sequence[Sensitivity]) -> EmbeddedFigure | None:
    """Each manipulation's bias-sensitive rate with its item-bootstrap interval (vermillion
    where Holm calls it), and its reverse share as a grey square beside it."""
    drawn = [row for row in rows if row.rate is not None]
    if not drawn:
        return None
    figure = new_figure(7.0, 1.0 + 0.45 * len(drawn))
    axes = figure.add_subplot()
    bars = []
    for y, row in enumerate(drawn):
        assert row.rate is not None
        bars.append(IntervalBar.tested(y, row.rate, row.ci_low, row.ci_high, row.called))
        if row.reverse is not None:
            bars.append(IntervalBar(y + 0.25, row.reverse, None, None, MUTED, True))
    interval_bars(axes, bars, horizontal=True)
    axes.set_yticks(range(len(drawn)), [row.label for row in drawn], fontsize=8.5)
    axes.set_ylim(-0.7, len(drawn) - 0.2)
    axes.invert_yaxis()
    axes.set_xlim(0, 1)
    percent_axis(axes, "x")
    axes.set_xlabel("Share of (item, order) pairs right untouched and wrong manipulated")
    light_grid(axes, "x")
    return embed(figure, "Bias-sensitive rate per manipulation with item-bootstrap intervals")
