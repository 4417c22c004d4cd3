"""results.json for a study run, and its display tables.

The analysis reads only the store, so ``fairpanel report`` re-derives the same results from a
finished (or half-finished) run folder at any time.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.table import Table

from fairpanel.judging import STORE_FILE, Store
from fairpanel.studies._base import StudyConfig
from fairpanel.studies._registry import build_study

__all__ = ["render_study_tables", "write_study_results"]


def write_study_results(run_dir: Path, config: StudyConfig) -> dict[str, Any]:
    """Analyse the study items stored in ``run_dir`` and write ``results.json`` beside them."""
    study = build_study(config)
    store = Store(run_dir / STORE_FILE)
    try:
        records = list(store.iter_study_items(config.study))
    finally:
        store.close()
    results: dict[str, Any] = {
        "study": config.study,
        "name": config.name,
        "items_stored": {
            "ok": sum(r.status == "ok" for r in records),
            "failed": sum(r.status == "failed" for r in records),
        },
        **study.analyze(records),
    }
    (run_dir / "results.json").write_text(
        json.dumps(results, indent=2, allow_nan=False) + "\n", encoding="utf-8"
    )
    return results


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1e-3 and value != 0 else f"{value:.3f}"
    return str(value)


def render_study_tables(results: Mapping[str, Any]) -> list[Table]:
    """Rich tables from the ``tables`` a study's analysis put in its results."""
    rendered = []
    for spec in results.get("tables", []):
        table = Table(title=spec["title"], caption=spec.get("note"))
        for column in spec["columns"]:
            table.add_column(str(column))
        for row in spec["rows"]:
            table.add_row(*(_cell(value) for value in row))
        rendered.append(table)
    return rendered
