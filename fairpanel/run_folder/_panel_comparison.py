"""results.json's ``panel_comparison``: the panels of one run compared on the same trials.

Each panel's leaderboard row is read from its own results the way ``fairpanel compare`` reads a
run folder (same columns, same wording), with the panel's share of summary.json and its judges
from the manifest, so a leaderboard of panels and one of run folders say the same things.
"""

from __future__ import annotations

from collections.abc import Mapping
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
from fairpanel.judging.store import RunFiles, RunFrames

__all__ = ["compare_panels"]


def _panel_inputs(files: RunFiles, name: str, results: Mapping[str, Any]) -> RunInputs:
    summary = (files.summary or {}).get("panels", {}).get(name)
    panel = ((files.manifest or {}).get("panels") or {}).get(name) or {}
    return RunInputs(
        name=name,
        path=str(files.path),
        results=results,
        summary=summary,
        experiment=files.experiment,
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
    files: RunFiles,
    frames: Mapping[str, RunFrames],
    results: Mapping[str, Mapping[str, Any]],
    *,
    baseline: str,
    alpha: float,
    confidence: float,
) -> dict[str, Any]:
    """The run's panels compared on the main arm under the ``baseline`` treatment: paired
    differences (one weighted Holm over all), rank intervals, and the leaderboard (one row per
    panel, ranked by the largest primary identity effect, with its rank interval beside it);
    each panel's row takes its share of the run folder's ``files``."""
    main = {name: panel.where(arm="main", treatment=baseline) for name, panel in frames.items()}
    comparison = panel_differences(main, alpha=alpha, confidence=confidence)
    ranks = panel_ranks(main, confidence=confidence)
    rows = [
        {**leaderboard_row(_panel_inputs(files, name, results[name])), "panel": name}
        for name in frames
    ]
    leaderboard = ranked_rows(rows, "identity_effect")
    for row in leaderboard:
        rank = ranks.get(row["panel"])
        row["rank_interval"] = rank.model_dump(mode="json") if rank is not None else None
    manifest = files.manifest or {}
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
