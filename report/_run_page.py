"""The run's HTML report: one self-contained file (inline CSS, figures as PNG data URIs).

``render_report`` is pure: it reads the typed results (``RunResults``, or the results.json dict
it is read from), the scores frame and the run folder's JSON files as given, and renders
``templates/report.html.j2``. Every block of results.json is optional; a missing one becomes a
short note saying what is absent, never an error. Only what
the caller passes is shown, and URLs and secret-looking keys are redacted on the way in.
Figures are asked for by name and drawn all at once by ``ReportInputs.draw`` (in process, or in
the process ``FigureWorkers`` forked), so this module never imports matplotlib.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from fairpanel.analysis import (
    OVERALL,
    ArmResults,
    ChiSquareRow,
    EffectRow,
    RunResults,
    baseline_scores,
    bonferroni,
    moved_by_injection,
    score_distribution,
)
from fairpanel.judging.protocol import METRICS
from fairpanel.report._bias_profile import ProfilePanel, bias_profile_context, profile_panels
from fairpanel.report._figure_workers import FIGURE_MODULES, Draw, FigureJob, Pending, draw_here
from fairpanel.report._html import environment, integer, percent, redact
from fairpanel.report._panel_section import panel_context
from fairpanel.report._served import replica_rows, served_rows
from fairpanel.report._verdict import (
    MAX_FOREST_ROWS,
    Headline,
    decided_win_rates,
    design_warnings,
    family_sentence,
    forest_rows,
    headline_of,
    run_warnings,
    small_n_warnings,
)

__all__ = ["ReportInputs", "redact", "render_report"]


@dataclass
class ReportInputs:
    """Everything a report shows. ``scores`` is the run's scores frame (any arms and
    treatments; the report keeps the main arm under the baseline treatment, final round)."""

    results: RunResults | Mapping[str, Any]
    scores: pd.DataFrame
    run_name: str = "run"
    summary: Mapping[str, Any] | None = None
    manifest: Mapping[str, Any] | None = None
    experiment: Mapping[str, Any] | None = None
    failure_examples: Sequence[Mapping[str, Any]] = field(default_factory=list)
    generated_at: str | None = None
    draw: Draw = draw_here
    """Draws the page's figures (``FigureWorkers.draw`` to draw them in another process)."""


# --- section data -------------------------------------------------------------------------------


def _chi_square_rows(block: ArmResults) -> list[ChiSquareRow]:
    return [*block.single.chi_square, *block.pair.chi_square]


def _smallest_p(block: ArmResults) -> tuple[float | None, int]:
    ps = [float(t.p_value) for t in _chi_square_rows(block) if t.p_value is not None]
    return (min(ps) if ps else None), len(ps)


def _arm_summary(name: str, block: ArmResults) -> dict[str, Any]:
    p, tests = _smallest_p(block)
    return {
        "name": name,
        "trials": block.n_trials,
        "smallest_p": p,
        "tests": tests,
        "win_rates": decided_win_rates(block.pair.win_rates),
        "mean_rows": block.single.mean_scores.rows,
        "pair_mean_rows": block.pair.mean_scores.rows,
    }


def _effect_groups(effects: Sequence[EffectRow]) -> tuple[list[EffectRow], list[EffectRow]]:
    """(primary, secondary): the headline's family apart from the exploratory rows. A file
    written before effects had roles splits into the panel's own rows and the per-judge ones."""
    if any(e.role for e in effects):
        return (
            [e for e in effects if e.role == "primary"],
            [e for e in effects if e.role == "secondary"],
        )
    return [e for e in effects if not e.judge], [e for e in effects if e.judge]


def _called_ids(results: RunResults) -> set[str]:
    """The rows whose badge is lit: primary calls, exploratory calls and called interactions."""
    called = {e.id for e in results.treatment_effects if _is_call(e.verdict)}
    if results.headline is not None:
        called.update([*results.headline.detected, *results.headline.exploratory])
    return called


def _is_call(verdict: str) -> bool:
    return bool(verdict) and not verdict.lower().startswith(("no ", "not tested"))


def _treatments(results: RunResults) -> list[str]:
    return results.design.treatments if results.design is not None else []


def _treatment_rows(results: RunResults) -> list[dict[str, Any]]:
    rows = []
    for index, name in enumerate(_treatments(results)):
        block = results if index == 0 else results.by_treatment.get(name)
        if block is None:
            continue
        summary = _arm_summary(name, block)
        summary["baseline"] = index == 0
        summary["verdict"] = headline_of(block).verdict
        rows.append(summary)
    return rows


