"""Run folders read for ``fairpanel compare``, compared, and the comparison written.

A folder whose results.json is missing or predates the effects analysis has it recomputed
from the store (and rewritten) the way ``fairpanel report`` does. Runs that judged the same
candidates on the same trials are compared trial by trial (``_pairing``); others, or all when
asked, as independent samples.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fairpanel.analysis import RunInputs, compare_paired, compare_runs, sort_block
from fairpanel.judging.store import STORE_FILE, RunFiles
from fairpanel.report import render_compare_html
from fairpanel.run_folder._compare_served import served_changes, served_warnings
from fairpanel.run_folder._folder import RESULTS_FILE, BadRunFolderError, read_json
from fairpanel.run_folder._pairing import Pairing, paired_panels, pairing_of
from fairpanel.run_folder._panel_results import write_results

__all__ = ["COMPARE_FILE", "COMPARE_PAGE", "compare", "comparison_inputs", "write_comparison"]

COMPARE_FILE = "compare.json"
COMPARE_PAGE = "compare.html"


def comparison_inputs(run_dir: Path) -> RunInputs:
    """A judge-panel run folder's files, as the comparison reads them; results.json is
    recomputed from the store when it is missing or predates the effects analysis."""
    if not run_dir.is_dir():
        raise BadRunFolderError(f"{run_dir} is not a folder")
    store = run_dir / STORE_FILE
    results_path = run_dir / RESULTS_FILE
    if not store.is_file() and not results_path.is_file():
        raise BadRunFolderError(
            f"{run_dir} is not a run folder (no {STORE_FILE}, no {RESULTS_FILE})"
        )
    files = RunFiles.read(run_dir)
    if files.study:
        raise BadRunFolderError(
            f"{run_dir} is a {files.study!r} study run; compare takes judge-panel runs"
        )
    results = read_json(results_path)
    if not isinstance(results, dict) or "effects" not in results:
        if not store.is_file():
            raise BadRunFolderError(f"{results_path} has no effects and there is no store")
        results = write_results(run_dir, files=files)
    return RunInputs(
        name=run_dir.resolve().name,
        path=str(run_dir),
        results=results,
        summary=files.summary,
        experiment=files.experiment,
        manifest=files.manifest,
    )


def _unique_names(runs: list[RunInputs]) -> list[RunInputs]:
    """Folders with the same name (runs/a/x and runs/b/x) are told apart by their parent."""
    names = [run.name for run in runs]
    out = []
    for run in runs:
        name = run.name
        if names.count(name) > 1:
            name = f"{Path(run.path).resolve().parent.name}/{name}"
        out.append(
            RunInputs(name, run.path, run.results, run.summary, run.experiment, run.manifest)
        )
    return out


def compare(
    run_dirs: Sequence[str | Path],
    *,
    sort: str = "identity_effect",
    alpha: float = 0.05,
    independent: bool = False,
) -> dict[str, Any]:
    """The comparison of judge-panel runs (compare.json's content): paired trial by trial when
    the runs judged the same candidates on the same trials (``pairing`` "paired"), else, or
    when ``independent``, as independent samples (``pairing`` "independent"); either way with
    ``pairing_reason``, and ``warnings`` when one model id was served as different models.
    Raises ``BadRunFolderError`` for a folder it cannot take and ValueError for one given twice
    or an unknown ``sort`` column."""
    sort_block(sort)
    runs = _unique_names([comparison_inputs(Path(path)) for path in run_dirs])
    names = [run.name for run in runs]
    if len(set(names)) != len(names):
        raise ValueError(f"run names must differ: {', '.join(names)}")
    pairing = (
        Pairing(False, "an independent comparison was asked for (--independent)")
        if independent
        else pairing_of(runs)
    )
    contributions = paired_panels(runs) if pairing.paired else pairing.reason
    if isinstance(contributions, str):
        result = compare_runs(runs, sort=sort, alpha=alpha, pairing_reason=contributions)
    else:
        panels, frames = contributions
        result = compare_paired(panels, frames, sort=sort, alpha=alpha, reason=pairing.reason)
    result["warnings"] = served_warnings(runs)
    result["served_changes"] = served_changes(runs)
    return result


def _write(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}-{os.getpid()}")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_comparison(comparison: dict[str, Any], out_dir: Path) -> tuple[Path, Path]:
    """Write compare.json and compare.html into ``out_dir`` (each atomically)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, page_path = out_dir / COMPARE_FILE, out_dir / COMPARE_PAGE
    _write(json_path, json.dumps(comparison, indent=2, allow_nan=False) + "\n")
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    _write(page_path, render_compare_html(comparison, stamp))
    return json_path, page_path
