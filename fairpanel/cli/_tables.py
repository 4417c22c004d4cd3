"""Rich tables for the CLI, built from the typed results of ``analyze`` (``RunResults``).

Rendering reads the results (not the frames) so the CLI can show results loaded back from
disk exactly as it showed the fresh ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import JustifyMethod
from rich.table import Table

from fairpanel import analysis
from fairpanel.analysis import (
    ChiSquareRow,
    EffectRow,
    FailureRow,
    InjectionShiftRow,
    MeanScoresBlock,
    RunResults,
    WinRateRow,
)
from fairpanel.cli._panel_tables import panel_tables
from fairpanel.cli._profile_table import profile_table
from fairpanel.judging.protocol import METRICS
from fairpanel.report import decided_win_rates, format_p, headline_of, ties_note

_MISSING = "-"


def _num(value: float | None, digits: int = 2) -> str:
    return _MISSING if value is None else f"{value:.{digits}f}"


def _mean_scores_table(block: MeanScoresBlock, title: str) -> Table:
    table = Table(title=title, caption=None if block.rows else "no data")
    table.add_column("Category")
    table.add_column("Identity")
    for metric in (*METRICS, analysis.OVERALL):
        table.add_column(metric.capitalize(), justify="right")
    table.add_column("n", justify="right")
    for row in block.rows:
        table.add_row(
            row.category,
            row.identity,
            *(_num(getattr(row, metric)) for metric in (*METRICS, analysis.OVERALL)),
            str(row.n),
        )
    return table


def _chi_square_table(results: Sequence[ChiSquareRow], title: str) -> Table:
    table = Table(title=title, caption=None if results else "no data")
    for name in ("Category", "Metric", "Table", "n", "chi2", "dof", "p", "Cramer's V", "Note"):
        justify: JustifyMethod = (
            "right" if name in {"n", "chi2", "dof", "p", "Cramer's V"} else "left"
        )
        table.add_column(name, justify=justify)
    for res in results:
        shape = f"{len(res.identities)}x{len(res.levels)}"
        table.add_row(
            res.category,
            res.metric,
            shape,
            str(res.n),
            _num(res.chi2),
            _MISSING if res.dof is None else str(res.dof),
            format_p(res.p_value, missing=_MISSING, digits=4),
            _num(res.cramers_v, 3),
            res.note or "",
        )
    return table


def _win_rate_table(given: Sequence[WinRateRow]) -> Table:
    """Win rates among decided pairs, the tie share beside them (as the report shows them)."""
    results = decided_win_rates(given)
    level = f"{results[0].confidence:.0%}" if results else "95%"
    table = Table(
        title="Pair win rates (among decided pairs)",
        caption="rate = wins / (wins + losses); ties are shown apart" if results else "no data",
    )
    columns = ("Category", "Identity", "Wins", "Losses", "Ties", "Rate", f"{level} CI", "Ties %")
    for name in columns:
        table.add_column(name, justify="left" if name in {"Category", "Identity"} else "right")
    for res in results:
        table.add_row(
            res.category,
            res.identity,
            str(res.wins),
            str(res.losses),
            str(res.ties),
            _percent(res.rate),
            f"[{_percent(res.ci_low)}, {_percent(res.ci_high)}]",
            _percent(res.tie_share),
        )
    return table


_EFFECT_ROWS = 12
_SHORT_TEST = {
    "cluster t (base-scenario means)": "cluster t",
    "CMH (exploratory; p conditional on scenarios)": "CMH",
    "wilcoxon signed-rank": "signed-rank",
    "exact binomial": "binomial",
    # Older results.json files: a sign test on matched label swaps, not McNemar's test.
    "mcnemar exact": "sign test",
    "cmh": "CMH",
}
_NOT_CALLED = "no detectable difference"


def _percent(value: float | None) -> str:
    return _MISSING if value is None else f"{value:.1%}"


def _estimate(effect: EffectRow) -> str:
    """Estimate and interval in the effect's units (percentage points for win rates)."""
    scale = effect.scale
    values = (effect.estimate, effect.ci_low, effect.ci_high)
    if values[0] is None:
        return _MISSING
    if scale in ("win rate - 0.5", "win share - 0.5"):
        shown = [_MISSING if v is None else f"{100 * v:+.0f}pp" for v in values]
    else:
        shown = [_MISSING if v is None else f"{v:+.2f}" for v in values]
    unit = {"score points": " pts", "log odds ratio": " logOR"}.get(scale, "")
    return f"{shown[0]}{unit} [{shown[1]}, {shown[2]}]"


