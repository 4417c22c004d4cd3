"""The short summary ``run`` and ``report`` print by default: the answer first, in 80 columns.

A new user reading a run on a narrow terminal wants the verdict, the few contrasts it rests on,
the position claim, what failed, what it cost and where the full report is; the dozen wide
tables behind them (``_tables``) wrap their cells at 80 columns and bury the answer, so they
print only with ``--tables``. Everything here is prose or one short line per item (rich wraps
prose at the terminal's width; no table, so no cell ever wraps).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console, RenderableType
from rich.text import Text

from fairpanel.analysis import EffectRow, RunResults
from fairpanel.report import (
    TRANSCRIPTS_FILE,
    ProfilePanel,
    format_p,
    headline_of,
    profile_estimate,
    profile_panels,
)

__all__ = ["print_answer", "run_answer", "study_answer"]

_NOT_CALLED = "no detectable difference"
_SHOWN_EFFECTS = 3
"""Primary contrasts listed: every called one (up to ``_MOST_EFFECTS``), else the closest."""
_MOST_EFFECTS = 6
_VERDICT_CHARS = 52
_SHOWN_BIASES = 4
"""Called manipulation rows listed per panel; the rest are counted."""


def _p(value: float | None) -> str:
    text = format_p(value, missing="-")
    return f"p{text}" if text.startswith("<") else f"p={text}"


def _heading(title: str, rest: str = "") -> Text:
    text = Text(title, style="bold")
    if rest:
        text.append(f"  {rest}")
    return text


@dataclass(frozen=True)
class _Indented:
    """A paragraph printed two columns in, its wrapped lines indented as well."""

    text: Text


Line = RenderableType | _Indented


def _indented(text: str | Text) -> _Indented:
    return _Indented(Text(text) if isinstance(text, str) else text)


def _figure(effect: EffectRow) -> str:
    """Estimate [interval] in the effect's units (percentage points for win rates)."""
    values = (effect.estimate, effect.ci_low, effect.ci_high)
    if values[0] is None:
        return "-"
    if effect.scale in ("win rate - 0.5", "win share - 0.5"):
        mid, low, high = (("-" if v is None else f"{100 * v:+.0f}pp") for v in values)
    else:
        mid, low, high = (("-" if v is None else f"{v:+.2f}") for v in values)
        mid += {"score points": " pts", "log odds ratio": " logOR"}.get(effect.scale, "")
    return f"{mid} [{low}, {high}]"


def _called(effect: EffectRow, detected: set[str] | None) -> bool:
    """Whether the run called the contrast: in the headline's ``detected`` list (or, in a file
    without one, a verdict that is neither "no difference" nor "not tested")."""
    if detected is not None:
        return effect.id in detected
    return effect.verdict != _NOT_CALLED and not effect.verdict.startswith("not tested")


def _effect_line(effect: EffectRow, called: bool) -> Text:
    label = f"{effect.category}: {effect.identity} vs {effect.versus or '50%'}, {effect.metric}"
    p_value = effect.p_holm if effect.p_holm is not None else effect.p_value
    line = Text("* " if called else "  ", style="bold red" if called else "")
    line.append(label)
    line.append(f"  {_figure(effect)}  {_p(p_value)}")
    if effect.verdict.startswith("not tested"):
        line.append("  not tested")
    return line


def _effects(results: RunResults) -> list[Line]:
    """Called primary contrasts first, then the smallest Holm p-values, a few lines in all."""
    effects = results.effects
    primary = [e for e in effects if e.role == "primary"] or [e for e in effects if e.judge is None]
    if not primary:
        return []
    headline = results.headline
    detected = set(headline.detected) if headline is not None else None
    primary.sort(key=lambda e: (not _called(e, detected), 2.0 if e.p_holm is None else e.p_holm))
    called = sum(_called(e, detected) for e in primary)
    shown = primary[: max(_SHOWN_EFFECTS, min(called, _MOST_EFFECTS))]
    title = f"{called} of {len(primary)} called (Holm); * = called"
    lines: list[Line] = [_heading("Primary effects", title)]
    lines += [_indented(_effect_line(effect, _called(effect, detected))) for effect in shown]
    if len(primary) > len(shown):
        lines.append(_indented(Text(f"{len(primary) - len(shown)} more in report.html", "dim")))
    return lines