def _tiles(
    results: RunResults, inputs: ReportInputs, judges: list[str], models: list[str]
) -> list[dict[str, str]]:
    summary = inputs.summary or {}
    counts = results.n_trials
    tiles = [
        {
            "label": "main-arm trials",
            "value": integer(sum(int(v) for v in counts.values())),
            "sub": " · ".join(f"{v} {k}" for k, v in counts.items()),
        },
        {
            "label": "base scenarios",
            "value": str(_n_bases(results)) if _n_bases(results) else "–",
            "sub": "the unit every test generalises over",
        },
        {
            "label": "judges",
            "value": str(len(judges)) if judges else "–",
            "sub": ", ".join(models) or "models unknown",
        },
    ]
    turns = sum(f.turns for f in results.failures)
    failed = sum(f.failures for f in results.failures)
    tiles.append(
        {
            "label": "parse failures",
            "value": percent(failed / turns, 1) if turns else "–",
            "sub": f"{failed:,} of {turns:,} judge turns",
        }
    )
    cost = summary.get("cost") or {}
    if summary:
        unpriced = cost.get("unpriced_models") or []
        tiles.append(
            {
                "label": "cost",
                "value": f"${float(cost.get('total_usd') or 0):,.2f}",
                "sub": ("no price for " + ", ".join(unpriced))
                if unpriced
                else f"{percent(summary.get('cached_token_share'))} prompt tokens cached",
            }
        )
        tiles.append(
            {
                "label": "wall time",
                "value": f"{float(summary.get('wall_seconds') or 0):,.0f} s",
                "sub": f"{summary.get('calls_made', 0):,} calls made, "
                f"{summary.get('calls_cached', 0):,} from the store",
            }
        )
    return tiles


def _n_bases(results: RunResults) -> int:
    if results.design is not None and results.design.n_bases:
        return int(results.design.n_bases)
    return int(results.headline.n_bases) if results.headline is not None else 0


def _judges_and_models(inputs: ReportInputs) -> tuple[list[str], list[str]]:
    judges_map = ((inputs.manifest or {}).get("models") or {}).get("judges") or {}
    judges = list(judges_map)
    if not judges and not inputs.scores.empty:
        judges = sorted({str(j) for j in inputs.scores["judge"].unique()})
    models = sorted({str(m) for m in judges_map.values()})
    return judges, models


SECTIONS = (
    ("panels", "Panels compared"),
    ("win-rates", "Win rates"),
    ("score-differences", "Score differences"),
    ("score-distributions", "Score distributions"),
    ("effects", "Effect sizes"),
    ("position-bias", "Position bias"),
    ("agreement", "Panel agreement"),
    ("control-arms", "Control arms"),
    ("injection", "Injection robustness"),
    ("bias-profile", "Bias profile"),
    ("treatments", "Treatments"),
    ("parse-failures", "Parse failures"),
    ("cost", "Cost and tokens"),
    ("provenance", "Provenance"),
)
"""The report's sections after the verdict, in order: (element id, contents-bar title)."""

_VERDICT_LABELS = {
    "detected": "Identity effect detected",
    "clear": "No detectable identity effect",
    "nodata": "No verdict",
}


def _injection_rows(results: RunResults) -> list[dict[str, Any]]:
    """Each judge model's shift under the injection arm, with what it moved."""
    rows = []
    for model, shift in sorted(results.injection_robustness.items()):
        fields = shift.model_dump()
        rows.append({**fields, "judge_model": model, "moved": moved_by_injection(fields)})
    return rows


def typed_results(results: RunResults | Mapping[str, Any]) -> RunResults:
    """The results with secret-looking values redacted, as the typed model (a dict read from
    an older results.json loads with its missing blocks empty)."""
    plain = results.model_dump() if isinstance(results, RunResults) else results
    return RunResults.model_validate(redact(plain))


