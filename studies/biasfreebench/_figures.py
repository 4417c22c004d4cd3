"""BiasFreeBench's figures, from the ``treatments`` block in results.json."""

from __future__ import annotations

from collections.abc import Sequence

from fairpanel.report import (
    INK,
    MUTED,
    PALETTE,
    EmbeddedFigure,
    IntervalBar,
    embed,
    format_p,
    interval_bars,
    light_grid,
    new_figure,
    percent_axis,
    styled,
)
from fairpanel.studies.biasfreebench._readers import Treatment

__all__ = ["bfs_difference_figure", "bfs_forest_figure"]


@styled
def bfs_forest_figure(treatments: Sequence[Treatment]) -> EmbeddedFigure | None:
    """Bias-Free Score with its Wilson interval for every treatment: pooled, then one panel
    per category; the dashed line is the baseline's score."""
    rows = [t for t in treatments if t.pooled.n]
    if not rows:
        return None
    categories = list(dict.fromkeys(c for t in rows for c in t.by_category))
    panels_of = ["pooled", *categories]
    figure = new_figure(max(7.0, 2.6 * len(panels_of) + 1.5), 1.1 + 0.38 * len(rows))
    panels = figure.subplots(1, len(panels_of), sharey=True, squeeze=False)[0]
    for axes, panel in zip(panels, panels_of, strict=True):
        cells = [t.pooled if panel == "pooled" else t.by_category.get(panel) for t in rows]
        bars = [
            IntervalBar(y, cell.bfs, cell.ci_low, cell.ci_high, MUTED if y == 0 else PALETTE[0])
            for y, cell in enumerate(cells)
            if cell is not None and cell.bfs is not None
        ]
        interval_bars(axes, bars, horizontal=True)
        first = cells[0]
        if first is not None and first.bfs is not None:
            axes.axvline(first.bfs, color=MUTED, linestyle="--", linewidth=1)
        axes.set_xlim(0, 1)
        percent_axis(axes, "x")
        axes.set_title(panel.replace("_", " "))
        axes.set_xlabel("Bias-Free Score")
        light_grid(axes, "x")
    panels[0].set_yticks(range(len(rows)), [t.name for t in rows], fontsize=8.5)
    panels[0].invert_yaxis()
    return embed(figure, "Bias-Free Score per treatment and category with Wilson intervals")


@styled
def bfs_difference_figure(treatments: Sequence[Treatment]) -> EmbeddedFigure | None:
    """Each mitigation's change in Bias-Free Score from the baseline on the same items, with
    the item-bootstrap interval; vermillion where the interval excludes 0."""
    rows = [
        (t.name, versus, versus.difference)
        for t in treatments
        if (versus := t.vs_baseline) is not None and versus.difference is not None
    ]
    if not rows:
        return None
    figure = new_figure(7.0, 1.0 + 0.4 * len(rows))
    axes = figure.add_subplot()
    bars = []
    for y, (_, versus, difference) in enumerate(rows):
        bars.append(IntervalBar.tested(y, difference, versus.ci_low, versus.ci_high, versus.moved))
        axes.annotate(
            f"{difference:+.1%} · McNemar p {format_p(versus.p_mcnemar)}",
            (difference, y),
            xytext=(0, 7),
            textcoords="offset points",
            ha="center",
            fontsize=8,
            color=INK,
        )
    interval_bars(axes, bars, horizontal=True)
    axes.axvline(0, color=MUTED, linestyle="--", linewidth=1)
    axes.set_yticks(range(len(rows)), [name for name, _, _ in rows], fontsize=8.5)
    axes.set_ylim(-0.7, len(rows) - 0.2)
    axes.invert_yaxis()
    axes.xaxis.set_major_formatter(lambda value, _pos: f"{value:+.0%}")
    axes.set_xlabel("Bias-Free Score minus the baseline's (same items)")
    light_grid(axes, "x")
    return embed(figure, "Change in Bias-Free Score from the baseline per mitigation")