def _position(results: RunResults) -> list[Line]:
    bias = results.position_bias
    if bias is None or bias.first_position_win_rate is None:
        return []
    rate = f"first answer won {bias.first_position_win_rate:.0%}"
    if bias.ci_low is not None and bias.ci_high is not None:
        rate += f" [{bias.ci_low:.0%}, {bias.ci_high:.0%}]"
    rate += f", {_p(bias.p_value)}"
    if bias.p_value is None:
        rate += ": not tested"
    else:
        rate += ": called" if bias.called else ": not called"
    return [_heading("Position bias", rate)]


def _profile_count(panel: ProfilePanel) -> str:
    """'1 of 3 manipulations move the panel', with what was not tested and a misfired control."""
    total = len(panel.manipulations)
    text = f"{len(panel.called)} of {total} manipulation{'' if total == 1 else 's'} "
    text += "moves the panel" if total == 1 else "move the panel"
    if panel.untested:
        text += f" ({', '.join(panel.untested)} not tested)"
    if panel.misfired:
        text += "; the same-text control was called: the rule itself misfired"
    return text


def _profile_rows(panel: ProfilePanel, indent: str = "") -> list[Line]:
    called = [row for row in panel.rows if row.called and not row.control]
    lines: list[Line] = []
    for row in called[:_SHOWN_BIASES]:
        line = Text(indent) + Text("* ", style="bold red")
        line.append(f"{row.manipulation} ({row.protocol})  {profile_estimate(row)}")
        line.append(f"  {_p(row.p_holm)}")
        lines.append(_indented(line))
    if len(called) > _SHOWN_BIASES:
        more = f"{indent}{len(called) - _SHOWN_BIASES} more called in report.html"
        lines.append(_indented(Text(more, "dim")))
    return lines


def _bias_profile(results: RunResults) -> list[Line]:
    """One count per panel of the manipulations that move it, then its called rows, each with
    its estimate, interval and Holm p (the manipulation family's)."""
    panels = profile_panels(results)
    if not panels:
        return []
    if len(panels) == 1:
        return [_heading("Bias profile", _profile_count(panels[0])), *_profile_rows(panels[0])]
    lines: list[Line] = [_heading("Bias profile", "per panel; * = called (Holm)")]
    for panel in panels:
        line = Text(panel.name, style="bold")
        line.append(f": {_profile_count(panel)}")
        lines += [_indented(line), *_profile_rows(panel, indent="  ")]
    for row in results.self_preference:
        line = Text("* ", style="bold red") if row.called else Text("  ")
        line.append(f"self-preference, {row.manipulation} ({row.protocol}): ")
        if row.reason is not None:
            line.append(f"not tested: {row.reason}", style="dim")
        else:
            interval = f"[{row.ci_low:+.2f}, {row.ci_high:+.2f}]" if row.ci_low is not None else ""
            line.append(f"{row.estimate:+.2f} {interval}  {_p(row.p_holm)}")
        lines.append(_indented(line))
    return lines


def _failures(results: RunResults | None, summary: Mapping[str, Any] | None) -> RenderableType:
    parts = []
    if summary is not None:
        unit = "items" if "items_total" in summary else "trials"
        failed, total = summary.get(f"{unit}_failed", 0), summary.get(f"{unit}_total", 0)
        part = f"{failed} of {total} {unit} failed"
        reasons = summary.get("failures") or {}
        if reasons:
            part += " (" + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items())) + ")"
        parts.append(part)
    if results is not None:
        turns = sum(row.turns for row in results.failures)
        failures = sum(row.failures for row in results.failures)
        parts.append(f"{failures} parse failures in {turns} judge turns")
    return _heading("Failures", "; ".join(parts) or "-")


def _cost(summary: Mapping[str, Any] | None) -> RenderableType | None:
    if summary is None:
        return None
    cost = summary.get("cost") or {}
    text = f"{summary.get('calls_made', 0)} calls made, {summary.get('calls_cached', 0)} cached"
    text += f", ${float(cost.get('total_usd') or 0.0):,.4f}"
    if cost.get("unpriced_models"):
        text += f" (no price for {', '.join(cost['unpriced_models'])})"
    text += f", {float(summary.get('wall_seconds') or 0.0) / 60:,.1f} min"
    return _heading("Cost", text)


