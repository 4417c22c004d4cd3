"""The label-bias figure, from the ``views`` block in results.json."""

from __future__ import annotations

from collections.abc import Sequence

from fairpanel.report import (
    EmbeddedFigure,
    colour_map,
    embed,
    legend_beside,
    light_grid,
    new_figure,
    styled,
)
from fairpanel.studies.label_bias._readers import CALIBRATIONS, LabelView

__all__ = ["label_bias_figure"]


@styled
def label_bias_figure(views: Sequence[LabelView]) -> EmbeddedFigure | None:
    """RSD and BiasScore of each label view before calibration, contextual and leave-one-out
    (lower is less label bias); RSD needs reference labels, so score-level views show none."""
    rows = [v for v in views if v.before is not None]
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
                scores = view.stage(key)
                value = scores.rsd if metric == "rsd" else scores.bias_score
                if value is None:
                    continue
                offset = y + (c - 1) * height
                axes.barh(
                    offset,
                    value,
                    height=height,
                    color=colours[label],
                    label=label if y == 0 else None,
                )
        axes.set_title(title)
        axes.set_xlabel(f"{title} (0 = no label bias)")
        light_grid(axes, "x")
    panels[0].set_yticks(range(len(rows)), [v.name for v in rows], fontsize=8.5)
    panels[0].invert_yaxis()
    legend_beside(figure, *panels[0].get_legend_handles_labels(), title="calibration")
    return embed(figure, "RSD and BiasScore per label view before and after calibration")
