"""Whether run folders can be compared trial by trial, and what each contributes if so.

Two runs' judges can be compared unit by unit only when they judged the very same units: the
same trial design (scenarios, identities, arrangements, arms, treatments, replicates) and the
same candidate responses in it. The design is checked as the independent comparison checks it
(``design_differences``); the candidates are read from each store (every response it holds,
read-only) and must be the same texts, response by response, on the scenarios the runs share.
A run that judged another's candidates through ``responses_from`` passes; two runs whose
responders each wrote their own answers do not, however alike the answers, since the judges
then read different things. What the panels themselves are (models, judges, answer format,
rounds) may differ: that is what is compared.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairpanel.analysis import RunInputs, design_differences
from fairpanel.judging.experiment import (
    Candidate,
    CandidateSourceError,
    candidates_digest,
    read_candidate_source,
)
from fairpanel.judging.store import STORE_FILE, RunFiles, RunFrames
from fairpanel.run_folder._folder import read_frames
from fairpanel.run_folder._panel_results import _treatment_order

__all__ = ["Pairing", "paired_panels", "pairing_of"]


@dataclass(frozen=True)
class Pairing:
    """Whether the runs are compared trial by trial, and why (or why not), in words."""

    paired: bool
    reason: str


def _names(names: Sequence[str]) -> str:
    return ", ".join(names)


def _texts(candidates: Iterable[Candidate], scenarios: set[str]) -> dict[tuple[str, int], set[str]]:
    """Every response text of the given scenarios, by (scenario, response index)."""
    texts: dict[tuple[str, int], set[str]] = {}
    for c in candidates:
        if c.scenario_id in scenarios:
            texts.setdefault((c.scenario_id, c.index), set()).add(c.text)
    return texts


def _frozen_from(run: RunInputs) -> str | None:
    """The folder or file whose candidates ``run`` judged (its manifest's responses_from)."""
    block = (run.manifest or {}).get("responses_from")
    return str(block.get("path")) if isinstance(block, Mapping) and block.get("path") else None


def _differ(first: RunInputs, other: RunInputs, differing: int, total: int) -> str:
    """Why two runs' candidates do not pair, and how to make a later run's pair."""
    source = _frozen_from(other)
    whose = (
        f"{other.name} judged the candidates of {source}"
        if source is not None
        else f"{other.name} wrote its own"
    )
    return (
        f"the runs' candidate responses differ: {differing} of the {total} responses of the "
        f"scenarios {first.name} and {other.name} share are other texts ({whose}; judge "
        f"{first.name}'s candidates with `responses_from: {first.path}` to freeze them), so "
        "their trials are not the same units"
    )


def _candidates(runs: Sequence[RunInputs]) -> dict[str, tuple[Candidate, ...]] | str:
    """Every run's stored responses, or why one cannot be read."""
    found: dict[str, tuple[Candidate, ...]] = {}
    for run in runs:
        try:
            found[run.name] = read_candidate_source(Path(run.path)).candidates
        except CandidateSourceError as exc:
            return f"the candidate responses of {run.name} cannot be read ({exc})"
    return found


def pairing_of(runs: Sequence[RunInputs]) -> Pairing:
    """Paired when every run has a store, the runs share one trial design and their stores
    hold the same candidate responses on the scenarios they share; else the reason not."""
    if len(runs) < 2:
        return Pairing(False, "only one run: nothing to pair")
    no_store = [run.name for run in runs if not (Path(run.path) / STORE_FILE).is_file()]
    if no_store:
        return Pairing(
            False,
            f"{_names(no_store)} has no store ({STORE_FILE}), so its trials cannot be matched "
            "with the other runs' (only its results.json is read)",
        )
    mismatches = design_differences(runs)
    if mismatches:
        fields = _names([str(m["field"]) for m in mismatches])
        return Pairing(False, f"the runs do not share one trial design (they differ in {fields})")
    candidates = _candidates(runs)
    if isinstance(candidates, str):
        return Pairing(False, candidates)
    held = [{c.scenario_id for c in found} for found in candidates.values()]
    shared = set.intersection(*held)
    if not shared:
        return Pairing(False, "the runs' stores share no scenario with stored responses")
    first = runs[0]
    reference = _texts(candidates[first.name], shared)
    for run in runs[1:]:
        texts = _texts(candidates[run.name], shared)
        keys = set(reference) | set(texts)
        differing = sum(1 for key in keys if reference.get(key) != texts.get(key))
        if differing:
            return Pairing(False, _differ(first, run, differing, len(keys)))
    chosen = [c for c in candidates[first.name] if c.scenario_id in shared]
    return Pairing(
        True,
        f"every run judged the same {len(chosen)} candidate responses of {len(shared)} "
        f"scenarios ({candidates_digest(chosen)[:19]}...) on the same trial design, so their "
        "trials are matched unit by unit on scenario, responses, order, arm, treatment, signal "
        "and replicate",
    )


def _panel_inputs(run: RunInputs, panel: str) -> RunInputs:
    """One panel of a multi-panel run as a leaderboard reads a run: its own results, its share
    of summary.json and its judges from the manifest."""
    results: Mapping[str, Any] = (run.results.get("panels") or {}).get(panel) or run.results
    summary = ((run.summary or {}).get("panels") or {}).get(panel)
    manifest = dict(run.manifest or {})
    judges = (((manifest.get("panels") or {}).get(panel)) or {}).get("judges") or {}
    manifest["models"] = {**(manifest.get("models") or {}), "judges": judges}
    name = f"{run.name}/{panel}"
    return RunInputs(name, run.path, results, summary, run.experiment, manifest)


def paired_panels(
    runs: Sequence[RunInputs],
) -> tuple[list[RunInputs], dict[str, RunFrames]] | str:
    """What each run contributes to a paired comparison: a one-panel run itself, a multi-panel
    run each of its panels as ``<run>/<panel>``; with each one's frames of the main arm under
    the baseline treatment. A string says why a run cannot take part (no judged trial)."""
    panels: list[RunInputs] = []
    frames: dict[str, RunFrames] = {}
    for run in runs:
        run_dir = Path(run.path)
        stored = read_frames(run_dir)
        main = stored.where(arm="main")
        # The config the comparison already read (comparison_inputs), not the file again.
        files = RunFiles(run_dir, experiment=dict(run.experiment or {}))
        baseline = _treatment_order(files, stored.values("treatment"))[0]
        main = main.where(treatment=baseline)
        names = main.values("panel") if "panel" in main.turns.columns else []
        chosen = {run.name: (run, main)}
        if len(names) > 1:
            chosen = {
                f"{run.name}/{panel}": (_panel_inputs(run, panel), main.where(panel=panel))
                for panel in names
            }
        for name, (inputs, panel_frames) in chosen.items():
            if panel_frames.scores.empty and panel_frames.verdicts.empty:
                return f"{name} has no judged trial in its main arm under treatment {baseline!r}"
            panels.append(inputs)
            frames[name] = panel_frames
    return panels, frames
