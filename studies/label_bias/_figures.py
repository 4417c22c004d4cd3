"""The label-bias figure, from the ``views`` block in results.json."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fairpanel.report import (
    EmbeddedFigure,
    colour_map,
    embed,
    light_grid,
    new_figure,
    styled,
)

__all__ = ["CALIBRATIONS", "label_bias_figure"]


CALIBRATIONS = (("before", "none"), ("contextual", "contextual"), ("leave_one_out", "LOO"))
"""Each view's result blocks, in the order calibration is applied, with their legend names."""


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