def _effects_table(effects: Sequence[EffectRow], title: str, *, all_rows: bool) -> Table:
    """Called rows first, then by Holm-adjusted p; every row when ``all_rows``, else only the
    called ones; at most ``_EFFECT_ROWS`` rows, with a caption pointing to the rest."""
    shown = [e for e in effects if all_rows or e.verdict != _NOT_CALLED]
    shown.sort(key=lambda e: (e.verdict == _NOT_CALLED, e.p_holm if e.p_holm is not None else 2.0))
    hidden = len(effects) - min(len(shown), _EFFECT_ROWS)
    caption = f"{hidden} more rows in results.json (effects)" if hidden else None
    table = Table(title=title, caption=caption)
    for name in ("Contrast", "Metric", "Test", "Estimate [CI]", "p Holm", "Verdict"):
        table.add_column(name, justify="right" if name == "p Holm" else "left")
    for effect in shown[:_EFFECT_ROWS]:
        versus = effect.versus or "50%"
        contrast = f"{effect.category}: {effect.identity} vs {versus}"
        if effect.judge is not None:
            contrast += f" ({effect.judge})"
        if effect.tie_share is not None:
            contrast += f" ({ties_note(effect.tie_share, effect.scale)})"
        verdict = effect.verdict
        table.add_row(
            contrast,
            effect.metric,
            _SHORT_TEST.get(effect.test, effect.test),
            _estimate(effect),
            format_p(effect.p_holm, missing=_MISSING, digits=4),
            _MISSING if verdict == _NOT_CALLED else verdict,
        )
    return table


def _effect_tables(results: RunResults) -> list[Table]:
    """The primary family (the headline's contrasts) apart from the secondary, exploratory one,
    of which only the called rows are listed; a file from before effects had roles shows the
    panel's contrasts and the called per-judge ones, as it did."""
    effects = results.effects
    if not effects:
        return []
    if not any(e.role for e in effects):
        panel = [e for e in effects if e.judge is None or e.verdict != _NOT_CALLED]
        return [_effects_table(panel, "Identity effects", all_rows=True)]
    primary = [e for e in effects if e.role == "primary"]
    secondary = [e for e in effects if e.role == "secondary"]
    title = "Identity effects: primary contrasts (the headline; Holm)"
    tables = [_effects_table(primary, title, all_rows=True)]
    if any(e.verdict != _NOT_CALLED for e in secondary):
        title = f"Secondary contrasts called (exploratory; BH over {len(secondary)})"
        tables.append(_effects_table(secondary, title, all_rows=False))
    return tables


def _control_table(results: RunResults) -> Table | None:
    """Each control arm's own identity verdict and position claim, and the pseudo swaps."""
    arms = results.false_positive_arms()
    if not arms:
        return None
    table = Table(title="Control arms (no identity contrast: any call is a false positive)")
    for name in ("Arm", "Identity verdict", "Position claim", "Label swaps"):
        table.add_column(name)
    for name, block in arms.items():
        swaps = block.label_swap_tests
        swap_text = (
            f"{swaps.rejected} / {swaps.tests} rejected at raw alpha {swaps.alpha:g}"
            if swaps is not None and swaps.tests
            else "; ".join(swaps.untested)
            if swaps is not None
            else _MISSING
        )
        table.add_row(name, block.verdict or _MISSING, block.position or _MISSING, swap_text)
    return table


def _failure_table(results: Sequence[FailureRow]) -> Table:
    table = Table(title="Judge parse failures")
    for name in ("Protocol", "Category", "Judge", "Failures", "Turns", "Rate"):
        table.add_column(name, justify="right" if name in {"Failures", "Turns", "Rate"} else "left")
    for res in results:
        table.add_row(
            res.protocol,
            res.category,
            res.judge,
            str(res.failures),
            str(res.turns),
            _percent(res.rate),
        )
    return table