def _short_verdict(verdict: str | None) -> str:
    """A panel verdict's first clause ("Detectable identity effect", ...), kept to one line."""
    if not verdict:
        return "no verdict"
    clause = verdict.split(":")[0].split(" (")[0].rstrip(".")
    return clause if len(clause) <= _VERDICT_CHARS else clause[: _VERDICT_CHARS - 1] + "…"


def _panels(results: RunResults) -> list[Line]:
    block = results.panel_comparison
    if block is None:
        return []
    called = sum(bool(diff.called) for diff in block.comparison.differences)
    tested = f"{called} of {block.comparison.tests} panel differences called"
    lines: list[Line] = [_heading("Panels", f"fairest first; {tested}")]
    for row in block.leaderboard:
        rank = (row.get("rank_interval") or {}).get("rank_label") or row.get("rank") or "-"
        line = Text(f"{row.get('panel', '')} ({rank})", style="bold")
        line.append(f": {_short_verdict(row.get('headline'))}")
        lines.append(_indented(line))
    return lines


def _where(report_file: Path | None, run_dir: Path) -> list[Line]:
    lines: list[Line] = []
    if report_file is not None:
        lines.append(_heading("Report", str(report_file)))
    transcripts = run_dir / TRANSCRIPTS_FILE
    if transcripts.is_file():
        lines.append(_heading("Transcripts", str(transcripts)))
    else:
        lines.append(Text(f"Transcripts: fairpanel view {run_dir}", style="dim"))
    lines.append(
        Text(f"Full tables: fairpanel report {run_dir} --tables (or results.json)", style="dim")
    )
    return lines


def run_answer(
    given: RunResults | Mapping[str, Any] | None,
    summary: Mapping[str, Any] | None,
    *,
    run_dir: Path,
    report_file: Path | None,
) -> list[Line]:
    """A judge-panel run's answer: verdict and position claim, the primary effects, failures,
    cost and the report's path (``given`` None: the run was stored without an analysis)."""
    lines: list[Line] = []
    results = None
    if given is not None:
        results = given if isinstance(given, RunResults) else RunResults.model_validate(given)
        lines += _panels(results)
        card = headline_of(results)
        panels = results.panel_comparison.panels if results.panel_comparison else []
        whose = f"of panel {panels[0]}, the experiment's first" if panels else ""
        lines.append(_heading("Verdict", whose))
        lines += [_indented(line) for line in (card.verdict, card.limits) if line]
        lines += _effects(results)
        lines += _position(results)
        lines += _bias_profile(results)
    lines.append(_failures(results, summary))
    cost = _cost(summary)
    if cost is not None:
        lines.append(cost)
    return lines + _where(report_file, run_dir)


def _study_headline(results: Mapping[str, Any]) -> str | None:
    headline = results.get("headline")
    if isinstance(headline, Mapping):
        headline = headline.get("verdict")
    return headline if isinstance(headline, str) else None


def study_answer(
    results: Mapping[str, Any] | None,
    summary: Mapping[str, Any] | None,
    *,
    run_dir: Path,
    report_file: Path | None,
) -> list[Line]:
    """A study run's answer: its headline when it has one and what each of its tables holds
    (title and rows), then failures, cost and the report's path."""
    lines: list[Line] = []
    if results is not None:
        name = f"{results.get('study', 'study')} ({results.get('name', '')})"
        lines.append(_heading("Study", name))
        headline = _study_headline(results)
        if headline:
            lines.append(_indented(headline))
        tables: Sequence[Mapping[str, Any]] = results.get("tables", [])
        for table in tables:
            rows = len(table.get("rows", []))
            lines.append(_indented(f"{table.get('title', 'table')}: {rows} rows"))
    lines.append(_failures(None, summary))
    cost = _cost(summary)
    if cost is not None:
        lines.append(cost)
    return lines + _where(report_file, run_dir)


def print_answer(console: Console, lines: Sequence[Line]) -> None:
    """Print the answer's lines; an indented paragraph wraps within the terminal's width."""
    for line in lines:
        if isinstance(line, _Indented):
            for wrapped in line.text.wrap(console, max(console.width - 2, 20)):
                wrapped.rstrip()
                console.print(Text("  ") + wrapped, highlight=False)
        else:
            console.print(line, highlight=False)
