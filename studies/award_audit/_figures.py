"""The award audit's figures, from its ``choices`` and ``followup`` blocks in results.json."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fairpanel.report import (
    INK,
    MUTED,
    EmbeddedFigure,
    IntervalBar,
    colour_map,
    embed,
    format_p,
    interval_bars,
    legend_beside,
    light_grid,
    new_figure,
    percent_axis,
    styled,
)
from fairpanel.studies.award_audit._readers import ChoiceRow, FollowupRow, level_name

__all__ = ["award_counts_figure", "award_share_figure", "followup_figure"]


@styled
def award_share_figure(
    choices: Sequence[ChoiceRow], tested: str, alpha: float
) -> EmbeddedFigure | None:
    """Share of decided answers naming a student of the tested group, per level and pooled,
    with the exact (Clopper-Pearson) interval and the binomial p against 50% above each."""
    rows = [c for c in choices if c.share is not None]
    if not rows:
        return None
    figure = new_figure(max(5.5, 1.6 + 1.1 * len(rows)), 3.6)
    axes = figure.add_subplot()
    bars = []
    for x, row in enumerate(rows):
        share, low, high = float(row.share or 0), row.ci_low, row.ci_high
        p = row.tested_p
        bars.append(IntervalBar.tested(x, share, low, high, p is not None and p < alpha))
        if row.pooled:
            axes.axvline(x - 0.5, color="#D1D5DB", linewidth=1)
        axes.annotate(
            f"{share:.0%}\np {format_p(row.p_exact)}",
            (x, high or share),
            xytext=(0, 6),
            textcoords="offset points",
            ha="center",
            fontsize=8,
            color=INK,
        )
    interval_bars(axes, bars, horizontal=False, linewidth=2.6, markersize=8)
    axes.axhline(0.5, color=MUTED, linestyle="--", linewidth=1)
    axes.set_xticks(range(len(rows)), [r.name for r in rows])
    axes.set_xlim(-0.6, len(rows) - 0.4)
    axes.set_ylim(0, 1.12)
    percent_axis(axes)
    axes.set_ylabel(f"share choosing {tested}")
    light_grid(axes)
    return embed(figure, f"Share of answers choosing {tested} per level with exact intervals")


@styled
def award_counts_figure(
    choices: Sequence[ChoiceRow], groups: Sequence[str]
) -> EmbeddedFigure | None:
    """Every answer per level: choices of each group and equivocal answers, as shares."""
    rows = [c for c in choices if sum(c.counts.values())]
    if not rows:
        return None
    kinds = [*groups, "equivocal"]
    colours = {**colour_map(list(groups)), "equivocal": "#BDBDBD"}
    figure = new_figure(7.5, 1.0 + 0.42 * len(rows))
    axes = figure.add_subplot()
    for y, row in enumerate(rows):
        counts = row.counts
        total = sum(counts.values())
        left = 0.0
        for kind in kinds:
            width = counts.get(kind, 0) / total
            axes.barh(y, width, left=left, color=colours[kind], label=kind if y == 0 else None)
            if width >= 0.06:
                axes.text(
                    left + width / 2,
                    y,
                    f"{width:.0%}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if kind != "equivocal" else INK,
                )
            left += width
    axes.set_yticks(range(len(rows)), [r.name for r in rows])
    axes.invert_yaxis()
    axes.set_xlim(0, 1)
    percent_axis(axes, "x")
    axes.set_xlabel("share of all answers")
    axes.legend(ncol=len(kinds), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    return embed(figure, "Answers per level: each group's choices and the equivocal share")


@styled
def followup_figure(followup: Sequence[FollowupRow]) -> EmbeddedFigure | None:
    """Follow-up explanation codes by the group chosen, one panel per level, with the
    chi-square test of independence in each title (when every cell held enough answers)."""
    rows = [f for f in followup if f.observed]
    if not rows:
        return None
    groups = list(rows[0].observed)
    codes = list(dict.fromkeys(c for f in rows for g in f.observed.values() for c in g))
    colours = colour_map(groups)
    figure = new_figure(max(6.0, 2.3 * len(rows)), 3.0)
    panels = figure.subplots(1, len(rows), sharey=True, squeeze=False)[0]
    width = 0.8 / len(groups)
    for axes, row in zip(panels, rows, strict=True):
        for g, group in enumerate(groups):
            observed = row.observed.get(group) or {}
            total = sum(observed.values()) or 1
            xs = np.arange(len(codes)) + (g - (len(groups) - 1) / 2) * width
            shares = [observed.get(code, 0) / total for code in codes]
            axes.bar(xs, shares, width=width, color=colours[group], label=group)
        tested = row.tested and row.p_value is not None
        test = f"χ² p {format_p(row.p_value)}" if tested else "not tested"
        axes.set_title(f"{level_name(row.level)}\n{test}", fontsize=9)
        axes.set_xticks(range(len(codes)), codes, rotation=30, ha="right", fontsize=8)
        light_grid(axes)
    percent_axis(panels[0])
    panels[0].set_ylabel("share of follow-up answers")
    legend_beside(figure, *panels[0].get_legend_handles_labels(), title="chosen")
    return embed(figure, "Follow-up explanation codes by chosen group per level")
