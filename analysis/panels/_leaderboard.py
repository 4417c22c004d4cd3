"""One leaderboard row per run folder (its judge, largest primary identity effect, primary
detection rate, position bias, the control arms' own verdicts, the manipulations that move the
panel, agreement, parse failures and cost) and the ranking of those rows by one column.

Every value is read from what the run folder already holds (results.json, summary.json,
experiment.resolved.json, manifest.json); ``compare_runs`` adds the differences between runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from fairpanel.analysis.results import ArmResults, EffectRow, RunResults

__all__ = [
    "SCORE_POINTS",
    "SORT_COLUMNS",
    "RunInputs",
    "judge_label",
    "leaderboard_row",
    "panel_effects",
    "primary_effects",
    "ranked_rows",
]

SCORE_POINTS = "score points"
SORT_COLUMNS: dict[str, tuple[str, bool]] = {
    "identity_effect": ("largest absolute primary identity effect", False),
    "detected": ("share of primary tests that detect an effect", False),
    "position_bias": ("distance of the first-position win rate from 50%", False),
    "false_positives": ("share of control arms whose headline called an identity effect", False),
    "bias_profile": ("share of the tested manipulations that move the panel", False),
    "agreement": ("mean Krippendorff alpha", True),
    "parse_failures": ("parse-failure rate", False),
    "cost": ("cost per 1,000 judgments", False),
    "run": ("run folder name", False),
}
"""Column name -> (what it sorts by, whether larger is better). Rows with no value go last."""


@dataclass(frozen=True)
class RunInputs:
    """What one run folder holds; every part but ``results`` may be missing."""

    name: str
    path: str
    results: Mapping[str, Any]
    summary: Mapping[str, Any] | None = None
    experiment: Mapping[str, Any] | None = None
    manifest: Mapping[str, Any] | None = None

    @cached_property
    def typed(self) -> RunResults:
        """``results`` as the typed results.json (older files load with missing blocks empty)."""
        return RunResults.model_validate(self.results)


def judge_label(experiment: Mapping[str, Any] | None, manifest: Mapping[str, Any] | None) -> str:
    """The judge model ids of a run, as a reader names it: one model, or the panel's mix."""
    judges: Mapping[str, Any] = ((manifest or {}).get("models") or {}).get("judges") or {}
    models = [str(model) for model in judges.values()]
    if not models and experiment:
        panel = experiment.get("panel") or {}
        model = str(panel.get("model", "?"))
        known = experiment.get("models") or {}
        models = [str((known.get(model) or {}).get("id", model))] * len(panel.get("judges", []))
    if not models:
        return "unknown judge"
    distinct = list(dict.fromkeys(models))
    if len(models) == 1:
        return distinct[0]
    if len(distinct) == 1:
        return f"{distinct[0]} x{len(models)} panel"
    return "panel: " + " + ".join(distinct)


def panel_effects(results: RunResults) -> list[EffectRow]:
    """The panel's own effects (no per-judge rows) that have an estimate."""
    return [e for e in results.effects if e.judge is None and e.estimate is not None]


def primary_effects(results: ArmResults) -> list[EffectRow]:
    """The headline's own contrasts (role "primary") that have an estimate and an interval;
    for a results.json written before effects had roles, the panel's effects with both."""
    effects = [e for e in results.effects if e.estimate is not None]
    with_interval = [e for e in effects if e.ci_low is not None and e.ci_high is not None]
    if any(e.role for e in results.effects):
        return [e for e in with_interval if e.role == "primary"]
    return [e for e in with_interval if e.judge is None]


def _identity_effect(results: RunResults) -> dict[str, Any] | None:
    """The largest absolute primary effect with an interval: in score points (single protocol)
    when the run has any, else in the pair protocol's scale. One scale only, because a score
    difference and a win-share difference are not comparable numbers; still the largest of
    several estimates, so it leans high (a winner's curse) and is a ranking aid, not a test."""
    pool = primary_effects(results)
    points = [e for e in pool if e.scale == SCORE_POINTS]
    pool = points or pool
    if not pool:
        return None
    largest = max(pool, key=lambda e: abs(float(e.estimate or 0.0)))
    keys = ("id", "contrast", "category", "metric", "scale", "estimate", "ci_low", "ci_high")
    fields = largest.model_dump()
    extra = ("p_holm", "verdict", "n_clusters", "role", "tie_share")
    return {key: fields[key] for key in (*keys, *extra)}


def _detected_and_tests(results: ArmResults) -> tuple[int, int]:
    """Primary contrasts called and the primary family's size (every family's size for a
    results.json from before the headline had one family)."""
    headline = results.headline
    detected = len(headline.detected) if headline is not None else 0
    if headline is not None and headline.tests is not None and headline.min_bases:
        return detected, int(headline.tests)
    return detected, sum(family.size for family in results.multiple_comparisons)


def _false_positives(results: RunResults) -> dict[str, Any]:
    """The control arms' own headlines: how many of the arms whose design allowed a verdict
    called an identity effect where none exists, and the same-label arm's pseudo label swaps
    (each at unadjusted alpha) beside them."""
    arms = results.false_positive_arms()
    verdicts = {name: block.identity_effect for name, block in sorted(arms.items())}
    tested = [called for called in verdicts.values() if called is not None]
    same_label = arms.get("same_label")
    swaps = same_label.label_swap_tests if same_label is not None else None
    placebo = results.control_arms.get("placebo")
    placebo_bias = placebo.position_bias if placebo is not None else None
    return {
        "called": sum(tested),
        "arms_tested": len(tested),
        "rate": sum(tested) / len(tested) if tested else None,
        "verdicts": {name: arms[name].verdict for name in verdicts},
        "swap_rejected": swaps.rejected if swaps is not None else 0,
        "swap_tests": swaps.tests if swaps is not None else 0,
        "placebo_first_position_win_rate": placebo_bias.first_position_win_rate
        if placebo_bias is not None
        else None,
        "arms": sorted(arms),
    }


