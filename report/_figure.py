"""The figures' common ground: matplotlib on the Agg canvas, one style, PNG data URIs.

Figures are built on ``matplotlib.figure.Figure`` directly (never pyplot), so rendering leaves
no global state behind and needs no display. Figure functions return ``None`` when there is
nothing to draw, so a report can say what is missing instead of showing an empty axis.
"""

from __future__ import annotations

import base64
import functools
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, ParamSpec, TypeVar

import matplotlib
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.typing import RcKeyType

from fairpanel.report._figure_workers import EmbeddedFigure

__all__ = [
    "HIGHLIGHT",
    "INK",
    "MUTED",
    "PALETTE",
    "EmbeddedFigure",
    "IntervalBar",
    "colour_map",
    "embed",
    "interval_bars",
    "legend_beside",
    "light_grid",
    "new_figure",
    "percent_axis",
    "styled",
]

# Okabe-Ito: distinguishable under the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
HIGHLIGHT = "#D55E00"
MUTED = "#6B7280"
INK = "#1F2937"
_DPI = 144
_CSS_DPI = 96
_STYLE: dict[RcKeyType, Any] = {
    "font.size": 9.5,
    "axes.edgecolor": "#9CA3AF",
    "axes.labelcolor": INK,
    "axes.titlesize": 10.5,
    "axes.titleweight": "bold",
    "xtick.color": INK,
    "ytick.color": INK,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


_P = ParamSpec("_P")
_R = TypeVar("_R")


def styled(draw: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run a figure function under the report's style, restoring matplotlib's settings after."""

    @functools.wraps(draw)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with matplotlib.rc_context(_STYLE):
            return draw(*args, **kwargs)

    return wrapper


def new_figure(width: float, height: float, *, constrained: bool = True) -> Figure:
    """A white figure on an Agg canvas. Constrained layout places labels automatically; the
    many-panel grid opts out and sets its margins, which renders faster."""
    figure = Figure(
        figsize=(width, height), facecolor="white", layout="constrained" if constrained else None
    )
    FigureCanvasAgg(figure)
    return figure


def embed(figure: Figure, alt: str) -> EmbeddedFigure:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=_DPI, metadata={"Software": None})
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    pixels = figure.get_size_inches() * _CSS_DPI
    return EmbeddedFigure(
        uri=f"data:image/png;base64,{encoded}",
        alt=alt,
        width=round(float(pixels[0])),
        height=round(float(pixels[1])),
    )


def colour_map(names: Sequence[str]) -> dict[str, str]:
    return {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(names)}


def light_grid(axes: Axes, axis: Literal["x", "y"] = "y") -> None:
    axes.grid(axis=axis, color="#E5E7EB", linewidth=0.8)
    axes.set_axisbelow(True)


def legend_beside(
    figure: Figure, handles: Sequence[Any], labels: Sequence[str], *, title: str | None = None
) -> None:
    """The figure's legend outside its panels, at the upper right, so it covers no data."""
    figure.legend(
        handles, labels, title=title, fontsize=8, frameon=False, loc="outside right upper"
    )


def percent_axis(axes: Axes, axis: Literal["x", "y"] = "y") -> None:
    """Tick labels of a share axis as whole percentages."""
    target = axes.yaxis if axis == "y" else axes.xaxis
    target.set_major_formatter(lambda value, _pos: f"{value:.0%}")


@dataclass(frozen=True)
class IntervalBar:
    """One estimate with its interval, drawn at ``position`` on the category axis.

    ``hollow`` draws the estimate as an open square: the figures use it for estimates whose
    test or interval found nothing, so a filled dot is the one the eye should go to.
    """

    position: float
    estimate: float
    low: float | None
    high: float | None
    colour: str
    hollow: bool = False

    @classmethod
    def tested(
        cls,
        position: float,
        estimate: float,
        low: float | None,
        high: float | None,
        called: bool,
    ) -> IntervalBar:
        """A tested estimate as the figures draw one: vermillion and filled where its test
        called it, blue and hollow where it did not."""
        return cls(position, estimate, low, high, HIGHLIGHT if called else PALETTE[0], not called)


def interval_bars(
    axes: Axes,
    bars: Sequence[IntervalBar],
    *,
    horizontal: bool,
    linewidth: float = 2.4,
    markersize: float = 7,
    line_alpha: float | None = None,
) -> None:
    """Estimates as markers with their intervals as bars: vertical bars over categories on the
    x axis, or (``horizontal``) horizontal bars over categories on the y axis. A bar without
    both ends draws the marker alone."""
    for bar in bars:
        if bar.low is not None and bar.high is not None:
            draw = axes.hlines if horizontal else axes.vlines
            draw(
                bar.position,
                bar.low,
                bar.high,
                color=bar.colour,
                linewidth=linewidth,
                alpha=line_alpha,
            )
        point = ([bar.estimate], [bar.position]) if horizontal else ([bar.position], [bar.estimate])
        axes.plot(
            *point,
            "s" if bar.hollow else "o",
            color=bar.colour,
            markerfacecolor="white" if bar.hollow else bar.colour,
            markersize=markersize,
        )
