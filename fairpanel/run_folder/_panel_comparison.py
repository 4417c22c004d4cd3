"""results.json's ``panel_comparison``: the panels of one run compared on the same trials.

Each panel's leaderboard row is read from its own results the way ``fairpanel compare`` reads a
run folder (same columns, same wording), with the panel's share of summary.json and its judges
from the manifest, so a leaderboard of panels and one of run folders say the same things.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fairpanel.analysis import (
    PanelComparisonBlock,
    RunInputs,
    leaderboard_row,
    panel_differences,
    panel_ranks,
    panel_summary,
    ranked_rows,
)
from fairpanel.judging.store import MANIFEST_FILE, RESOLVED_CONFIG_FILE, RunFrames
from fairpanel.run_folder._folder import SUMMARY_FILE, read_json

__all__ = ["compare_panels"]


def _panel_inputs(run_dir: Path, name: str, results: Mapping[str, Any]) -> RunInputs:
    summary = (read_json(run_dir / SUMMARY_FILE) or {}).get("panels", {}).get(name)
    manifest = read_json(run_dir / MANIFEST_FILE) or {}
    panel = (manifest.get("panels") or {}).get(name) or {}
    experiment = read_json(run_dir / RESOLVED_CONFIG_FILE)
    return RunInputs(
        name=name,
        path=str(run_dir),
        results=results,
        summary=summary,
        experiment=experiment,
        manifest={"models": {"judges": panel.get("judges") or {}}},
    )


def served_warnings(manifest: Mapping[str, Any], panels: Mapping[str, Any]) -> list[str]:
    """A sentence for each panel one of whose judge models was served as more than one model
    name or fingerprint during the run (its judgments do not all come from one version)."""
    changes = [str(change) for change in manifest.get("served_changes") or []]
    warnings = []
    for name, panel in panels.items():
        models = set((panel.get("judges") or {}).values())
        for change in changes:
            if any(change.startswith(f"{model}:") for model in models):
                warnings.append(f"panel {name}: {change}")
    return warnings


def compare_panels(
    run_dir: Path,
    frames: Mapping[str, RunFrames],
    results: Mapping[str, Mapping[str, Any]],
    *,
    baseline: str,
    alpha: float,
    confidence: float,
) -> dict[str, Any]:
    """The run's panels compared on the main arm under the ``baseline`` treatment: paired
    differences (one weighted Holm over all), rank intervals, and the leaderboard (one row per
    panel, ranked by the largest primary identity effect, with its rank interval beside it)."""
    main = {name: panel.where(arm="main", treatment=baseline) for name, panel in frames.items()}
    comparison = panel_differences(main, alpha=alpha, confidence=confidence)
    ranks = panel_ranks(main, confidence=confidence)
    rows = [
        {**leaderboard_row(_panel_inputs(run_dir, name, results[name])), "panel": name}
        for name in frames
    ]
    leaderboard = ranked_rows(rows, "identity_effect")
    for row in leaderboard:
        rank = ranks.get(row["panel"])
        row["rank_interval"] = rank.model_dump(mode="json") if rank is not None else None
    manifest = read_json(run_dir / MANIFEST_FILE) or {}
    block = PanelComparisonBlock(
        panels=list(frames),
        summary=panel_summary(comparison, ranks),
        leaderboard=leaderboard,
        ranks=list(ranks.values()),
        comparison=comparison,
        warnings=[
            *served_warnings(manifest, manifest.get("panels") or {}),
            *comparison.warnings,
        ],
    )
    dumped: dict[str, Any] = block.model_dump(mode="json")
    return dumped
