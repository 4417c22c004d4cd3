"""The label-bias report: RSD and BiasScore per label view, before and after calibration."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fairpanel.report import (
    DisplayTables,
    Section,
    StudyPage,
    StudyVerdict,
)
from fairpanel.studies.label_bias._figures import label_bias_figure
from fairpanel.studies.label_bias._readers import CALIBRATIONS, LabelBiasResults, LabelView

__all__ = ["label_bias_report"]


def _sentence(text: str) -> str:
    """``text`` as a sentence: capitalised, with a full stop."""
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _stages(views: list[LabelView]) -> list[tuple[str, str]]:
    """The calibration stages these views hold: a stored run's (``fairpanel label-bias``) has
    no contextual calibration, which needs content-free prompts."""
    return [
        (key, label)
        for key, label in CALIBRATIONS
        if any(getattr(v, key) is not None for v in views)
    ]


def label_bias_report(results: Mapping[str, Any]) -> StudyPage:
    """The view with the largest label bias, then RSD and BiasScore of every view."""
    tables = DisplayTables(results)
    read = LabelBiasResults.model_validate(results)
    views = [v for v in read.views if v.before is not None]
    stages = _stages(views) or list(CALIBRATIONS)
    names = {"before": "none", "contextual": "contextual", "leave_one_out": "leave-one-out"}
    if not views:
        verdict = StudyVerdict("nodata", "No verdict yet", "No readable verdicts stored yet.")
    else:
        worst = max(views, key=lambda v: v.stage("before").bias_score or 0)

        def line(view: LabelView) -> str:
            scores = [view.stage(key).bias_score for key, _ in stages]
            rsd = view.stage("before").rsd
            path = " → ".join(f"{s:.3f}" for s in scores if s is not None)
            return f"{view.name}: BiasScore {path}" + (
                f", RSD {rsd:.3f} before calibration" if rsd is not None else ""
            )

        verdict = StudyVerdict(
            "measured",
            "Label bias measured",
            f"Largest label bias before calibration: {line(worst)} ("
            + " → ".join(names[key] for key, _ in stages)
            + ").",
            [line(v) for v in views if v is not worst],
        )
    source = f"Verdicts stored in a {read.source} run" if read.source else ""
    contextual = (
        read.contextual_calibration and f"Contextual calibration: {read.contextual_calibration}"
    )
    parts = [
        source,
        "RSD: relative spread of per-label accuracy; BiasScore: how far the mean label "
        "distribution is from uniform",
        read.probability_method,
        read.loo_method,
        contextual,
    ]
    section = Section(
        "label-bias",
        "Label bias before and after calibration",
        " ".join(_sentence(part) for part in parts if part),
    )
    section.figure(
        label_bias_figure(views),
        "RSD and BiasScore per label view, "
        + ", ".join(
            {"before": "uncalibrated", "contextual": "with contextual calibration"}.get(
                key, "leave-one-out"
            )
            for key, _ in stages
        )
        + f" ({read.calibration}).",
        "No readable verdicts to draw.",
    )
    tables.claim(section, "Label bias")
    return StudyPage(verdict, [section])
