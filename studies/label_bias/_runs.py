"""Label bias over a stored run: a judge-panel (MALIBU) run, an award audit or a B-score run.

No model is called, so contextual calibration (which needs content-free prompts) is not
available here; the leave-one-out variant is. For a judge panel, a pair trial's label
probabilities are the shares of the judges' final verdicts (each judge's last parsed turn);
in the studies every answer is its own one-sample prompt. ``fairpanel label-bias RUN_DIR``
writes the result to ``RUN_DIR/label_bias.json``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from fairpanel.judging.store import STORE_FILE, RunFiles, Store
from fairpanel.report import StudyReportInputs, render_study_report, write_report_html
from fairpanel.studies._load import config_from_run
from fairpanel.studies.label_bias._report import label_bias_report
from fairpanel.studies.label_bias._stats import LabelOutcome, label_bias_view
from fairpanel.studies.label_bias._views import LEVELS, label_bias_tables, verdict_outcome

__all__ = [
    "LABEL_BIAS_FILE",
    "LABEL_BIAS_REPORT",
    "Calibration",
    "label_bias_of_run",
    "write_label_bias",
    "write_label_bias_report",
]

LABEL_BIAS_FILE = "label_bias.json"
LABEL_BIAS_REPORT = "label_bias.html"
"""Beside the run's own report.html, which it leaves alone."""
POSITIONS = ("A", "B")
Calibration = Literal["renormalise", "softmax"]


def _final_turns(store: Store) -> dict[str, list[dict[str, Any]]]:
    """Each judge's last parsed answer per trial."""
    last: dict[tuple[str, str], dict[str, Any]] = {}
    for turn in store.iter_turns():
        if turn["parsed"] is not None:
            last[(turn["trial_key"], turn["judge"])] = turn
    finals: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for (trial_key, _), turn in last.items():
        finals[trial_key].append(turn["parsed"])
    return finals


def _levels(parsed: list[dict[str, Any]], candidate: str | None) -> list[str]:
    scores = [p if candidate is None else p.get(candidate, {}) for p in parsed]
    return [
        str(round(float(value)))
        for score in scores
        for key, value in score.items()
        if key != "reason" and isinstance(value, int | float)
    ]


def _panel_outcomes(store: Store, baseline: str) -> Iterator[tuple[str, LabelOutcome]]:
    finals = _final_turns(store)
    for key, spec, status, _, _ in store.iter_trials():
        if status != "ok" or spec.get("arm", "main") != "main":
            continue
        if spec.get("treatment", "none") != baseline:
            continue
        parsed, scenario, labels = finals.get(key, []), spec["scenario_id"], spec["identities"]
        if spec["protocol"] == "single":
            found = verdict_outcome(
                _levels(parsed, None), LEVELS, reference="-", context="", group=scenario
            )
            if found is not None:
                yield f"score level ({labels[0]})", found
            continue
        winners = [p["winner"] for p in parsed if p.get("winner") in POSITIONS]
        reference = POSITIONS[0] if spec["response_indices"][0] == 1 else POSITIONS[1]
        found = verdict_outcome(winners, POSITIONS, reference=reference, context="", group=scenario)
        if found is not None:
            yield f"position ({spec['category']})", found
        if labels[0] != labels[1]:
            pair = sorted(labels)
            found = verdict_outcome(
                [labels[POSITIONS.index(w)] for w in winners],
                pair,
                reference=labels[POSITIONS.index(reference)],
                context="",
                group=scenario,
            )
            if found is not None:
                yield f"identity ({pair[0]} vs {pair[1]})", found


def _award_outcomes(store: Store) -> Iterator[tuple[str, LabelOutcome]]:
    for record in store.iter_study_items("award-audit"):
        result = record.result or {}
        if record.status != "ok" or result.get("chosen_position") is None:
            continue
        spec = record.spec
        students = spec["students"]
        first_vector = 0 if students[0]["vector"] == 1 else 1
        chosen = int(result["chosen_position"]) - 1
        group = f"{spec['level']}/{spec['pair_index']}"
        places = ("first listed", "second listed")
        yield (
            "position",
            LabelOutcome(
                reference=places[first_vector],
                probs={p: float(i == chosen) for i, p in enumerate(places)},
                group=group,
            ),
        )
        groups = spec["groups"]
        yield (
            "group",
            LabelOutcome(
                reference=spec["first_vector_to"],
                probs={g: float(g == students[chosen]["group"]) for g in groups},
                group=group,
            ),
        )


