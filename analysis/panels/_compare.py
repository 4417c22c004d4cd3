"""A leaderboard of judge models (or panels) run on the same design, and which of their
differences are larger than the noise of either run.

Everything here reads what a run folder already holds (results.json, summary.json,
experiment.resolved.json, manifest.json), so runs made at different times compare without
touching their stores. Two runs' effects are compared as independent estimates: the difference
of the two estimates with a normal interval whose standard error comes from each run's own
interval (half its width over z). Runs on the same scenarios share responses, which makes their
estimates positively correlated and this interval conservative (too wide), never too narrow.
All comparisons of one invocation form one Holm family, so asking about more effects does not
manufacture "real" differences.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.stats import norm

from fairpanel.analysis._frames import jsonable
from fairpanel.analysis.panels._leaderboard import (
    SCORE_POINTS,
    SORT_COLUMNS,
    RunInputs,
    leaderboard_row,
    panel_effects,
    ranked_rows,
)
from fairpanel.analysis.results import EffectRow, PositionBiasBlock
from fairpanel.analysis.tools import holm

__all__ = [
    "DESIGN_FIELDS",
    "compare_runs",
    "design_differences",
    "difference_of_estimates",
    "mark_real_differences",
    "sort_block",
]

DESIGN_FIELDS = (
    "protocols",
    "scenarios",
    "identities",
    "pair",
    "arms",
    "treatments",
    "replicates",
)
"""The parts of an experiment that decide which trials run; runs that differ in any of them do
not answer the same questions."""


def _design_of(run: RunInputs) -> dict[str, Any]:
    experiment = run.experiment or {}
    design = {name: experiment.get(name) for name in DESIGN_FIELDS}
    design["trials"] = run.typed.n_trials if "n_trials" in run.results else None
    return design


def design_differences(runs: Sequence[RunInputs]) -> list[dict[str, Any]]:
    """Each design field (and the trial count) on which the runs differ, with every run's value;
    empty when they ran the same trials."""
    designs = [_design_of(run) for run in runs]
    differences = []
    for name in (*DESIGN_FIELDS, "trials"):
        values = [design[name] for design in designs]
        if any(value != values[0] for value in values[1:]):
            by_run = {run.name: value for run, value in zip(runs, values, strict=True)}
            differences.append({"field": name, "values": by_run})
    return differences


def _half_width_se(low: float, high: float, confidence: float) -> float:
    return (high - low) / (2.0 * float(norm.ppf(0.5 + confidence / 2.0)))


def difference_of_estimates(
    a: tuple[float, float, float],
    b: tuple[float, float, float],
    confidence: float = 0.95,
) -> tuple[float, float, float, float | None]:
    """(difference, ci_low, ci_high, two-sided p) of ``a - b`` from two independent estimates
    given as (estimate, ci_low, ci_high) at ``confidence``; p is None when neither interval has
    any width (nothing to say how noisy the estimates are)."""
    se = math.hypot(_half_width_se(a[1], a[2], confidence), _half_width_se(b[1], b[2], confidence))
    difference = a[0] - b[0]
    if se <= 0.0:
        return difference, difference, difference, None
    z = float(norm.ppf(0.5 + confidence / 2.0))
    p_value = float(2.0 * norm.sf(abs(difference) / se))
    return difference, difference - z * se, difference + z * se, p_value


def _what(effect: EffectRow, other: EffectRow) -> str:
    """The compared effect in words; a win rate or win share says how it treats ties and gives
    each run's tie share, since two runs can tie very different shares of pairs."""
    where = f"{effect.category} {effect.metric}" if effect.metric != "win_rate" else effect.category
    ties = ""
    if effect.tie_share is not None or other.tie_share is not None:
        shares = " / ".join(
            "?" if share is None else f"{float(share):.0%}"
            for share in (effect.tie_share, other.tie_share)
        )
        # A win rate leaves ties out; a label swap's win share counts them half.
        counted = "ties count half" if effect.scale == "win share - 0.5" else "among decided pairs"
        ties = f"; {counted}, ties {shares}"
    return f"{where} effect ({effect.contrast}, {effect.protocol} protocol{ties})"


