"""results.json as typed models: one arm's results (``ArmResults``, what ``analyze_arm``
returns) and the whole file (``RunResults``), read by the report and the terminal tables. The
rows they hold are in ``results._rows``.

Field order is the order of the keys in results.json, so the file is the models' plain dump.
Reading is lenient: unknown keys are ignored and every block is optional, so a results.json
written by an older version loads with its missing blocks empty. Writing is exact:
``ArmResults.from_report`` refuses a report with a key the models do not carry, so no statistic
is dropped on its way to disk.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, BeforeValidator, Field, WrapSerializer
from pydantic_core.core_schema import SerializerFunctionWrapHandler

from fairpanel.analysis.results._panel_block import PanelComparisonBlock
from fairpanel.analysis.results._rows import (
    AgreementRow,
    BradleyTerryFit,
    DebateBlock,
    EffectRow,
    FailureByIdentityRow,
    FailureRow,
    FamilyRow,
    HeadlineBlock,
    Number,
    OptionalPositionBias,
    PairBlock,
    ResultsModel,
    SelfPreferenceRow,
    SingleBlock,
)

__all__ = [
    "ArmResults",
    "BiasProfileRow",
    "ControlFalsePositives",
    "DesignBlock",
    "InjectionShiftRow",
    "LabelSwapRow",
    "LabelSwapTests",
    "RunResults",
]

_Block = TypeVar("_Block", bound=BaseModel)


class ArmResults(ResultsModel):
    """What ``analyze`` computes for one arm under one treatment (the main arm's blocks lead
    results.json; each control arm and each further treatment has its own)."""

    n_trials: dict[str, int] = Field(default_factory=dict)
    round_kind: str = "final"
    single: SingleBlock = Field(default_factory=SingleBlock)
    pair: PairBlock = Field(default_factory=PairBlock)
    failures: list[FailureRow] = Field(default_factory=list)
    headline: HeadlineBlock | None = None
    effects: list[EffectRow] = Field(default_factory=list)
    multiple_comparisons: list[FamilyRow] = Field(default_factory=list)
    position_bias: OptionalPositionBias = None
    bradley_terry: list[BradleyTerryFit] = Field(default_factory=list)
    agreement: list[AgreementRow] = Field(default_factory=list)
    debate: DebateBlock = Field(default_factory=DebateBlock)
    failures_by_identity: list[FailureByIdentityRow] = Field(default_factory=list)

    @classmethod
    def from_report(cls: type[_Block], report: Mapping[str, Any]) -> _Block:
        """The typed form of a freshly computed report; raises ``ValueError`` when the models
        would lose or add a key, so the file written is exactly what was computed."""
        typed = cls.model_validate(report)
        if typed.model_dump() != report:
            raise ValueError(f"the {cls.__name__} models do not carry every computed key")
        return typed

    def to_json(self) -> dict[str, Any]:
        """The plain-JSON form, in results.json's key order."""
        return self.model_dump()


class DesignBlock(ResultsModel):
    """What the run's design holds and what the analysis did to it before testing:
    ``n_bases`` base scenarios (the unit every test generalises over), ``duplicates_dropped``
    trials that repeated an identical judge request and were counted once, and ``warnings``
    about the responses (two near-identical answers in one scenario, say)."""

    arms: list[str] = Field(default_factory=list)
    treatments: list[str] = Field(default_factory=list)
    signals: list[str] = Field(default_factory=list)
    n_bases: int = 0
    duplicates_dropped: int = 0
    warnings: list[str] = Field(default_factory=list)
    note: str = ""


class InjectionShiftRow(ResultsModel):
    judge_model: str
    n: int = 0
    score_shift: Number | None = None
    score_ci_low: Number | None = None
    score_ci_high: Number | None = None
    verdict_n: int = 0
    verdict_shift: Number | None = None
    verdict_ci_low: Number | None = None
    verdict_ci_high: Number | None = None
    flips_to_injected: int = 0
    flips_away: int = 0
    confidence: Number = 0.95
    method: str = ""


class BiasProfileRow(ResultsModel):
    """One manipulation arm's effect on one panel under one protocol: how far the panel's
    consensus moves when one candidate is manipulated (longer, cited, confident, endorsed by
    earlier reviewers, ...) and nothing else changes, paired with the untouched twin.

    ``estimate`` is the mean over base scenarios of each base's mean paired difference
    (manipulated minus untouched): in score points (0-10 scale, the mean of the four metrics)
    for ``single``, in win share (-1..1) of the manipulated candidate for ``pair``. The
    interval and ``p_value`` come from one cluster bootstrap over base scenarios, so they
    agree; ``p_holm`` is Holm-adjusted within the manipulation family (every manipulation and
    protocol of the panel, the same-text control included), and ``called`` is
    ``p_holm < alpha``. ``control`` marks the same-text control (no manipulation applied,
    judged afresh): a call there is a false call of the rule itself."""

    manipulation: str
    kind: str = ""
    control: bool = False
    protocol: str = ""
    measure: str = ""
    scale: str = ""
    estimate: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None
    confidence: Number = 0.95
    p_value: Number | None = None
    p_holm: Number | None = None
    n_pairs: int = 0
    n_bases: int = 0
    called: bool = False
    verdict: str = ""
    test: str = ""
    method: str = ""


class LabelSwapRow(ResultsModel):
    """One pseudo label swap of the same-label arm: a label pair's cluster test."""

    category: str = ""
    contrast: str = ""
    estimate: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None
    p_value: Number | None = None
    n: int = 0
    n_clusters: int = 0
    rejected: bool = False
    reason: str | None = None