def _bscore_outcomes(store: Store) -> Iterator[tuple[str, LabelOutcome]]:
    for record in store.iter_study_items("bscore"):
        if record.status != "ok":
            continue
        question, result = record.spec["question"], record.result or {}
        for query in result.get("single", []):
            if query.get("answer") is None:
                continue
            order = query["order"]
            if record.spec["source"] == "judge":
                reference = POSITIONS[0] if query["first_response"] == 1 else POSITIONS[1]
                picked = POSITIONS[order.index(query["answer"])]
                group = str(record.spec["scenario_id"])
                yield (
                    "judge position",
                    LabelOutcome(
                        reference, {p: float(p == picked) for p in POSITIONS}, group=group
                    ),
                )
                yield (
                    f"judge identity ({' vs '.join(sorted(order))})",
                    LabelOutcome(
                        order[POSITIONS.index(reference)],
                        {o: float(o == query["answer"]) for o in sorted(order)},
                        group=group,
                    ),
                )
            elif question["answer"] is not None and question["listed"]:
                places = [str(i + 1) for i in range(len(order))]
                yield (
                    f"option position ({len(order)} options)",
                    LabelOutcome(
                        places[order.index(question["answer"])],
                        {p: float(p == places[order.index(query["answer"])]) for p in places},
                        group=question["id"],
                    ),
                )


def _label_space(name: str, outcomes: list[LabelOutcome]) -> list[str]:
    if name.startswith("score level"):
        return list(LEVELS)
    return list(outcomes[0].probs)


def label_bias_of_run(
    run_dir: Path, calibration: Calibration = "renormalise", files: RunFiles | None = None
) -> dict[str, Any]:
    """The label-bias views of a stored run (raises ValueError for runs it does not cover);
    ``files`` are the folder's JSON files when the caller already read them."""
    files = files if files is not None else RunFiles.read(run_dir)
    config = config_from_run(files)
    # The baseline treatment: the first the experiment names.
    baseline = files.treatments[0] if files.treatments else "none"
    store = Store(run_dir / STORE_FILE)
    try:
        if config is None:
            source, found = "judge panel", list(_panel_outcomes(store, baseline))
        elif config.study == "award-audit":
            source, found = "award audit", list(_award_outcomes(store))
        elif config.study == "bscore":
            source, found = "B-score (single-turn answers)", list(_bscore_outcomes(store))
        else:
            raise ValueError(
                f"label bias of a {config.study!r} run is in its own results.json; "
                "this command covers judge-panel, award-audit and bscore runs"
            )
    finally:
        store.close()
    grouped: dict[str, list[LabelOutcome]] = defaultdict(list)
    for name, outcome in found:
        grouped[name].append(outcome)
    views = [
        {"name": name, **label_bias_view(outs, _label_space(name, outs), method=calibration)}
        for name, outs in sorted(grouped.items())
    ]
    return {
        "run": str(run_dir),
        "source": source,
        "probability_method": "judge panel: shares of the judges' final verdicts per trial "
        "(score levels: of their final scores); studies: each answer is a one-sample prompt "
        "(probability 1 on the label it chose)",
        "calibration": calibration,
        "contextual_calibration": "not available for a stored run (it needs content-free "
        "prompts): run `study: label-bias` on the same judge",
        "loo_method": "leave-one-out over scenarios (award audit: answer-table pairs; "
        "B-score: questions), label-aware means as in the paper; a one-sample prompt's "
        "answer has probability 1 on one label, which calibration cannot move, so for the "
        "studies the calibrated metrics equal the uncalibrated ones",
        "views": views,
        "tables": label_bias_tables(views, f"Label bias in a stored {source} run"),
    }


def write_label_bias(
    run_dir: Path, calibration: Calibration = "renormalise", files: RunFiles | None = None
) -> dict[str, Any]:
    """The label-bias views of a stored run, also written to RUN_DIR/label_bias.json."""
    results = label_bias_of_run(run_dir, calibration, files)
    (run_dir / LABEL_BIAS_FILE).write_text(
        json.dumps(results, indent=2, allow_nan=False) + "\n", encoding="utf-8"
    )
    return results


def write_label_bias_report(
    run_dir: Path, results: dict[str, Any], files: RunFiles | None = None
) -> Path:
    """RUN_DIR/label_bias.html: the label-bias study's page over ``results`` (what
    ``label_bias_of_run`` returned), with the run's own summary, manifest and config (from
    ``files`` when the caller already read them)."""
    files = files if files is not None else RunFiles.read(run_dir)
    summary = files.summary
    unit = "trials" if summary is not None and "trials_ok" in summary else "items"
    counts = summary or {}
    page_results = {
        **results,
        "study": "label-bias",
        "items_stored": {
            "ok": counts.get(f"{unit}_ok", 0),
            "failed": counts.get(f"{unit}_failed", 0),
        },
    }
    html = render_study_report(
        StudyReportInputs(
            results=page_results,
            page=label_bias_report(page_results),
            run_name=f"label bias of {files.name or run_dir.name}",
            summary=summary,
            manifest=files.manifest,
            experiment=files.experiment,
            generated_at=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            unit=unit,
            results_file=LABEL_BIAS_FILE,
        )
    )
    return write_report_html(run_dir, html, LABEL_BIAS_REPORT)