_Estimate = tuple[float | None, float | None, float | None, float]
"""(estimate, ci_low, ci_high, confidence) of one run's side of a comparison."""


def _of_effect(effect: EffectRow) -> _Estimate:
    return effect.estimate, effect.ci_low, effect.ci_high, float(effect.confidence or 0.95)


def _of_position(position: PositionBiasBlock) -> _Estimate:
    rate, low, high = position.first_position_win_rate, position.ci_low, position.ci_high
    return rate, low, high, float(position.confidence or 0.95)


def _comparisons(runs: Sequence[RunInputs], labels: Mapping[str, str]) -> list[dict[str, Any]]:
    rows = []
    for a, b in itertools.combinations(runs, 2):
        b_effects = {e.id: e for e in panel_effects(b.typed)}
        pairs: list[tuple[str, str, str, _Estimate, _Estimate]] = []
        for effect in panel_effects(a.typed):
            other = b_effects.get(effect.id)
            if other is not None:
                what = _what(effect, other)
                pairs.append((effect.id, what, effect.scale, _of_effect(effect), _of_effect(other)))
        pa, pb = a.typed.position_bias, b.typed.position_bias
        if (
            pa is not None
            and pb is not None
            and pa.first_position_win_rate is not None
            and pb.first_position_win_rate is not None
        ):
            what = "first-position win rate"
            pairs.append(("position_bias", what, "win rate", _of_position(pa), _of_position(pb)))
        for effect_id, what, scale, ea, eb in pairs:
            estimate_a, low_a, high_a, confidence = ea
            estimate_b, low_b, high_b, _ = eb
            if (
                estimate_a is None
                or estimate_b is None
                or low_a is None
                or high_a is None
                or low_b is None
                or high_b is None
            ):
                continue
            difference, low, high, p_value = difference_of_estimates(
                (float(estimate_a), float(low_a), float(high_a)),
                (float(estimate_b), float(low_b), float(high_b)),
                confidence,
            )
            rows.append(
                {
                    "effect": effect_id,
                    "what": what,
                    "scale": scale,
                    "run_a": a.name,
                    "run_b": b.name,
                    "judge_a": labels[a.name],
                    "judge_b": labels[b.name],
                    "estimate_a": float(estimate_a),
                    "estimate_b": float(estimate_b),
                    "difference": difference,
                    "ci_low": low,
                    "ci_high": high,
                    "confidence": confidence,
                    "p_value": p_value,
                }
            )
    return rows


def mark_real_differences(rows: list[dict[str, Any]], alpha: float) -> None:
    """Holm over ``rows``' p-values, and ``real`` where the adjusted p is below ``alpha`` and the
    interval excludes 0: both, so a difference the normal interval cannot separate from 0 is never
    called on a p-value alone."""
    tested = [row for row in rows if row["p_value"] is not None]
    if tested:
        adjusted = holm(np.array([row["p_value"] for row in tested], dtype=float))
        for row, p_holm in zip(tested, adjusted, strict=True):
            row["p_holm"] = float(p_holm)
    for row in rows:
        row.setdefault("p_holm", None)
        row["real"] = (
            row["p_holm"] is not None
            and row["p_holm"] < alpha
            and not row["ci_low"] <= 0.0 <= row["ci_high"]
        )


def _unit(scale: str) -> str:
    return " points" if scale == SCORE_POINTS else f" ({scale})"


def _sentence(row: Mapping[str, Any]) -> str:
    a, b = row["run_a"], row["run_b"]
    interval = f"{row['confidence']:.0%} CI {row['ci_low']:.2f} to {row['ci_high']:.2f}" + (
        f", Holm p={row['p_holm']:.2g}" if row["p_holm"] is not None else ""
    )
    estimates = f"{a}: {row['estimate_a']:+.2f}, {b}: {row['estimate_b']:+.2f}"
    if not row["real"]:
        return (
            f"{row['what']}: {a} and {b} differ by {row['difference']:+.2f}{_unit(row['scale'])}"
            f" ({interval}; {estimates}), within noise."
        )
    larger, smaller = (a, b) if abs(row["estimate_a"]) > abs(row["estimate_b"]) else (b, a)
    return (
        f"{larger}'s {row['what']} is larger than {smaller}'s: difference "
        f"{row['difference']:+.2f}{_unit(row['scale'])} ({interval}; {estimates})."
    )