class LabelSwapTests(ResultsModel):
    """The same-label arm's pseudo label swaps: how many label pairs were tested and how many
    rejected at unadjusted ``alpha`` (``untested``: why the rest got no p-value)."""

    tests: int = 0
    rejected: int = 0
    rate: Number | None = None
    alpha: Number = 0.05
    untested: list[str] = Field(default_factory=list)
    rows: list[LabelSwapRow] = Field(default_factory=list)
    test: str = ""
    method: str = ""


def _flag_or_none(value: Any) -> Any:
    """Files written before the arms had their own headline carry a position-bias block here;
    it said nothing about a call, so it reads as none."""
    return None if isinstance(value, Mapping) else value


class ControlFalsePositives(ResultsModel):
    """One control arm's own headline, read as the main arm's is: ``identity_effect`` and
    ``verdict`` from its primary family (None: the arm could not be tested), the position claim
    (``position_bias``, ``position``), the primary family's size; for the same-label arm also
    its pseudo label swaps."""

    n_trials: int = 0
    n_verdicts: int = 0
    identity_effect: bool | None = None
    verdict: str = ""
    position_bias: Annotated[bool | None, BeforeValidator(_flag_or_none)] = None
    position: str = ""
    primary_tests: int = 0
    detected: list[str] = Field(default_factory=list)
    label_swap_tests: LabelSwapTests | None = None

    def to_json(self) -> dict[str, Any]:
        """The plain-JSON form; an arm without label-swap tests (no swapped pairs) has no key."""
        dumped = self.model_dump()
        if self.label_swap_tests is None:
            dumped.pop("label_swap_tests")
        return dumped


def _drop_absent_swaps(value: Any, handler: SerializerFunctionWrapHandler) -> Any:
    return value.to_json() if isinstance(value, ControlFalsePositives) else handler(value)


ControlFalsePositivesEntry = Annotated[
    ControlFalsePositives | str, WrapSerializer(_drop_absent_swaps)
]
"""An arm's block, or the ``note`` string that sits beside them."""


class RunResults(ArmResults):
    """The whole of results.json: the main arm's blocks, then the run-level ones (absent from
    files written before they existed, and from an arm's own blocks)."""

    design: DesignBlock | None = None
    by_treatment: dict[str, ArmResults] = Field(default_factory=dict)
    treatment_effects: list[EffectRow] = Field(default_factory=list)
    control_arms: dict[str, ArmResults] = Field(default_factory=dict)
    injection_robustness: dict[str, InjectionShiftRow] = Field(default_factory=dict)
    control_false_positives: dict[str, ControlFalsePositivesEntry] = Field(default_factory=dict)
    bias_profile: list[BiasProfileRow] = Field(default_factory=list)
    """The manipulation arms' effects (``arms.manipulations``), one row per manipulation and
    protocol; empty when the run has none."""
    self_preference: list[SelfPreferenceRow] = Field(default_factory=list)
    """The self-preference arms' difference in differences between the panels judged by the
    responder's model and by the second model (a run that compares panels)."""
    panels: dict[str, RunResults] = Field(default_factory=dict)
    """Each panel's own results, in a run that compares panels on the same trials."""
    panel_comparison: PanelComparisonBlock | None = None
    """The panels compared on the same trials: leaderboard and paired differences."""

    @classmethod
    def assemble(
        cls,
        main: ArmResults,
        *,
        design: DesignBlock,
        by_treatment: Mapping[str, ArmResults],
        treatment_effects: Sequence[Any] = (),
        control_arms: Mapping[str, ArmResults],
        injection_robustness: Mapping[str, Any],
        control_false_positives: Mapping[str, Any],
        bias_profile: Sequence[Any] = (),
    ) -> RunResults:
        """results.json from its parts: the main arm under the baseline treatment leads, then
        the design, each further treatment, the treatment x label interactions (each further
        treatment against the baseline), each control arm, the injection shifts by judge model
        and the control arms' own headlines."""
        return cls.model_validate(
            {
                **dict(main),
                "design": design,
                "by_treatment": dict(by_treatment),
                "treatment_effects": list(treatment_effects),
                "control_arms": dict(control_arms),
                "injection_robustness": dict(injection_robustness),
                "control_false_positives": dict(control_false_positives),
                # Absent, not empty, in a run without manipulation arms.
                **({"bias_profile": list(bias_profile)} if bias_profile else {}),
            }
        )

    def to_json(self) -> dict[str, Any]:
        """The plain-JSON form; a run-level block the results were given without (an arm's
        own results, a file from before the block existed) stays absent rather than empty."""
        dumped = self.model_dump()
        for name in _RUN_LEVEL_BLOCKS - self.model_fields_set:
            del dumped[name]
        return dumped

    @classmethod
    def read(cls, path: Path) -> RunResults:
        """Load a run folder's results.json, whichever version wrote it."""
        return cls.model_validate(json.loads(path.read_text(encoding="utf-8")))

    def false_positive_arms(self) -> dict[str, ControlFalsePositives]:
        """The control arms' false-positive blocks, without the note."""
        return {
            name: block
            for name, block in self.control_false_positives.items()
            if isinstance(block, ControlFalsePositives)
        }

    @property
    def false_positive_note(self) -> str | None:
        note = self.control_false_positives.get("note")
        return note if isinstance(note, str) else None


_RUN_LEVEL_BLOCKS = frozenset(RunResults.model_fields) - frozenset(ArmResults.model_fields)
