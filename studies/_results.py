"""results.json for a study run.

The analysis reads only the store, so ``fairpanel report`` re-derives the same results from a
finished (or half-finished) run folder at any time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fairpanel.judging.store import STORE_FILE, Store
from fairpanel.studies._base import StudyConfig
from fairpanel.studies._registry import build_study

__all__ = ["study_results", "write_study_results"]


def study_results(run_dir: Path, config: StudyConfig) -> dict[str, Any]:
    """Analyse the study items stored in ``run_dir`` (what results.json holds)."""
    study = build_study(config)
    store = Store(run_dir / STORE_FILE)
    try:
        records = list(store.iter_study_items(config.study))
    finally:
        store.close()
    return {
        "study": config.study,
        "name": config.name,
        "items_stored": {
            "ok": sum(r.status == "ok" for r in records),
            "failed": sum(r.status == "failed" for r in records),
        },
        **study.analyze(records),
    }


def write_study_results(run_dir: Path, config: StudyConfig) -> dict[str, Any]:
    """Analyse the study items stored in ``run_dir`` and write ``results.json`` beside them."""
    results = study_results(run_dir, config)
    (run_dir / "results.json").write_text(
        json.dumps(results, indent=2, allow_nan=False) + "\n", encoding="utf-8"
    )
    return results