def _summary(
    runs: Sequence[RunInputs],
    comparisons: Sequence[Mapping[str, Any]],
    mismatches: Sequence[Mapping[str, Any]],
    alpha: float,
) -> list[str]:
    lines = []
    if mismatches:
        fields = ", ".join(str(m["field"]) for m in mismatches)
        lines.append(
            f"WARNING: the runs do not share one design (they differ in {fields}); their "
            "numbers answer different questions, so this comparison is not like for like."
        )
    if len(runs) < 2:
        lines.append("Only one run: nothing to compare.")
        return lines
    tested = sum(1 for row in comparisons if row["p_value"] is not None)
    for a, b in itertools.combinations(runs, 2):
        mine = [r for r in comparisons if r["run_a"] == a.name and r["run_b"] == b.name]
        real = sorted((r for r in mine if r["real"]), key=lambda r: float(r["p_holm"]))
        if real:
            lines.extend(_sentence(row) for row in real[:5])
            if len(real) > 5:
                lines.append(
                    f"... and {len(real) - 5} more real differences between {a.name} and "
                    f"{b.name} (compare.json)."
                )
            continue
        with_p = [r for r in mine if r["p_value"] is not None]
        if not with_p:
            lines.append(f"{a.name} and {b.name} share no effect with an interval to compare.")
            continue
        widest = max(with_p, key=lambda r: abs(float(r["difference"])))
        lines.append(
            f"No difference between {a.name} and {b.name} exceeds noise ({len(with_p)} "
            f"comparisons); the largest: {_sentence(widest)}"
        )
    lines.append(
        f"A difference is called real when its Holm-adjusted p < {alpha:g} over all {tested} "
        "comparisons here and its interval excludes zero; intervals treat the runs as "
        "independent (conservative for runs on the same scenarios)."
    )
    return lines


def sort_block(sort: str) -> dict[str, str]:
    """compare.json's ``sort``: the column, what it sorts by and which way; ValueError for a
    column the leaderboard does not have."""
    if sort not in SORT_COLUMNS:
        raise ValueError(f"unknown sort column {sort!r}; known: {', '.join(SORT_COLUMNS)}")
    return {
        "column": sort,
        "by": SORT_COLUMNS[sort][0],
        "order": "larger first" if SORT_COLUMNS[sort][1] else "smaller first",
    }


def compare_runs(
    runs: Sequence[RunInputs],
    *,
    sort: str = "identity_effect",
    alpha: float = 0.05,
    pairing_reason: str = "the runs were compared as independent samples",
) -> dict[str, Any]:
    """compare.json's content: the leaderboard, the design check, every effect difference
    between each pair of runs (as independent estimates; ``pairing_reason`` says why they were
    not paired trial by trial) and the plain-language summary."""
    sorted_by = sort_block(sort)
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        raise ValueError(f"run names must differ: {', '.join(names)}")
    rows = ranked_rows([leaderboard_row(run) for run in runs], sort)
    labels = {row["run"]: row["judge"] for row in rows}
    comparisons = _comparisons(runs, labels)
    mark_real_differences(comparisons, alpha)
    mismatches = design_differences(runs)
    result: dict[str, Any] = jsonable(
        {
            "alpha": alpha,
            "sort": sorted_by,
            "pairing": "independent",
            "pairing_reason": pairing_reason,
            "same_design": not mismatches,
            "design_differences": mismatches,
            "leaderboard": rows,
            "comparisons": comparisons,
            "paired": None,
            "summary": _summary(runs, comparisons, mismatches, alpha),
            "method": (
                "each pair of runs: difference of the two runs' panel-level estimates of the "
                "same contrast (matched by effect id) and of their first-position win rates; "
                "normal interval with the standard error sqrt(se_a^2 + se_b^2), each se = half "
                "the run's interval width / z (independent samples); Holm over every "
                "comparison of this invocation"
            ),
        }
    )
    return result
