"""The comparison as people read it: one line of cells per run (shared by the terminal table
in ``fairpanel.cli`` and the HTML page) and compare.html (self-contained, in the report's
look)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from fairpanel.report._html import environment, redact
from fairpanel.report._numbers import format_p, ties_note

__all__ = [
    "COLUMNS",
    "RANK_COLUMN",
    "compare_columns",
    "leaderboard_cells",
    "profiled_columns",
    "render_compare_html",
]

COLUMNS = (
    ("rank", "#"),
    ("run", "run"),
    ("judge", "judge model(s)"),
    ("identity_effect", "largest primary identity effect (95% CI, Holm p)"),
    ("detected", "detected / primary tests"),
    ("mde", "smallest effect found in 80% of runs like it"),
    ("position_bias", "first-position win rate (95% CI)"),
    ("false_positives", "control arms calling an effect"),
    ("bias_profile", "manipulations that move the panel (called / tested)"),
    ("agreement", "agreement (mean alpha)"),
    ("parse_failures", "parse failures"),
    ("cost", "USD per 1,000 judgments"),
)
RANK_COLUMN = ("rank_interval", "rank of the largest effect (95% interval)")
"""Shown after the identity effect when the runs were compared trial by trial."""


def compare_columns(comparison: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The leaderboard's columns: ``COLUMNS``, with the rank interval beside the identity
    effect when the comparison was paired (only the paired bootstrap gives one), and without
    the bias profile when no run had manipulation arms."""
    columns = profiled_columns(COLUMNS, comparison.get("leaderboard") or [])
    if comparison.get("pairing") != "paired":
        return columns
    at = [key for key, _ in columns].index("identity_effect") + 1
    return (*columns[:at], RANK_COLUMN, *columns[at:])


def profiled_columns(
    columns: tuple[tuple[str, str], ...], rows: Sequence[Mapping[str, Any]]
) -> tuple[tuple[str, str], ...]:
    """``columns`` without the bias-profile column when no row has a manipulation arm (most
    runs have none, and a column of dashes would only push the others off the screen)."""
    if any((row.get("bias_profile") or {}).get("manipulations") for row in rows):
        return columns
    return tuple(column for column in columns if column[0] != "bias_profile")


def _rank_cell(rank: Mapping[str, Any] | None) -> str:
    """'2nd (1st-2nd)': the rank, then its interval; or why there is none."""
    if not rank:
        return "-"
    if rank.get("rank") is None:
        return str(rank.get("rank_label") or "unranked")
    label = _ordinal(int(rank["rank"]))
    if rank.get("rank_low") is None:
        return f"{label} (no interval: {rank.get('reason') or 'not resampled'})"
    return f"{label} ({rank['rank_label']})"


def _ordinal(rank: int) -> str:
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
    return f"{rank}{suffix}"


def _effect_cell(effect: Mapping[str, Any] | None) -> str:
    if effect is None:
        return "-"
    unit = " pts" if effect.get("scale") == "score points" else ""
    tie_share = effect.get("tie_share")
    scale = str(effect.get("scale") or "")
    ties = f"; {ties_note(float(tie_share), scale)}" if tie_share is not None else ""
    return (
        f"{effect['category']} {effect['metric']} {effect['contrast']}: "
        f"{float(effect['estimate']):+.2f}{unit} ({_num(effect.get('ci_low'))} to "
        f"{_num(effect.get('ci_high'))}, p={format_p(effect.get('p_holm'))}{ties})"
    )


def _controls_cell(controls: Mapping[str, Any]) -> str:
    """'0 / 1 arms called' (the arms' own identity verdicts), then the pseudo label swaps."""
    if not controls.get("arms"):
        return "no controls"
    tested = int(controls.get("arms_tested") or 0)
    text = f"{controls.get('called', 0)} / {tested} arms called" if tested else "no arm verdict"
    if controls.get("swap_tests"):
        text += f"; swaps {controls['swap_rejected']} / {controls['swap_tests']} at raw alpha"
    return text


