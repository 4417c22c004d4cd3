"""Runs that judged the same candidates on the same trials, compared trial by trial.

When every run showed its judges the very same candidate responses in the very same trials
(``fairpanel.run_folder`` decides that from the stores), the runs' panels stand to each other
as the panels of one multi-panel run do: each unit (scenario, answers, order, arm, treatment,
signal, replicate) was judged by every one of them. So they are compared the way those panels
are, by ``panel_differences`` (per matched unit, tested over base scenarios, one weighted Holm
over everything) and ranked by ``panel_ranks`` (the paired cluster bootstrap), instead of as
independent estimates (``compare_runs``), which counts every scenario's own pull toward a label
twice and misses differences of the size the pairing finds.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from fairpanel.analysis._frames import jsonable
from fairpanel.analysis.panels._compare import sort_block
from fairpanel.analysis.panels._differences import panel_differences
from fairpanel.analysis.panels._leaderboard import RunInputs, leaderboard_row, ranked_rows
from fairpanel.analysis.panels._ranks import panel_ranks
from fairpanel.analysis.results import PanelComparison, PanelDifferenceRow
from fairpanel.analysis.tools import DEFAULT_BOOTSTRAP
from fairpanel.analysis.verdict import ArmFrames

__all__ = ["compare_paired"]

_SHOWN = 5
"""Called differences spelled out per pair of panels in the summary; compare.json has all."""


def _pair_lines(comparison: PanelComparison, a: str, b: str) -> list[str]:
    """What the summary says about one pair of panels: the differences the procedure called, or that
    none was and the one nearest to being called."""
    mine = [row for row in comparison.differences if (row.panel_a, row.panel_b) == (a, b)]
    called = sorted((r for r in mine if r.called), key=lambda r: float(r.p_adjusted or 1.0))
    if called:
        lines = [row.sentence for row in called[:_SHOWN]]
        if len(called) > _SHOWN:
            lines.append(
                f"... and {len(called) - _SHOWN} more differences called between {a} and {b} "
                "(compare.json, paired.differences)."
            )
        return lines
    tested = [row for row in mine if row.p_value is not None]
    if not tested:
        return [f"{a} and {b} share no unit on which a difference could be tested."]
    nearest = min(tested, key=_p_value)
    return [
        f"No difference between {a} and {b} is called ({len(tested)} tested, paired trial by "
        f"trial); the nearest: {nearest.sentence}"
    ]


def _p_value(row: PanelDifferenceRow) -> float:
    return float(row.p_value if row.p_value is not None else 1.0)


def _summary(comparison: PanelComparison, names: Sequence[str]) -> list[str]:
    lines: list[str] = []
    for a, b in itertools.combinations(names, 2):
        lines += _pair_lines(comparison, a, b)
    lines.append(
        f"Paired trial by trial: every run judged the same candidate responses on the same "
        f"trials, so each difference is panel b minus panel a on the units both judged; "
        f"{comparison.procedure}."
    )
    return lines


def compare_paired(
    panels: Sequence[RunInputs],
    frames_by_panel: Mapping[str, ArmFrames],
    *,
    sort: str = "identity_effect",
    alpha: float = 0.05,
    reason: str = "",
    bootstrap_reps: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
) -> dict[str, Any]:
    """compare.json's content for runs compared trial by trial.

    ``panels`` are the leaderboard's rows to be (a one-panel run as itself, each panel of a
    multi-panel run as ``<run>/<panel>``), named as the keys of ``frames_by_panel``: each
    panel's frames of the main arm under the baseline treatment. ``reason`` says why the runs
    could be paired. The leaderboard rows carry the panel's ``rank_interval``; ``paired`` holds
    every paired difference (one weighted Holm procedure) and ``comparisons`` (the independent
    comparison's rows) stays empty.
    """
    sorted_by = sort_block(sort)
    names = [panel.name for panel in panels]
    if len(set(names)) != len(names) or set(names) != set(frames_by_panel):
        raise ValueError(f"panel names must differ and match the frames: {', '.join(names)}")
    ordered = {name: frames_by_panel[name] for name in names}
    comparison = panel_differences(ordered, alpha=alpha, bootstrap_reps=bootstrap_reps, seed=seed)
    ranks = panel_ranks(ordered, reps=bootstrap_reps, seed=seed)
    rows = ranked_rows([leaderboard_row(panel) for panel in panels], sort)
    for row in rows:
        row["rank_interval"] = ranks[row["run"]].model_dump(mode="json")
    paired = comparison.model_dump(mode="json")
    paired["ranks"] = [ranks[name].model_dump(mode="json") for name in names]
    result: dict[str, Any] = jsonable(
        {
            "alpha": alpha,
            "sort": sorted_by,
            "pairing": "paired",
            "pairing_reason": reason,
            "same_design": True,
            "design_differences": [],
            "leaderboard": rows,
            "comparisons": [],
            "paired": paired,
            "summary": _summary(comparison, names),
            "method": (
                "each pair of panels (a one-panel run, or each panel of a multi-panel run) on "
                "the units both judged, matched on the design (scenario, responses, order, "
                "arm, treatment, signal, replicate), panel b minus panel a: every primary "
                "contrast, position bias (order-swapped twins) and parse failures by a cluster "
                "t test over base scenarios, agreement by a paired cluster bootstrap; "
                f"{comparison.procedure}; ranks of each panel's largest absolute primary effect "
                "with rank intervals from a paired cluster bootstrap over base scenarios"
            ),
        }
    )
    return result
