"""The HTML report of a study run: the shared page around the sections the study brings.

The same page, look and shared sections as the judge-panel report (``_base`` and
``_components`` templates, ``_figure`` style): a verdict card, the run's tiles and warnings,
the sections the study itself produced (a ``StudyPage``, from ``Study.report``), any display
table none of them showed, then cost and provenance. Only what the caller passes is shown, with
URLs and secret-looking keys redacted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from fairpanel.report._html import environment, integer, redact
from fairpanel.report._numbers import percent
from fairpanel.report._served import SERVED_FIELDS, replica_rows, served_rows
from fairpanel.report._study_sections import Section, StudyPage, StudyVerdict, unclaimed_tables

__all__ = ["StudyReportInputs", "render_study_report", "study_report_context"]

_MANIFEST_FIELDS = {"study", "python", "platform", "packages", "models", "seed"}


@dataclass
class StudyReportInputs:
    """What a study report is made from; everything but ``results`` and ``page`` is optional.

    ``page`` is what the study made of ``results`` (``Study.report(results)``).
    """

    results: Mapping[str, Any]
    page: StudyPage
    run_name: str = "study"
    summary: Mapping[str, Any] | None = None
    manifest: Mapping[str, Any] | None = None
    experiment: Mapping[str, Any] | None = None
    generated_at: str | None = None
    unit: str = "items"
    results_file: str = "results.json"
    """The run folder's file ``results`` came from (the page's footer names it)."""
    """What ``results["items_stored"]`` and summary.json count: a page about a judge-panel run
    (``fairpanel label-bias``) counts trials."""


def _tiles(
    results: Mapping[str, Any], summary: Mapping[str, Any], unit: str
) -> list[dict[str, str]]:
    stored = results.get("items_stored") or {}
    tiles = [
        {
            "label": f"{unit} stored",
            "value": integer(int(stored.get("ok", 0)) + int(stored.get("failed", 0))),
            "sub": f"{integer(stored.get('ok', 0))} ok · {integer(stored.get('failed', 0))} failed",
        }
    ]
    if summary:
        cost = summary.get("cost") or {}
        unpriced = cost.get("unpriced_models") or []
        tiles.append(
            {
                "label": "model calls",
                "value": integer(summary.get("calls_made", 0)),
                "sub": f"{integer(summary.get('calls_cached', 0))} answered from the store",
            }
        )
        tiles.append(
            {
                "label": "cost",
                "value": f"${float(cost.get('total_usd') or 0):,.2f}",
                "sub": ("no price for " + ", ".join(unpriced))
                if unpriced
                else f"{percent(summary.get('cached_token_share'))} prompt tokens cached",
            }
        )
    return tiles


def _warnings(results: Mapping[str, Any], summary: Mapping[str, Any], unit: str) -> list[str]:
    found = []
    failed = int((results.get("items_stored") or {}).get("failed", 0))
    if failed:
        found.append(f"{failed:,} {unit} failed and count in no statistic below.")
    if summary.get("stopped"):
        found.append(f"The run stopped early: {summary['stopped']}. Results cover what was stored.")
    return found


def _redacted(page: StudyPage) -> StudyPage:
    """The study's page with the same redaction as everything else on it."""
    verdict = page.verdict
    return StudyPage(
        StudyVerdict(
            verdict.tone,
            redact(verdict.label),
            redact(verdict.sentence),
            [redact(d) for d in verdict.details],
        ),
        [
            Section(
                section.id,
                redact(section.title),
                redact(section.lede),
                [
                    replace(
                        block,
                        caption=redact(block.caption),
                        note=None if block.note is None else redact(block.note),
                        table=None if block.table is None else redact(block.table),
                    )
                    for block in section.blocks
                ],
            )
            for section in page.sections
        ],
    )


def study_report_context(inputs: StudyReportInputs) -> dict[str, Any]:
    """Everything ``study.html.j2`` reads; public for tests."""
    results = redact(inputs.results)
    summary = redact(inputs.summary) if inputs.summary else None
    manifest = redact(inputs.manifest) if inputs.manifest else None
    page = _redacted(inputs.page)
    sections = list(page.sections)
    rest = unclaimed_tables(results.get("tables") or [], sections)
    if rest is not None:
        sections.append(rest)
    models = (manifest or {}).get("models") or {}
    return {
        "run_name": inputs.run_name,
        "study": str(results.get("study", "")),
        "generated_at": inputs.generated_at,
        "verdict": page.verdict,
        "unit": inputs.unit,
        "results_file": inputs.results_file,
        "tiles": _tiles(results, summary or {}, inputs.unit),
        "warnings": _warnings(results, summary or {}, inputs.unit),
        "sections": sections,
        "toc": [(s.id, s.title) for s in sections]
        + [("cost", "Cost"), ("provenance", "Provenance")],
        "summary": summary,
        "manifest": manifest,
        "model_rows": [(str(role), str(model)) for role, model in models.items()]
        + served_rows(manifest)
        + replica_rows(summary),
        "extras": [
            (k, v)
            for k, v in (manifest or {}).items()
            if k not in _MANIFEST_FIELDS and k not in SERVED_FIELDS
        ],
        "experiment_json": json.dumps(redact(inputs.experiment), indent=2)
        if inputs.experiment
        else None,
    }


def render_study_report(inputs: StudyReportInputs) -> str:
    """The study report as one self-contained HTML document."""
    context = study_report_context(inputs)
    context["present"] = {id_: True for id_, _ in context["toc"]}
    return environment().get_template("study.html.j2").render(**context)
