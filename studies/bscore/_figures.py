"""B-score's figures, from its ``questions``, ``judge_pairs`` and ``verification`` blocks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

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
    light_grid,
    new_figure,
    percent_axis,
    styled,
)

__all__ = ["bscore_judge_figure", "bscore_questions_figure", "verification_figure"]


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
    bars = []
    for y, row in enumerate(rows):
        b, sd = float(row["b"]), row.get("b_sd")
        low, high = (None, None) if sd is None else (b - float(sd), b + float(sd))
        bars.append(IntervalBar(y, b, low, high, kinds[str(row.get("kind"))]))
    interval_bars(axes, bars, horizontal=True, linewidth=2.2, line_alpha=0.6)
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
    percent_axis(axes)
    axes.set_ylabel(f"pooled accuracy (n={verification.get('n', '?')})")
    axes.legend(fontsize=8, frameon=False, loc="upper left", ncol=3)
    light_grid(axes)
    return embed(figure, "Answer verification accuracy with and without the B-score")
