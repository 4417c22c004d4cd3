"""BiasFreeBench's figures, from the ``treatments`` block in results.json."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fairpanel.report import (
    HIGHLIGHT,
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

__all__ = ["bfs_difference_figure", "bfs_forest_figure"]


@styled
def bfs_forest_figure(treatments: Sequence[Mapping[str, Any]]) -> EmbeddedFigure | None:
    """Bias-Free Score with its Wilson interval for every treatment: pooled, then one panel
    per category; the dashed line is the baseline's score."""
    rows = [t for t in treatments if (t.get("pooled") or {}).get("n")]
    if not rows:
        return None
    categories = list(dict.fromkeys(c for t in rows for c in (t.get("by_category") or {})))
    panels_of = ["pooled", *categories]
    figure = new_figure(max(7.0, 2.6 * len(panels_of) + 1.5), 1.1 + 0.38 * len(rows))
    panels = figure.subplots(1, len(panels_of), sharey=True, squeeze=False)[0]
    for axes, panel in zip(panels, panels_of, strict=True):
        cells = [
            t.get("pooled") if panel == "pooled" else (t.get("by_category") or {}).get(panel)
            for t in rows
        ]
        bars = [
            IntervalBar(
                y,
                float(cell["bfs"]),
                cell.get("ci_low"),
                cell.get("ci_high"),
                MUTED if y == 0 else PALETTE[0],
            )
            for y, cell in enumerate(cells)
            if cell and cell.get("bfs") is not None
        ]
        interval_bars(axes, bars, horizontal=True)
        if cells[0] and cells[0].get("bfs") is not None:
            axes.axvline(cells[0]["bfs"], color=MUTED, linestyle="--", linewidth=1)
        axes.set_xlim(0, 1)
        percent_axis(axes, "x")
        axes.set_title(panel.replace("_", " "))
        axes.set_xlabel("Bias-Free Score")
        light_grid(axes, "x")
    panels[0].set_yticks(range(len(rows)), [str(t.get("name")) for t in rows], fontsize=8.5)
    panels[0].invert_yaxis()
    return embed(figure, "Bias-Free Score per treatment and category with Wilson intervals")


@styled
def bfs_difference_figure(treatments: Sequence[Mapping[str, Any]]) -> EmbeddedFigure | None:
    """Each mitigation's change in Bias-Free Score from the baseline on the same items, with
    the item-bootstrap interval; vermillion where the interval excludes 0."""
    rows = [t for t in treatments if (t.get("vs_baseline") or {}).get("difference") is not None]
    if not rows:
        return None
    figure = new_figure(7.0, 1.0 + 0.4 * len(rows))
    axes = figure.add_subplot()
    bars = []
    for y, treatment in enumerate(rows):
        versus = treatment["vs_baseline"]
        low, high = versus.get("ci_low"), versus.get("ci_high")
        moved = low is not None and high is not None and (low > 0 or high < 0)
        colour = HIGHLIGHT if moved else PALETTE[0]
        bars.append(IntervalBar(y, float(versus["difference"]), low, high, colour, not moved))
        axes.annotate(
            f"{versus['difference']:+.1%} · McNemar p {format_p(versus.get('p_mcnemar'))}",
            (versus["difference"], y),
            xytext=(0, 7),
            textcoords="offset points",
            ha="center",
            fontsize=8,
            color=INK,
        )
    interval_bars(axes, bars, horizontal=True)
    axes.axvline(0, color=MUTED, linestyle="--", linewidth=1)
    axes.set_yticks(range(len(rows)), [str(t.get("name")) for t in rows], fontsize=8.5)
    axes.set_ylim(-0.7, len(rows) - 0.2)
    axes.invert_yaxis()
    axes.xaxis.set_major_formatter(lambda value, _pos: f"{value:+.0%}")
    axes.set_xlabel("Bias-Free Score minus the baseline's (same items)")
    light_grid(axes, "x")
    return embed(figure, "Change in Bias-Free Score from the baseline per mitigation")
