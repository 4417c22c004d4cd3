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


def label_bias_report(results: Mapping[str, Any]) -> StudyPage:
    """The view with the largest label bias, then RSD and BiasScore of every view."""
    tables = DisplayTables(results)
    read = LabelBiasResults.model_validate(results)
    views = [v for v in read.views if v.before is not None]
    if not views:
        verdict = StudyVerdict("nodata", "No verdict yet", "No readable verdicts stored yet.")
    else:
        worst = max(views, key=lambda v: v.stage("before").bias_score or 0)

        def line(view: LabelView) -> str:
            scores = [view.stage(key).bias_score for key, _ in CALIBRATIONS]
            rsd = view.stage("before").rsd
            path = " → ".join(f"{s:.3f}" for s in scores if s is not None)
            return f"{view.name}: BiasScore {path}" + (
                f", RSD {rsd:.3f} before calibration" if rsd is not None else ""
            )

        verdict = StudyVerdict(
            "measured",
            "Label bias measured",
            f"Largest label bias before calibration: {line(worst)} (none → contextual → "
            "leave-one-out).",
            [line(v) for v in views if v is not worst],
        )
    section = Section(
        "label-bias",
        "Label bias before and after calibration",
        f"RSD: relative spread of per-label accuracy; BiasScore: how far the mean label "
        f"distribution is from uniform. {read.probability_method} {read.loo_method}",
    )
    section.figure(
        label_bias_figure(views),
        "RSD and BiasScore per label view, uncalibrated, with contextual calibration and "
        f"leave-one-out ({read.calibration}).",
        "No readable verdicts to draw.",
    )
    tables.claim(section, "Label bias")
    return StudyPage(verdict, [section])
