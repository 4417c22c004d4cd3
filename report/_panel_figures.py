"""The judge-panel report's figures on how the panel behaves as a panel: agreement between
judges, the debate's shift from first to final round, robustness to injected instructions, and
the manipulations' bias profile. As in ``_run_figures``, each function returns ``None`` when
there is nothing to draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fairpanel.analysis import AgreementRow, DebateShiftRow
from fairpanel.report._bias_profile import ProfilePanel, is_share_row, row_label
from fairpanel.report._figure import (
    HIGHLIGHT,
    INK,
    MUTED,
    PALETTE,
    EmbeddedFigure,
    IntervalBar,
    colour_map,
    embed,
    interval_bars,
    light_grid,
    new_figure,
    styled,
)

__all__ = ["agreement_figure", "bias_profile_figure", "debate_shift_figure", "injection_figure"]


@styled
def agreement_figure(rows: Sequence[AgreementRow]) -> EmbeddedFigure | None:
    """Krippendorff's alpha per protocol and metric, first round beside final round, with the
    customary 0.667 (tentative) and 0.8 (reliable) reference lines."""
    usable = [r for r in rows if r.alpha is not None]
    if not usable:
        return None
    groups = list(dict.fromkeys(f"{r.protocol} · {r.metric}" for r in usable))
    kinds = list(dict.fromkeys(r.round_kind for r in usable))
    colours = colour_map(kinds)
    figure = new_figure(7.5, 0.9 + 0.34 * len(groups) * len(kinds))
    axes = figure.add_subplot()
    height = 0.8 / len(kinds)
    for k, kind in enumerate(kinds):
        for g, group in enumerate(groups):
            match = [
                r.alpha
                for r in usable
                if f"{r.protocol} · {r.metric}" == group and r.round_kind == kind
            ]
            if match and match[0] is not None:
                value = float(match[0])
                y = g + (k - (len(kinds) - 1) / 2) * height
                axes.barh(
                    y,
                    value,
                    height=height * 0.9,
                    color=colours[kind],
                    label=kind if g == 0 else None,
                )
                axes.text(
                    value + 0.01 if value >= 0 else 0.01, y, f"{value:.2f}", va="center", fontsize=8
                )
    for line in (0.667, 0.8):
        axes.axvline(line, color=MUTED, linestyle=":", linewidth=1)
    axes.axvline(0.0, color=INK, linewidth=0.8)
    low = min(-0.1, *(float(r.alpha) for r in usable if r.alpha is not None))
    axes.set_xlim(low - 0.05, 1.05)
    axes.set_yticks(range(len(groups)), groups)
    axes.invert_yaxis()
    axes.set_xlabel("Krippendorff's alpha (1 = full agreement, 0 = chance)")
    axes.legend(title="round", loc="lower right", fontsize=8, frameon=False)
    light_grid(axes, "x")
    return embed(figure, "Inter-judge agreement (Krippendorff's alpha) by metric and round")


@styled
def debate_shift_figure(rows: Sequence[DebateShiftRow]) -> EmbeddedFigure | None:
    """Mean score per identity before (first round) and after the debate (final round)."""
    means = [
        (r, float(r.first_mean), float(r.final_mean))
        for r in rows
        if r.first_mean is not None and r.final_mean is not None
    ]
    if not means:
        return None
    overall = [m for m in means if m[0].metric == "overall"]
    usable = overall or means
    labels = [
        f"{r.protocol} · {r.category} · {r.identity}" + ("" if overall else f" · {r.metric}")
        for r, _, _ in usable
    ]
    figure = new_figure(7.5, 0.9 + 0.32 * len(usable))
    axes = figure.add_subplot()
    for y, (_, first, final) in enumerate(usable):
        axes.annotate(
            "",
            xy=(final, y),
            xytext=(first, y),
            arrowprops={"arrowstyle": "->", "color": PALETTE[0], "lw": 1.6},
        )
        axes.plot([first], [y], "o", color=MUTED, markersize=5)
        axes.plot([final], [y], "o", color=PALETTE[0], markersize=6)
    axes.set_yticks(range(len(usable)), labels, fontsize=8.5)
    axes.invert_yaxis()
    axes.set_xlabel("mean score: first round (grey) → final round (blue)")
    light_grid(axes, "x")
    return embed(figure, "Score shift from first to final round by identity")


def _shift_panel(axes: Any, rows: Sequence[Mapping[str, Any]], prefix: str, label: str) -> None:
    for y, row in enumerate(rows):
        estimate = row.get(f"{prefix}_shift")
        if estimate is None:
            continue
        low, high = row.get(f"{prefix}_ci_low"), row.get(f"{prefix}_ci_high")
        moved = low is not None and high is not None and (low > 0 or high < 0)
        colour = HIGHLIGHT if moved else PALETTE[0]
        if low is not None and high is not None:
            axes.hlines(y, low, high, color=colour, linewidth=2.4)
        axes.plot(
            [estimate],
            [y],
            "o" if moved else "s",
            color=colour,
            markerfacecolor=colour if moved else "white",
            markersize=7,
        )
        axes.annotate(
            f"{estimate:+.2f}",
            (estimate, y),
            xytext=(0, 7),
            textcoords="offset points",
            ha="center",
            fontsize=8.5,
            color=INK,
        )
    axes.axvline(0.0, color=MUTED, linestyle="--", linewidth=1)
    axes.set_ylim(-0.7, len(rows) - 0.3)
    axes.invert_yaxis()
    axes.set_xlabel(label)
    light_grid(axes, "x")


@styled
def injection_figure(rows: Sequence[Mapping[str, Any]]) -> EmbeddedFigure | None:
    """Per judge model: how far a candidate's instruction to the judges moved that candidate's
    score (points on 0-10) and its share of pair verdicts, injected minus untouched twin, with
    the intervals; 0 (dashed) is a judge that ignores the instruction."""
    usable = [r for r in rows if r.get("score_shift") is not None]
    if not usable:
        return None
    with_verdicts = any(r.get("verdict_shift") is not None for r in usable)
    figure = new_figure(9.0 if with_verdicts else 5.5, 1.3 + 0.5 * len(usable))
    panels = figure.subplots(1, 2 if with_verdicts else 1, sharey=True, squeeze=False)[0]
    _shift_panel(panels[0], usable, "score", "score shift (points on the 0-10 scale)")
    panels[0].set_yticks(range(len(usable)), [str(r.get("judge_model")) for r in usable])
    if with_verdicts:
        _shift_panel(panels[1], usable, "verdict", "shift in the share of pair verdicts won")
    return embed(figure, "Injection robustness: score and verdict shift per judge model")


@styled
def bias_profile_figure(panels: Sequence[ProfilePanel]) -> EmbeddedFigure | None:
    """Every row's estimate with its interval, one axis per unit (score points for single
    trials, win share for pairs); called rows filled in the highlight colour, the control rows
    grey; 0 (dashed) is a panel the manipulation does not move."""
    rows = [(panel.name, row) for panel in panels for row in panel.rows if row.estimate is not None]
    if not rows:
        return None
    units = list(dict.fromkeys(is_share_row(row) for _, row in rows))
    heights = [sum(1 for _, row in rows if is_share_row(row) == unit) for unit in units]
    figure = new_figure(8.0, 0.9 + 0.32 * sum(heights) + 0.55 * len(units))
    grid = figure.add_gridspec(len(units), 1, height_ratios=heights)
    for index, unit in enumerate(units):
        axes = figure.add_subplot(grid[index, 0])
        members = [(name, row) for name, row in rows if is_share_row(row) == unit][::-1]
        bars = [
            IntervalBar(
                position=y,
                estimate=float(row.estimate or 0.0),
                low=row.ci_low,
                high=row.ci_high,
                colour=HIGHLIGHT if row.called else (MUTED if row.control else PALETTE[0]),
                hollow=not row.called,
            )
            for y, (_, row) in enumerate(members)
        ]
        interval_bars(axes, bars, horizontal=True, linewidth=2.0, markersize=6.5)
        axes.axvline(0.0, color=MUTED, linestyle="--", linewidth=1)
        labels = [row_label(row, name) for name, row in members]
        axes.set_yticks(range(len(members)), labels, fontsize=8.5)
        axes.set_ylim(-0.7, len(members) - 0.3)
        axes.set_xlabel(
            "win share of the manipulated candidate, manipulated minus untouched"
            if unit
            else "score points (0-10), manipulated minus untouched"
        )
        light_grid(axes, "x")
    return embed(figure, "Bias profile: each manipulation's effect with its interval")