def _injection_table(shifts: Mapping[str, InjectionShiftRow]) -> Table:
    """One row per judge model and scale, so it fits a narrow terminal."""
    table = Table(title="Injection robustness", caption="injected minus untouched twin")
    table.add_column("Judge model", no_wrap=True)
    table.add_column("Scale")
    for name in ("Shift", "95% CI", "n"):
        table.add_column(name, justify="right")
    table.add_column("Reading", no_wrap=True)
    for model, shift in sorted(shifts.items()):
        moved = analysis.moved_by_injection(shift.model_dump())
        scales = (
            ("score", shift.score_shift, shift.score_ci_low, shift.score_ci_high, shift.n),
            (
                "verdict",
                shift.verdict_shift,
                shift.verdict_ci_low,
                shift.verdict_ci_high,
                shift.verdict_n,
            ),
        )
        for scale, estimate, low, high, n in scales:
            if estimate is None:
                continue
            table.add_row(
                model,
                scale,
                _signed(estimate),
                f"[{_signed(low)}, {_signed(high)}]",
                str(n),
                "moved" if scale in moved else "no shift",
            )
    return table


def _signed(value: float | None) -> str:
    return _MISSING if value is None else f"{value:+.2f}"


def headline_text(results: RunResults) -> str | None:
    """The report's plain-language verdict, if it has one."""
    return None if results.headline is None else results.headline.verdict


def _headline_table(results: RunResults) -> Table | None:
    """The identity verdict, then on lines of their own the position claim, what the design
    cannot show (when there is no verdict) and the families the verdict rests on."""
    if headline_text(results) is None:
        return None
    card = headline_of(results)
    banner = Table(title="Headline", show_header=False, expand=False)
    banner.add_column("verdict")
    for line in (card.verdict, card.position, card.limits, card.families):
        if line:
            banner.add_row(line)
    return banner


def render_tables(given: RunResults | Mapping[str, Any]) -> list[Table]:
    """Tables for an ``analyze`` report: the headline (identity verdict, position claim, family
    sizes), the primary and the called secondary effects, mean scores, chi-square tests, win
    rates, failures, treatment interactions, the control arms' own verdicts, the injection
    shifts and the bias profile (the manipulation arms, per panel).

    Single-protocol tables and the win-rate table are always present (captioned "no data" when
    empty) so the reader sees what is missing; pair-protocol score tables appear only when they
    have rows, and the failure table only lists judges with at least one failure, to keep the
    terminal output short.
    """
    results = given if isinstance(given, RunResults) else RunResults.model_validate(given)
    single, pair, round_kind = results.single, results.pair, results.round_kind
    tables: list[Table] = []
    if results.panel_comparison is not None:
        tables += panel_tables(results.panel_comparison)
    banner = _headline_table(results)
    if banner is not None:
        tables.append(banner)
    tables += _effect_tables(results)

    tables += [
        _mean_scores_table(single.mean_scores, f"Mean scores, single ({round_kind})"),
        _chi_square_table(single.chi_square, f"Chi-square, single ({round_kind})"),
    ]
    if pair.mean_scores.rows:
        tables.append(_mean_scores_table(pair.mean_scores, f"Mean scores, pair ({round_kind})"))
    if pair.chi_square:
        tables.append(_chi_square_table(pair.chi_square, f"Chi-square, pair ({round_kind})"))
    tables.append(_win_rate_table(pair.win_rates))
    failed = [row for row in results.failures if row.failures]
    if failed:
        tables.append(_failure_table(failed))
    if results.treatment_effects:
        tables.append(
            _effects_table(
                results.treatment_effects,
                "Treatment x label interactions (treated minus baseline; Holm)",
                all_rows=True,
            )
        )
    controls = _control_table(results)
    if controls is not None:
        tables.append(controls)
    if results.injection_robustness:
        tables.append(_injection_table(results.injection_robustness))
    profile = profile_table(results)
    if profile is not None:
        tables.append(profile)
    return tables
