"""The judge-panel report's figures, as embedded PNG data URIs (``_figure`` has the style).

Every function takes plain report data (the ``results.json`` blocks, or the analysis's
score-distribution cells) and returns ``None`` when there is nothing to draw, so the report can
say what is missing instead of showing an empty axis. Nothing here computes a statistic or reads
a frame: the figures are drawn in a process that loads neither pandas nor scipy
(``_figure_workers``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.colors import TwoSlopeNorm

from fairpanel.analysis import (
    BradleyTerryAbility,
    BradleyTerryFit,
    BradleyTerryTerm,
    EffectRow,
    ScoreDifferenceBlock,
    ScoreDistributionCell,
    WinRateRow,
)
from fairpanel.judging.protocol import METRICS
from fairpanel.report._figure import (
    HIGHLIGHT,
    INK,
    MUTED,
    PALETTE,
    EmbeddedFigure,
    colour_map,
    embed,
    light_grid,
    new_figure,
    styled,
)
from fairpanel.report._verdict import adjusted_p, decided_win_rates

__all__ = [
    "PALETTE",
    "EmbeddedFigure",
    "bradley_terry_figure",
    "forest_figure",
    "score_difference_figure",
    "score_distribution_figure",
    "win_rate_figure",
]


@styled
def win_rate_figure(win_rates: Sequence[WinRateRow]) -> EmbeddedFigure | None:
    """MALIBU Figures 5-6: each identity's pair win rate among decided pairs with its interval,
    grouped by category, against the rate an unbiased panel gives (dashed: 50%); each tick
    says how many pairs were decided and what share tied."""
    rows = [r for r in decided_win_rates(win_rates) if r.rate is not None]
    if not rows:
        return None
    categories = list(dict.fromkeys(r.category for r in rows))
    figure = new_figure(max(6.0, 1.2 + 0.8 * len(rows) + 0.4 * len(categories)), 3.6)
    axes = figure.add_subplot()
    x = 0.0
    ticks: list[float] = []
    labels: list[str] = []
    for category in categories:
        members = [r for r in rows if r.category == category]
        colours = colour_map([r.identity for r in members])
        start = x
        for row in members:
            rate, low, high = float(row.rate or 0.0), row.ci_low, row.ci_high
            colour = colours[row.identity]
            if low is not None and high is not None:
                axes.vlines(x, low, high, color=colour, linewidth=2.4)
            axes.plot([x], [rate], "o", color=colour, markersize=8, markeredgecolor="white")
            axes.annotate(
                f"{rate:.0%}",
                (x, rate),
                xytext=(8, -3),
                textcoords="offset points",
                fontsize=8.5,
                color=INK,
            )
            ticks.append(x)
            ties = "–" if row.tie_share is None else f"{row.tie_share:.0%}"
            labels.append(f"{row.identity}\nn={row.n}, ties {ties}")
            x += 1.0
        axes.text(
            (start + x - 1.0) / 2,
            -0.2,
            category,
            ha="center",
            va="top",
            fontweight="bold",
            transform=axes.get_xaxis_transform(),
        )
        axes.hlines(0.5, start - 0.45, x - 0.55, color=MUTED, linestyle="--", linewidth=1.2)
        x += 0.6
    axes.set_xticks(ticks, labels, fontsize=8.5)
    axes.set_xlim(-0.6, x - 1.0)
    axes.set_ylim(-0.04, 1.06)  # room for a marker at 0% or 100%
    axes.set_yticks([0, 0.25, 0.5, 0.75, 1.0])
    axes.yaxis.set_major_formatter(lambda value, _pos: f"{value:.0%}")
    axes.set_ylabel("share of decided pairs won")
    light_grid(axes)
    return embed(
        figure,
        "Win rate among decided pairs per identity with interval bars and tie shares, by "
        "category; 50% dashed",
    )


@styled
def score_difference_figure(
    matrices: Mapping[str, ScoreDifferenceBlock],
) -> EmbeddedFigure | None:
    """MALIBU Figure 4: cell = row identity's mean score minus column identity's, one heatmap
    per category on a shared, zero-centred diverging scale."""
    usable = {c: m for c, m in matrices.items() if m.identities and m.matrix}
    if not usable:
        return None
    values = [abs(v) for m in usable.values() for row in m.matrix for v in row if v is not None]
    limit = max([0.25, *values])
    sizes = [len(m.identities) for m in usable.values()]
    figure = new_figure(max(4.0, 1.6 + sum(1.0 + 0.75 * s for s in sizes)), 1.6 + 0.6 * max(sizes))
    grid = figure.add_gridspec(1, len(usable), width_ratios=sizes)
    norm = TwoSlopeNorm(vcenter=0.0, vmin=-limit, vmax=limit)
    image = None
    for index, (category, block) in enumerate(usable.items()):
        axes = figure.add_subplot(grid[0, index])
        names = list(block.identities)
        data = np.array([[np.nan if v is None else float(v) for v in row] for row in block.matrix])
        image = axes.imshow(data, cmap="RdBu_r", norm=norm)
        for (i, j), value in np.ndenumerate(data):
            if i == j or np.isnan(value):
                continue
            strong = abs(value) > 0.55 * limit
            axes.text(
                j,
                i,
                f"{value:+.2f}",
                ha="center",
                va="center",
                fontsize=8.5,
                color="white" if strong else INK,
            )
        axes.set_xticks(range(len(names)), names, rotation=30, ha="right")
        axes.set_yticks(range(len(names)), names)
        axes.set_title(f"{category} ({block.metric})")
        axes.spines[:].set_visible(False)
        axes.tick_params(length=0)
    if image is not None:
        bar = figure.colorbar(image, ax=figure.axes, shrink=0.85, pad=0.02)
        bar.set_label("row minus column (score points)")
    return embed(figure, "Heatmap of mean score differences between identities, per category")


@styled
def score_distribution_figure(cells: Sequence[ScoreDistributionCell]) -> EmbeddedFigure | None:
    """MALIBU Figure 9, with the distribution shown: for each metric and identity, the share of
    judge scores at each level (dot area) and the mean with a 95% t interval (diamond)."""
    if not cells:
        return None
    categories = sorted({cell.category for cell in cells})
    by_key = {(cell.category, cell.metric, cell.identity): cell for cell in cells}
    height = 0.75 + 2.55 * len(categories)
    figure = new_figure(10.5, height, constrained=False)
    grid = figure.add_gridspec(
        len(categories),
        len(METRICS),
        left=0.075,
        right=0.99,
        top=1 - 0.35 / height,
        bottom=0.62 / height,
        wspace=0.18,
        hspace=0.55 * 2.55 / height * len(categories),
    )
    for row_index, category in enumerate(categories):
        identities = sorted({cell.identity for cell in cells if cell.category == category})
        colours = colour_map(identities)
        for col_index, metric in enumerate(METRICS):
            axes = figure.add_subplot(grid[row_index, col_index])
            for x, identity in enumerate(identities):
                own = by_key.get((category, metric, identity))
                if own is None:
                    continue
                axes.scatter(
                    [x] * len(own.levels),
                    own.levels,
                    s=900 * np.asarray(own.shares) ** 0.9,
                    color=colours[identity],
                    alpha=0.35,
                    linewidths=0,
                )
                axes.errorbar(
                    [x + 0.28],
                    [own.mean],
                    yerr=[[own.mean - own.ci_low], [own.ci_high - own.mean]],
                    fmt="D",
                    color=colours[identity],
                    markersize=5,
                    capsize=2,
                    markeredgecolor=INK,
                    markeredgewidth=0.6,
                )
            axes.set_xticks(range(len(identities)), identities, rotation=25, ha="right")
            axes.set_xlim(-0.6, len(identities) - 0.2)
            axes.set_ylim(-0.5, 10.5)
            axes.set_yticks([0, 2, 4, 6, 8, 10])
            light_grid(axes)
            if row_index == 0:
                axes.set_title(metric.capitalize())
            if col_index == 0:
                axes.set_ylabel(f"{category}\nscore", fontweight="bold")
    return embed(figure, "Score distributions by identity for each metric and category")


def _effect_label(row: EffectRow) -> str:
    judge = f" [{row.judge}]" if row.judge else ""
    return " · ".join((row.category, row.metric, row.contrast)) + judge


@styled
def forest_figure(rows: Sequence[EffectRow], alpha: float) -> EmbeddedFigure | None:
    """Effect sizes with intervals, one panel per unit (score points, win rate - 0.5, ...), of
    the rows ``forest_rows`` picks. Effects whose Holm-adjusted p is below alpha are filled in
    the highlight colour."""
    if not rows:
        return None
    scales = list(dict.fromkeys(r.scale for r in rows))
    heights = [sum(1 for r in rows if r.scale == s) for s in scales]
    figure = new_figure(9.0, 0.9 + 0.3 * sum(heights) + 0.5 * len(scales))
    grid = figure.add_gridspec(len(scales), 1, height_ratios=heights)
    for index, scale in enumerate(scales):
        axes = figure.add_subplot(grid[index, 0])
        members = [r for r in rows if r.scale == scale][::-1]
        for y, row in enumerate(members):
            p = adjusted_p(row)
            detected = p is not None and p < alpha
            colour = HIGHLIGHT if detected else PALETTE[0]
            low, high = row.ci_low, row.ci_high
            if low is not None and high is not None:
                axes.hlines(y, low, high, color=colour, linewidth=2)
            axes.plot(
                [float(row.estimate or 0.0)],
                [y],
                "o" if detected else "s",
                color=colour,
                markerfacecolor=colour if detected else "white",
                markersize=6.5,
            )
        axes.axvline(0.0, color=MUTED, linestyle="--", linewidth=1)
        axes.set_yticks(range(len(members)), [_effect_label(r) for r in members], fontsize=8.5)
        axes.set_ylim(-0.7, len(members) - 0.3)
        axes.set_xlabel(scale or "estimate")
        light_grid(axes, "x")
    return embed(figure, "Forest plot of effect estimates with confidence intervals")


@styled
def bradley_terry_figure(models: Sequence[BradleyTerryFit]) -> EmbeddedFigure | None:
    """Bradley-Terry abilities per identity (and the position term) with intervals."""
    usable = [m for m in models if m.abilities]
    if not usable:
        return None
    tallest = max(len(m.abilities) + 1 for m in usable)
    figure = new_figure(4.0 * len(usable) + 0.6, 0.9 + 0.42 * tallest)
    for index, model in enumerate(usable):
        axes = figure.add_subplot(1, len(usable), index + 1)
        entries: list[tuple[str, BradleyTerryAbility | BradleyTerryTerm]] = [
            (a.identity, a) for a in model.abilities
        ]
        if model.position is not None:
            entries.append(("first position", model.position))
        colours = colour_map([name for name, _ in entries])
        for y, (name, entry) in enumerate(entries):
            colour = MUTED if name == "first position" else colours[name]
            if entry.ci_low is not None and entry.ci_high is not None:
                axes.hlines(y, entry.ci_low, entry.ci_high, color=colour, linewidth=2)
            if entry.estimate is not None:
                axes.plot([entry.estimate], [y], "o", color=colour, markersize=7)
        axes.axvline(0.0, color=MUTED, linestyle="--", linewidth=1)
        axes.set_yticks(range(len(entries)), [name for name, _ in entries])
        axes.set_ylim(-0.6, len(entries) - 0.4)
        axes.invert_yaxis()
        axes.set_title(f"{model.category} (n={model.n})")
        axes.set_xlabel("log-odds ability")
        light_grid(axes, "x")
    return embed(figure, "Bradley-Terry identity abilities and position term with intervals")