def _model_rows(manifest: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    models = (manifest or {}).get("models") or {}
    judges = models.get("judges") or {}
    return (
        [("responder", str(models.get("responder")))]
        + [(f"judge {judge}", str(model)) for judge, model in judges.items()]
        + served_rows(manifest)
    )


_RUN_FIGURES, _PANEL_FIGURES = FIGURE_MODULES


def _figure_jobs(
    inputs: ReportInputs,
    results: RunResults,
    forest: Sequence[EffectRow],
    panels: Sequence[ProfilePanel],
    alpha: float,
) -> dict[str, FigureJob]:
    """The page's figures, by the name the template reads them under."""
    baseline = baseline_scores(inputs.scores, results.round_kind, _treatments(results))
    cells, differences = score_distribution(baseline), results.single.score_difference
    asked: dict[str, tuple[str, str, tuple[Any, ...]]] = {
        "win_rates": (_RUN_FIGURES, "win_rate_figure", (results.pair.win_rates,)),
        "score_difference": (_RUN_FIGURES, "score_difference_figure", (differences,)),
        "score_distribution": (_RUN_FIGURES, "score_distribution_figure", (cells,)),
        "forest": (_RUN_FIGURES, "forest_figure", (list(forest), alpha)),
        "bradley_terry": (_RUN_FIGURES, "bradley_terry_figure", (results.bradley_terry,)),
        "agreement": (_PANEL_FIGURES, "agreement_figure", (results.agreement,)),
        "debate": (_PANEL_FIGURES, "debate_shift_figure", (results.debate.shift_by_identity,)),
        "injection": (_PANEL_FIGURES, "injection_figure", (_injection_rows(results),)),
        **({"bias_profile": (_PANEL_FIGURES, "bias_profile_figure", (panels,))} if panels else {}),
    }  # fmt: skip
    return {name: FigureJob(*job) for name, job in asked.items()}


def report_context(inputs: ReportInputs) -> dict[str, Any]:
    """Everything the template reads; public for tests and for other renderers."""
    context, figures = _context_drawing(inputs)
    return _with_figures(context, figures())


def _context_drawing(inputs: ReportInputs) -> tuple[dict[str, Any], Pending]:
    """The template's context but for its figures, which are being drawn (the figures are
    asked for first, so they draw while the rest is built)."""
    results = typed_results(inputs.results)
    headline: Headline = headline_of(results)
    alpha = float(results.headline.alpha) if results.headline is not None else 0.05
    single, pair = results.single, results.pair
    effects = results.effects
    primary, secondary = _effect_groups(effects)
    forest = forest_rows(primary or secondary)
    panels = profile_panels(results)
    figures = inputs.draw(_figure_jobs(inputs, results, forest, panels, alpha))
    judges, models = _judges_and_models(inputs)
    false_positives = results.false_positive_arms()
    chi_square = _chi_square_rows(results)
    context = {
        "run_name": inputs.run_name,
        "generated_at": inputs.generated_at,
        "panels": panel_context(results.panel_comparison),
        "headline": headline,
        "verdict_label": _VERDICT_LABELS[headline.tone],
        "alpha": alpha,
        "warnings": small_n_warnings(results)
        + design_warnings(results)
        + run_warnings(inputs.summary or {}),
        "tiles": _tiles(results, inputs, judges, models),
        "metrics": [*METRICS, OVERALL],
        "results": results,
        "single": single,
        "pair": pair,
        "win_rates": decided_win_rates(pair.win_rates),
        "chi_square": chi_square,
        "chi_square_hits": [
            (row, row.p_value is not None and bonferroni(row.p_value, len(chi_square)) < alpha)
            for row in chi_square
        ],
        "effects": effects,
        "has_roles": any(e.role for e in effects),
        "primary_effects": primary or secondary,
        "secondary_effects": secondary if primary else [],
        "families_line": family_sentence(results.headline) if results.headline else "",
        "effects_shown": len(forest),
        "effects_max": MAX_FOREST_ROWS,
        "detected_ids": _called_ids(results),
        "families": results.multiple_comparisons,
        "position_bias": results.position_bias,
        "bradley_terry": results.bradley_terry,
        "agreement": results.agreement,
        "debate": results.debate,
        "has_debate": "debate" in results.model_fields_set,
        "control_note": results.false_positive_note,
        "control_blocks": [
            {"name": name, "block": block} for name, block in false_positives.items()
        ],
        "control_arms": [_arm_summary(name, block) for name, block in results.control_arms.items()],
        "treatments": _treatment_rows(results),
        "treatment_effects": results.treatment_effects,
        "injection": _injection_rows(results),
        "bias_profile": bias_profile_context(results, panels),
        "failures": results.failures,
        "failures_by_identity": results.failures_by_identity,
        "failure_examples": redact(list(inputs.failure_examples)),
        "summary": redact(inputs.summary) if inputs.summary else None,
        "manifest": redact(inputs.manifest) if inputs.manifest else None,
        "model_rows": redact(_model_rows(inputs.manifest) + replica_rows(inputs.summary)),
        "experiment_json": json.dumps(redact(inputs.experiment), indent=2, sort_keys=False)
        if inputs.experiment
        else None,
    }
    return context, figures


def _with_figures(context: dict[str, Any], figures: dict[str, Any]) -> dict[str, Any]:
    if context["bias_profile"] is not None:
        context["bias_profile"]["figure"] = figures.pop("bias_profile")
    context["figures"] = figures
    context["present"] = _present(context)
    # Most runs have no manipulation arms: their page leaves the section out, not greyed.
    context["toc"] = tuple(s for s in SECTIONS if s[0] != "bias-profile" or context["bias_profile"])
    return context


def _present(context: Mapping[str, Any]) -> dict[str, bool]:
    """Which sections have something to show (the contents bar greys out the others)."""
    figures = context["figures"]
    return {
        "panels": context["panels"] is not None,
        "win-rates": bool(context["win_rates"]),
        "score-differences": figures["score_difference"] is not None,
        "score-distributions": bool(figures["score_distribution"] or context["chi_square"]),
        "effects": bool(context["effects"]),
        "position-bias": bool(context["position_bias"] or context["bradley_terry"]),
        "agreement": bool(context["agreement"] or context["has_debate"]),
        "control-arms": bool(
            context["control_arms"] or context["control_blocks"] or context["control_note"]
        ),
        "injection": bool(context["injection"]),
        "bias-profile": context["bias_profile"] is not None,
        "treatments": len(context["treatments"]) > 1 or bool(context["treatment_effects"]),
        "parse-failures": bool(context["failures"]),
        "cost": context["summary"] is not None,
        "provenance": bool(context["manifest"] or context["experiment_json"]),
    }


def render_report(inputs: ReportInputs) -> str:
    """The report as one HTML document (UTF-8 text); the template is compiled while the
    figures draw."""
    context, figures = _context_drawing(inputs)
    template = environment().get_template("report.html.j2")
    return template.render(**_with_figures(context, figures()))
