"""B-score's figures, from its ``questions``, ``judge_pairs`` and ``verification`` blocks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.patches import Patch

from fairpanel.report import (
    HIGHLIGHT,
    MUTED,
    PALETTE,
    EmbeddedFigure,
    IntervalBar,
    colour_map,
    embed,
    interval_bars,
    legend_beside,
    light_grid,
    new_figure,
    percent_axis,
    styled,
)
from fairpanel.studies.bscore._readers import JudgePair, QuestionRow, Verification

__all__ = ["bscore_judge_figure", "bscore_questions_figure", "verification_figure"]


@styled
def bscore_questions_figure(questions: Sequence[QuestionRow]) -> EmbeddedFigure | None:
    """Each question's B-score of its top single-turn answer, coloured by category: positive
    when the model picks that answer more often alone than with its earlier answers in view."""
    rows = [(q, q.top_choice.b) for q in questions if q.top_choice.b is not None]
    if not rows:
        return None
    categories = list(dict.fromkeys(q.category for q, _ in rows))
    colours = colour_map(categories)
    figure = new_figure(8.0, 1.0 + 0.22 * len(rows))
    axes = figure.add_subplot()
    for y, (question, b) in enumerate(rows):
        axes.barh(y, b, color=colours[question.category], height=0.7)
    axes.axvline(0, color=MUTED, linewidth=1)
    axes.set_yticks(range(len(rows)), [q.question for q, _ in rows], fontsize=7)
    axes.invert_yaxis()
    axes.set_xlabel("B of the top single-turn answer (P single − P multi)")
    legend_beside(figure, [Patch(color=colours[c], label=c) for c in categories], categories)
    light_grid(axes, "x")
    return embed(figure, "B-score of each question's top single-turn answer by category")


@styled
def bscore_judge_figure(pairs: Sequence[JudgePair]) -> EmbeddedFigure | None:
    """Judge verdicts: B per identity and per shown position, with ±1 SD over runs."""
    rows = [(p, p.b) for p in pairs if p.b is not None]
    if not rows:
        return None
    figure = new_figure(7.0, 1.0 + 0.36 * len(rows))
    axes = figure.add_subplot()
    kinds = colour_map(list(dict.fromkeys(r.kind for r, _ in rows)))
    bars = []
    for y, (row, b) in enumerate(rows):
        sd = row.b_sd
        low, high = (None, None) if sd is None else (b - sd, b + sd)
        bars.append(IntervalBar(y, b, low, high, kinds[row.kind]))
    interval_bars(axes, bars, horizontal=True, linewidth=2.2, line_alpha=0.6)
    axes.axvline(0, color=MUTED, linestyle="--", linewidth=1)
    labels = [f"{r.pair} · {r.kind}: {r.label}" for r, _ in rows]
    axes.set_yticks(range(len(rows)), labels, fontsize=8.5)
    axes.invert_yaxis()
    axes.set_xlabel("B (share won alone − share won with earlier verdicts in view), ±1 SD")
    light_grid(axes, "x")
    return embed(figure, "Judge verdict B-score per identity and position")


@styled
def verification_figure(verification: Verification | None) -> EmbeddedFigure | None:
    """Pooled answer-verification accuracy of each metric alone, with B added, and B alone."""
    if verification is None or not verification.rules:
        return None
    rules = verification.rules
    names = [rule.metric for rule in rules]
    alone = [rule.alone.accuracy.pooled or 0.0 for rule in rules]
    with_b = [rule.with_b.accuracy.pooled or 0.0 for rule in rules]
    figure = new_figure(6.5, 3.2)
    axes = figure.add_subplot()
    xs = np.arange(len(names))
    axes.bar(xs - 0.2, alone, width=0.4, color=PALETTE[4], label="metric alone")
    axes.bar(xs + 0.2, with_b, width=0.4, color=PALETTE[0], label="metric and B")
    b_alone = verification.b_alone.accuracy.pooled
    if b_alone is not None:
        axes.axhline(
            b_alone,
            color=HIGHLIGHT,
            linestyle="--",
            linewidth=1.2,
            label=f"B alone ({b_alone:.0%})",
        )
    for x, (a, b) in enumerate(zip(alone, with_b, strict=True)):
        axes.text(x - 0.2, a + 0.01, f"{a:.0%}", ha="center", fontsize=8)
        axes.text(x + 0.2, b + 0.01, f"{b:.0%}", ha="center", fontsize=8)
    axes.set_xticks(xs, names)
    axes.set_ylim(0, 1.1)
    percent_axis(axes)
    axes.set_ylabel(f"pooled accuracy (n={'?' if verification.n is None else verification.n})")
    axes.legend(fontsize=8, frameon=False, loc="upper left", ncol=3)
    light_grid(axes)
    return embed(figure, "Answer verification accuracy with and without the B-score")
