"""The label-bias results.json blocks as its report reads them.

Typed views over what ``LabelBias.analyze`` wrote (they ignore fields the report does not
show, and every field has a default, so a partial or older results file still reads).
"""

from __future__ import annotations

from pydantic import Field

from fairpanel.studies._base import ResultsReader

__all__ = ["CALIBRATIONS", "LabelBiasResults", "LabelView", "ViewScores"]

CALIBRATIONS = (("before", "none"), ("contextual", "contextual"), ("leave_one_out", "LOO"))
"""Each view's result blocks, in the order calibration is applied, with their legend names."""


class ViewScores(ResultsReader):
    """A view's label bias at one stage of calibration (RSD needs reference labels)."""

    rsd: float | None = None
    bias_score: float | None = None


class LabelView(ResultsReader):
    name: str
    before: ViewScores | None = None
    contextual: ViewScores | None = None
    leave_one_out: ViewScores | None = None

    def stage(self, key: str) -> ViewScores:
        """The scores after calibration ``key`` (a key of ``CALIBRATIONS``); empty if none."""
        found = {
            "before": self.before,
            "contextual": self.contextual,
            "leave_one_out": self.leave_one_out,
        }[key]
        return found if found is not None else ViewScores()


class LabelBiasResults(ResultsReader):
    source: str = ""
    """Set for a stored run's label bias (``fairpanel label-bias``): the kind of run read."""
    probability_method: str = ""
    contextual_calibration: str = ""
    loo_method: str = ""
    calibration: str = ""
    views: list[LabelView] = Field(default_factory=list)
