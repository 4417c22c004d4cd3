"""The study reports' figures, from the blocks each study writes into ``results.json``.

Same canvas and style as the judge-panel figures (``_figure``); every function returns
``None`` when its block has nothing to draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.patches import Patch

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
from fairpanel.report._numbers import format_p

__all__ = [
    "award_counts_figure",
    "award_share_figure",
    "bfs_difference_figure",
    "bfs_forest_figure",
    "bscore_judge_figure",
    "bscore_questions_figure",
    "followup_figure",
    "label_bias_figure",
    "level_name",
    "verification_figure",
]

CALIBRATIONS = (("before", "none"), ("contextual", "contextual"), ("leave_one_out", "LOO"))


def level_name(level: Any) -> str:
    return "pooled" if level == "all" else f"level {level}"


def _percent_axis(axes: Any, axis: str = "y") -> None:
    target = axes.yaxis if axis == "y" else axes.xaxis
    target.set_major_formatter(lambda value, _pos: f"{value:.0%}")


# --- award audit --------------------------------------------------------------------------------


@styled
def award_share_figure(
    choices: Sequence[Mapping[str, Any]], tested: str, alpha: float
) -> EmbeddedFigure | None:
    """Share of decided answers naming a student of the tested group, per level and pooled,
    with the exact (Clopper-Pearson) interval and the binomial p against 50% above each."""
    rows = [c for c in choices if c.get("share") is not None]
    if not rows:
        return None
    figure = new_figure(max(5.5, 1.6 + 1.1 * len(rows)), 3.6)
    axes = figure.add_subplot()
    for x, row in enumerate(rows):
        share, low, high = float(row["share"]), row.get("ci_low"), row.get("ci_high")
        p = row.get("p_bonferroni", row.get("p_exact"))
        hit = p is not None and float(p) < alpha
        colour = HIGHLIGHT if hit else PALETTE[0]
        if row.get("level") == "all":
            axes.axvline(x - 0.5, color="#D1D5DB", linewidth=1)
        if low is not None and high is not None:
            axes.vlines(x, low, high, color=colour, linewidth=2.6)
        axes.plot(
            [x],
            [share],
            "o" if hit else "s",
            color=colour,
            markersize=8,
            markerfacecolor=colour if hit else "white",
        )
        axes.annotate(
            f"{share:.0%}\np {format_p(row.get('p_exact'))}",
            (x, high or share),
            xytext=(0, 6),
            textcoords="offset points",
            ha="center",
            fontsize=8,
            color=INK,
        )
    axes.axhline(0.5, color=MUTED, linestyle="--", linewidth=1)
    axes.set_xticks(range(len(rows)), [level_name(r.get("level")) for r in rows])
    axes.set_xlim(-0.6, len(rows) - 0.4)
    axes.set_ylim(0, 1.12)
    _percent_axis(axes)
    axes.set_ylabel(f"share choosing {tested}")
    light_grid(axes)
    return embed(figure, f"Share of answers choosing {tested} per level with exact intervals")


@styled
def award_counts_figure(
    choices: Sequence[Mapping[str, Any]], groups: Sequence[str]
) -> EmbeddedFigure | None:
    """Every answer per level: choices of each group and equivocal answers, as shares."""
    rows = [c for c in choices if sum((c.get("counts") or {}).values())]
    if not rows:
        return None
    kinds = [*groups, "equivocal"]
    colours = {**colour_map(list(groups)), "equivocal": "#BDBDBD"}
    figure = new_figure(7.5, 1.0 + 0.42 * len(rows))
    axes = figure.add_subplot()
    for y, row in enumerate(rows):
        counts = row["counts"]
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
    axes.set_yticks(range(len(rows)), [level_name(r.get("level")) for r in rows])
    axes.invert_yaxis()
    axes.set_xlim(0, 1)
    _percent_axis(axes, "x")
    axes.set_xlabel("share of all answers")
    axes.legend(ncol=len(kinds), loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
    return embed(figure, "Answers per level: each group's choices and the equivocal share")


@styled
def followup_figure(followup: Sequence[Mapping[str, Any]]) -> EmbeddedFigure | None:
    """Follow-up explanation codes by the group chosen, one panel per level, with the
    chi-square test of independence in each title (when every cell held enough answers)."""
    rows = [f for f in followup if f.get("observed")]
    if not rows:
        return None
    groups = list(rows[0]["observed"])
    codes = list(dict.fromkeys(c for f in rows for g in f["observed"].values() for c in g))
    colours = colour_map(groups)
    figure = new_figure(max(6.0, 2.3 * len(rows)), 3.0)
    panels = figure.subplots(1, len(rows), sharey=True, squeeze=False)[0]
    width = 0.8 / len(groups)
    for axes, row in zip(panels, rows, strict=True):
        for g, group in enumerate(groups):
            observed = row["observed"].get(group) or {}
            total = sum(observed.values()) or 1
            xs = np.arange(len(codes)) + (g - (len(groups) - 1) / 2) * width
            shares = [observed.get(code, 0) / total for code in codes]
            axes.bar(xs, shares, width=width, color=colours[group], label=group)
        tested = row.get("tested") and row.get("p_value") is not None
        test = f"χ² p {format_p(row.get('p_value'))}" if tested else "not tested"
        axes.set_title(f"{level_name(row.get('level'))}\n{test}", fontsize=9)
        axes.set_xticks(range(len(codes)), codes, rotation=30, ha="right", fontsize=8)
        light_grid(axes)
    _percent_axis(panels[0])
    panels[0].set_ylabel("share of follow-up answers")
    figure.legend(
        *panels[0].get_legend_handles_labels(),
        title="chosen",
        fontsize=8,
        frameon=False,
        loc="outside right upper",
    )
    return embed(figure, "Follow-up explanation codes by chosen group per level")


# --- B-score ------------------------------------------------------------------------------------


@styled
def bscore_questions_figure(questions: Sequence[Mapping[str, Any]]) -> EmbeddedFigure | None:
    """Each question's B-score of its top single-turn answer, coloured by category: positive
    when the model picks that answer more often alone than with its earlier answers in view."""
    rows = [q for q in questions if (q.get("top_choice") or {}).get("b") is not None]
    if not rows:
        return None
    categories = list(dict.fromkeys(str(q.get("category")) for q in rows))
    colours = colour_map(categories)
    figure = new_figure(8.0, 1.0 + 0.22 * len(rows))
    axes = figure.add_subplot()
    for y, question in enumerate(rows):
        b = float(question["top_choice"]["b"])
        axes.barh(y, b, color=colours[str(question.get("category"))], height=0.7)
    axes.axvline(0, color=MUTED, linewidth=1)
    axes.set_yticks(range(len(rows)), [str(q.get("question")) for q in rows], fontsize=7)
    axes.invert_yaxis()
    axes.set_xlabel("B of the top single-turn answer (P single − P multi)")
    handles = [Patch(color=colours[c], label=c) for c in categories]
    figure.legend(handles=handles, fontsize=8, frameon=False, loc="outside right upper")
    light_grid(axes, "x")
    return embed(figure, "B-score of each question's top single-turn answer by category")


@styled
def bscore_judge_figure(pairs: Sequence[Mapping[str, Any]]) -> EmbeddedFigure | None:
    """Judge verdicts: B per identity and per shown position, with ±1 SD over runs."""
    rows = [p for p in pairs if p.get("b") is not None]
    if not rows:
        return None
    figure = new_figure(7.0, 1.0 + 0.36 * len(rows))
    axes = figure.add_subplot()
    kinds = colour_map(list(dict.fromkeys(str(r.get("kind")) for r in rows)))
    for y, row in enumerate(rows):
        b, sd = float(row["b"]), row.get("b_sd")
        colour = kinds[str(row.get("kind"))]
        if sd is not None:
            axes.hlines(y, b - float(sd), b + float(sd), color=colour, linewidth=2.2, alpha=0.6)
        axes.plot([b], [y], "o", color=colour, markersize=7)
    axes.axvline(0, color=MUTED, linestyle="--", linewidth=1)
    labels = [f"{r.get('pair')} · {r.get('kind')}: {r.get('label')}" for r in rows]
    axes.set_yticks(range(len(rows)), labels, fontsize=8.5)
    axes.invert_yaxis()
    axes.set_xlabel("B (share won alone − share won with earlier verdicts in view), ±1 SD")
    light_grid(axes, "x")
    return embed(figure, "Judge verdict B-score per identity and position")


@styled
def verification_figure(verification: Mapping[str, Any]) -> EmbeddedFigure | None:
    """Pooled answer-verification accuracy of each metric alone, with B added, and B alone."""
    rules = verification.get("rules") or []
    if not rules:
        return None
    names, alone, with_b = [], [], []
    for rule in rules:
        names.append(str(rule.get("metric")))
        alone.append(float((rule.get("alone") or {}).get("accuracy", {}).get("pooled") or 0))
        with_b.append(float((rule.get("with_b") or {}).get("accuracy", {}).get("pooled") or 0))
    figure = new_figure(6.5, 3.2)
    axes = figure.add_subplot()
    xs = np.arange(len(names))
    axes.bar(xs - 0.2, alone, width=0.4, color=PALETTE[4], label="metric alone")
    axes.bar(xs + 0.2, with_b, width=0.4, color=PALETTE[0], label="metric and B")
    b_alone = ((verification.get("b_alone") or {}).get("accuracy") or {}).get("pooled")
    if b_alone is not None:
        axes.axhline(
            float(b_alone),
            color=HIGHLIGHT,
            linestyle="--",
            linewidth=1.2,
            label=f"B alone ({float(b_alone):.0%})",
        )
    for x, (a, b) in enumerate(zip(alone, with_b, strict=True)):
        axes.text(x - 0.2, a + 0.01, f"{a:.0%}", ha="center", fontsize=8)
        axes.text(x + 0.2, b + 0.01, f"{b:.0%}", ha="center", fontsize=8)
    axes.set_xticks(xs, names)
    axes.set_ylim(0, 1.1)
    _percent_axis(axes)
    axes.set_ylabel(f"pooled accuracy (n={verification.get('n', '?')})")
    axes.legend(fontsize=8, frameon=False, loc="upper left", ncol=3)
    light_grid(axes)
    return embed(figure, "Answer verification accuracy with and without the B-score")


# --- label bias ---------------------------------------------------------------------------------


@styled
def label_bias_figure(views: Sequence[Mapping[str, Any]]) -> EmbeddedFigure | None:
    """RSD and BiasScore of each label view before calibration, contextual and leave-one-out
    (lower is less label bias); RSD needs reference labels, so score-level views show none."""
    rows = [v for v in views if v.get("before")]
    if not rows:
        return None
    figure = new_figure(9.5, 1.2 + 0.55 * len(rows))
    panels = figure.subplots(1, 2, sharey=True)
    colours = colour_map([label for _, label in CALIBRATIONS])
    height = 0.8 / len(CALIBRATIONS)
    for axes, metric, title in zip(
        panels, ("rsd", "bias_score"), ("RSD", "BiasScore"), strict=True
    ):
        for c, (key, label) in enumerate(CALIBRATIONS):
            for y, view in enumerate(rows):
                value = (view.get(key) or {}).get(metric)
                if value is None:
                    continue
                offset = y + (c - 1) * height
                axes.barh(
                    offset,
                    float(value),
                    height=height,
                    color=colours[label],
                    label=label if y == 0 else None,
                )
        axes.set_title(title)
        axes.set_xlabel(f"{title} (0 = no label bias)")
        light_grid(axes, "x")
    panels[0].set_yticks(range(len(rows)), [str(v.get("name")) for v in rows], fontsize=8.5)
    panels[0].invert_yaxis()
    figure.legend(
        *panels[0].get_legend_handles_labels(),
        title="calibration",
        fontsize=8,
        frameon=False,
        loc="outside right upper",
    )
    return embed(figure, "RSD and BiasScore per label view before and after calibration")


# --- BiasFreeBench ------------------------------------------------------------------------------


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
        for y, cell in enumerate(cells):
            if not cell or cell.get("bfs") is None:
                continue
            colour = MUTED if y == 0 else PALETTE[0]
            low, high = cell.get("ci_low"), cell.get("ci_high")
            if low is not None and high is not None:
                axes.hlines(y, low, high, color=colour, linewidth=2.4)
            axes.plot([cell["bfs"]], [y], "o", color=colour, markersize=7)
        if cells[0] and cells[0].get("bfs") is not None:
            axes.axvline(cells[0]["bfs"], color=MUTED, linestyle="--", linewidth=1)
        axes.set_xlim(0, 1)
        _percent_axis(axes, "x")
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
    for y, treatment in enumerate(rows):
        versus = treatment["vs_baseline"]
        low, high = versus.get("ci_low"), versus.get("ci_high")
        moved = low is not None and high is not None and (low > 0 or high < 0)
        colour = HIGHLIGHT if moved else PALETTE[0]
        if low is not None and high is not None:
            axes.hlines(y, low, high, color=colour, linewidth=2.4)
        axes.plot(
            [versus["difference"]],
            [y],
            "o" if moved else "s",
            color=colour,
            markerfacecolor=colour if moved else "white",
            markersize=7,
        )
        axes.annotate(
            f"{versus['difference']:+.1%} · McNemar p {format_p(versus.get('p_mcnemar'))}",
            (versus["difference"], y),
            xytext=(0, 7),
            textcoords="offset points",
            ha="center",
            fontsize=8,
            color=INK,
        )
    axes.axvline(0, color=MUTED, linestyle="--", linewidth=1)
    axes.set_yticks(range(len(rows)), [str(t.get("name")) for t in rows], fontsize=8.5)
    axes.set_ylim(-0.7, len(rows) - 0.2)
    axes.invert_yaxis()
    axes.xaxis.set_major_formatter(lambda value, _pos: f"{value:+.0%}")
    axes.set_xlabel("Bias-Free Score minus the baseline's (same items)")
    light_grid(axes, "x")
    return embed(figure, "Change in Bias-Free Score from the baseline per mitigation")