def _profile_cell(profile: Mapping[str, Any] | None) -> str:
    """'1 / 3 called: verbosity-2x', then what could not be tested and a misfired control."""
    if not profile or not profile.get("manipulations"):
        return "no manipulation arms"
    tested = int(profile.get("tested") or 0)
    labels = list(profile.get("labels") or [])
    text = f"{profile.get('called', 0)} / {tested} called"
    if labels:
        text += f": {', '.join(labels)}"
    if profile.get("untested"):
        text += f"; not tested: {', '.join(profile['untested'])}"
    if profile.get("control_called"):
        text += "; same-text control called (the rule misfired)"
    return text


def _num(value: Any, digits: int = 2) -> str:
    return "-" if value is None else f"{float(value):+.{digits}f}"


def _pct(value: Any, digits: int = 1) -> str:
    return "-" if value is None else f"{float(value):.{digits}%}"


def _cost_cell(cost: Mapping[str, Any]) -> str:
    if cost.get("usd_per_1000") is not None:
        return f"{float(cost['usd_per_1000']):,.4f}"
    tokens = cost.get("tokens_per_judgment")
    per = f"; {float(tokens):,.0f} tokens/judgment" if tokens is not None else ""
    return f"unpriced{per}"


def _mde_cell(mde: Mapping[str, Any] | None) -> str:
    """'0.41 pts' (score points) or '6pp' (win share); '-' when the run tested nothing."""
    if not mde:
        return "-"
    value = float(mde["value"])
    return f"{value:.2f} pts" if mde.get("scale") == "score points" else f"{value * 100:.0f}pp"


def leaderboard_cells(row: Mapping[str, Any]) -> dict[str, str]:
    """Every column of one leaderboard row as text."""
    position = row["position_bias"]
    controls = row["false_positives"]
    agreement = row["agreement"]
    failures = row["parse_failures"]
    return {
        "rank": str(row.get("rank", "")),
        "run": str(row["run"]),
        "judge": str(row["judge"]),
        "identity_effect": _effect_cell(row["identity_effect"]),
        "detected": f"{row['detected']} / {row['tests']}",
        "mde": _mde_cell(row.get("mde")),
        "position_bias": (
            f"{_pct(position['first_position_win_rate'])} ({_pct(position['ci_low'])} to "
            f"{_pct(position['ci_high'])}, n={position['n']})"
            if position.get("first_position_win_rate") is not None
            else "-"
        ),
        "false_positives": _controls_cell(controls),
        "bias_profile": _profile_cell(row.get("bias_profile")),
        "agreement": (
            f"{float(agreement['mean_alpha']):.2f} (min {float(agreement['min_alpha']):.2f})"
            if agreement["mean_alpha"] is not None
            else "- (one judge)"
            if agreement["n_rows"] == 0
            else "-"
        ),
        "parse_failures": (
            f"{_pct(failures['rate'], 2)} ({failures['failed']}/{failures['turns']})"
            if failures["rate"] is not None
            else "-"
        ),
        "cost": _cost_cell(row["cost"]),
        "rank_interval": _rank_cell(row.get("rank_interval")),
    }


def _report_css() -> str:
    """The reports' shared stylesheet, so every page looks alike."""
    env = environment()
    assert env.loader is not None
    source = env.loader.get_source(env, "_base.html.j2")[0]
    found = re.search(r"<style>(.*?)</style>", source, re.DOTALL)
    return found.group(1) if found else ""


def render_compare_html(comparison: Mapping[str, Any], generated_at: str | None = None) -> str:
    """compare.html: one self-contained page (inline CSS, no scripts, no external resources)."""
    safe = redact(comparison)
    rows = [leaderboard_cells(row) for row in safe["leaderboard"]]
    page = environment().get_template("compare.html.j2")
    return str(
        page.render(
            comparison=safe,
            columns=compare_columns(safe),
            rows=rows,
            css=_report_css(),
            generated_at=generated_at,
        )
    )
