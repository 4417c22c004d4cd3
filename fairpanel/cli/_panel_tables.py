"""The terminal's view of a run that compares panels: the leaderboard with rank intervals and
the paired differences that the run's one weighted Holm procedure called."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from fairpanel.analysis import PanelComparisonBlock

__all__ = ["panel_tables"]


def _effect(row: Mapping[str, Any]) -> str:
    effect = row.get("identity_effect")
    if not effect:
        return "-"
    unit = " pts" if effect.get("scale") == "score points" else ""
    low, high = effect.get("ci_low"), effect.get("ci_high")
    interval = f" ({low:+.2f} to {high:+.2f})" if low is not None and high is not None else ""
    return f"{effect['contrast']} {float(effect['estimate']):+.2f}{unit}{interval}"


def _rate(value: Any) -> str:
    return "-" if value is None else f"{float(value):.1%}"


def _controls(row: Mapping[str, Any]) -> str:
    controls = row.get("false_positives") or {}
    if not controls.get("arms"):
        return "none"
    return f"{controls.get('called', 0)}/{controls.get('arms_tested', 0)}"


def _biases(row: Mapping[str, Any]) -> str:
    """'1/3: verbosity-2x': manipulations called of those tested, and which; '!' when the
    same-text control was called (the rule itself misfired on that panel)."""
    profile = row.get("bias_profile") or {}
    if not profile.get("manipulations"):
        return "-"
    text = f"{profile.get('called', 0)}/{profile.get('tested', 0)}"
    if profile.get("labels"):
        text += ": " + ", ".join(profile["labels"])
    return text + (" (control called!)" if profile.get("control_called") else "")


def panel_tables(block: PanelComparisonBlock) -> list[Table]:
    """The leaderboard (one row per panel, fairest first, with its rank interval) captioned
    with the comparison's sentences, then every difference the procedure called. Narrow enough
    for an 80-column terminal; the full columns are in results.json and the report."""
    leaderboard = Table(
        title="Panels on the same trials (fairest first)",
        caption="\n".join(block.summary),
        caption_justify="left",
    )
    rows = block.leaderboard
    profiled = any((row.get("bias_profile") or {}).get("manipulations") for row in rows)
    headers = ["panel", "rank", "largest identity effect", "1st wins", "control FP"]
    for header in [*headers, *(["biases called"] if profiled else []), "parse fail"]:
        leaderboard.add_column(header, overflow="fold")
    for row in block.leaderboard:
        leaderboard.add_row(
            str(row.get("panel", "")),
            str((row.get("rank_interval") or {}).get("rank_label") or row.get("rank") or "-"),
            _effect(row),
            _rate((row.get("position_bias") or {}).get("first_position_win_rate")),
            _controls(row),
            *([_biases(row)] if profiled else []),
            _rate((row.get("parse_failures") or {}).get("rate")),
        )
    tables = [leaderboard]
    called = [diff for diff in block.comparison.differences if diff.called]
    if called:
        differences = Table(
            title=f"Panel differences called (weighted Holm over {block.comparison.tests})"
        )
        for header in ("difference", "b - a", "interval", "adj. p"):
            differences.add_column(header, overflow="fold")
        for diff in called:
            differences.add_row(
                f"{diff.panel_b} vs {diff.panel_a}: {diff.kind} "
                f"{diff.category or ''} {diff.contrast}",
                f"{float(diff.difference or 0.0):+.3f}",
                f"{float(diff.ci_low or 0.0):+.3f} to {float(diff.ci_high or 0.0):+.3f}",
                f"{float(diff.p_adjusted or 0.0):.2g}",
            )
        tables.append(differences)
    return tables