def _bias_profile(results: RunResults) -> dict[str, Any]:
    """The manipulation arms (``bias_profile``) counted by manipulation, either protocol: how
    many there are, how many could be tested, which were called; the same-text control apart
    (``control_called``: None without a tested control row), since its call is the rule's own
    false call, not a bias of the panel."""
    rows = [row for row in results.bias_profile if not row.control]
    names = list(dict.fromkeys(row.manipulation for row in rows))
    tested = list(dict.fromkeys(row.manipulation for row in rows if row.p_holm is not None))
    called = list(dict.fromkeys(row.manipulation for row in rows if row.called))
    controls = [row for row in results.bias_profile if row.control and row.p_holm is not None]
    return {
        "manipulations": len(names),
        "tested": len(tested),
        "called": len(called),
        "labels": called,
        "untested": [name for name in names if name not in tested],
        "control_called": any(row.called for row in controls) if controls else None,
    }


def _agreement(results: RunResults) -> dict[str, Any]:
    values = [
        float(row.alpha)
        for row in results.agreement
        if row.round_kind == "final" and row.alpha is not None
    ]
    return {
        "mean_alpha": sum(values) / len(values) if values else None,
        "min_alpha": min(values) if values else None,
        "n_rows": len(values),
    }


def _parse_failures(results: RunResults) -> dict[str, Any]:
    failed = sum(row.failures for row in results.failures)
    turns = sum(row.turns for row in results.failures)
    return {"failed": failed, "turns": turns, "rate": failed / turns if turns else None}


def _cost(summary: Mapping[str, Any] | None) -> dict[str, Any]:
    """Cost per 1,000 judgments, where a judgment is one finished trial (one panel verdict, all
    its judges' calls and its share of the responder's)."""
    summary = summary or {}
    trials = int(summary.get("trials_ok") or 0)
    cost = summary.get("cost") or {}
    unpriced = list(cost.get("unpriced_models") or [])
    tokens = sum(
        int(usage.get("prompt_tokens", 0)) + int(usage.get("completion_tokens", 0))
        for usage in (summary.get("tokens_by_role") or {}).values()
    )
    total = cost.get("total_usd")
    priced = total is not None and trials > 0 and not unpriced
    return {
        "usd_per_1000": 1000.0 * float(total or 0.0) / trials if priced else None,
        "tokens_per_judgment": tokens / trials if trials else None,
        "trials": trials,
        "unpriced_models": unpriced,
    }


def leaderboard_row(run: RunInputs) -> dict[str, Any]:
    results = run.typed
    detected, tests = _detected_and_tests(results)
    position = results.position_bias.model_dump() if results.position_bias is not None else {}
    return {
        "run": run.name,
        "path": run.path,
        "judge": judge_label(run.experiment, run.manifest),
        "identity_effect": _identity_effect(results),
        "detected": detected,
        "tests": tests,
        "mde": _mde(results),
        "headline": results.headline.verdict if results.headline is not None else None,
        "position": results.headline.position if results.headline is not None else None,
        "position_bias": {
            key: position.get(key) for key in ("first_position_win_rate", "ci_low", "ci_high", "n")
        },
        "false_positives": _false_positives(results),
        "bias_profile": _bias_profile(results),
        "agreement": _agreement(results),
        "parse_failures": _parse_failures(results),
        "cost": _cost(run.summary),
    }


def _mde(results: RunResults) -> dict[str, Any] | None:
    """What the run could have seen: the headline's minimum detectable effect (80% power at
    Holm's first step) and its scale; None when nothing was tested or the file predates it."""
    headline = results.headline
    if headline is None or headline.mde is None:
        return None
    return {"value": float(headline.mde), "scale": headline.mde_scale}


def _sort_value(row: Mapping[str, Any], column: str) -> float | str | None:
    if column == "run":
        return str(row["run"])
    if column == "identity_effect":
        effect = row["identity_effect"]
        return None if effect is None else abs(float(effect["estimate"]))
    if column == "detected":
        return row["detected"] / row["tests"] if row["tests"] else None
    if column == "position_bias":
        rate = row["position_bias"]["first_position_win_rate"]
        return None if rate is None else abs(float(rate) - 0.5)
    if column == "bias_profile":
        profile = row.get("bias_profile") or {}
        tested = int(profile.get("tested") or 0)
        return int(profile.get("called") or 0) / tested if tested else None
    nested = {
        "false_positives": ("false_positives", "rate"),
        "agreement": ("agreement", "mean_alpha"),
        "parse_failures": ("parse_failures", "rate"),
        "cost": ("cost", "usd_per_1000"),
    }
    block, key = nested[column]
    value = row[block][key]
    return None if value is None else float(value)


def ranked_rows(rows: list[dict[str, Any]], column: str) -> list[dict[str, Any]]:
    larger_is_better = SORT_COLUMNS[column][1]

    def key(row: Mapping[str, Any]) -> tuple[int, Any]:
        value = _sort_value(row, column)
        if value is None:
            return (1, 0.0)
        if isinstance(value, str):
            return (0, value)
        return (0, -value if larger_is_better else value)

    ordered = sorted(rows, key=key)
    for rank, row in enumerate(ordered, start=1):
        row["rank"] = rank
    return ordered
