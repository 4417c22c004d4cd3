"""The blocks of results.json as typed models: produced by ``analyze`` and ``RunResults``,
read by the report and the terminal tables.

Field order is the order of the keys in results.json, so the file is the models' plain dump.
Numbers keep the type the statistics gave them (``Number`` is ``float | int``, never coerced),
and a value a statistic could not define (NaN) is ``None``. Reading is lenient: unknown keys
are ignored and every block is optional, so a results.json written by an older version loads
with its missing blocks empty. Writing is exact: ``ArmResults.from_report`` refuses a report
with a key the models do not carry, so no statistic is dropped on its way to disk.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, TypeAlias, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WrapSerializer
from pydantic_core.core_schema import SerializerFunctionWrapHandler

__all__ = [
    "AgreementRow",
    "ArmResults",
    "BradleyTerryAbility",
    "BradleyTerryFit",
    "BradleyTerryTerm",
    "ChiSquareRow",
    "ConformityRow",
    "ControlFalsePositives",
    "DebateBlock",
    "DebateShiftRow",
    "DesignBlock",
    "EffectRow",
    "FailureByIdentityRow",
    "FailureRow",
    "FamilyRow",
    "HeadlineBlock",
    "InjectionShiftRow",
    "LabelSwapTests",
    "MeanScoreRow",
    "MeanScoresBlock",
    "PairBlock",
    "PositionBiasBlock",
    "RunResults",
    "ScoreDifferenceBlock",
    "SingleBlock",
    "WinRateRow",
]

Number: TypeAlias = float | int
"""A statistic as computed: a float stays a float and an int an int (pydantic's smart union
picks the exact type), so the JSON dump writes ``3`` and ``3.0`` where the analysis did."""

_Block = TypeVar("_Block", bound=BaseModel)


def _none_if_empty(value: Any) -> Any:
    return None if isinstance(value, Mapping) and not value else value


def _empty_if_none(value: Any, handler: SerializerFunctionWrapHandler) -> Any:
    return {} if value is None else handler(value)


class _Model(BaseModel):
    """Lenient on reading (unknown keys ignored), frozen once built."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class MeanScoreRow(_Model):
    category: str
    identity: str
    creativity: Number | None = None
    accuracy: Number | None = None
    efficiency: Number | None = None
    reliability: Number | None = None
    overall: Number | None = None
    n: int = 0
    n_trials: int = 0


class MeanScoresBlock(_Model):
    method: str = ""
    protocol: str = ""
    round_kind: str = "final"
    rows: list[MeanScoreRow] = Field(default_factory=list)


class ChiSquareRow(_Model):
    category: str
    metric: str
    protocol: str = ""
    round_kind: str = "final"
    identities: list[str] = Field(default_factory=list)
    levels: list[Number] = Field(default_factory=list)
    table: list[list[int]] = Field(default_factory=list)
    chi2: Number | None = None
    dof: int | None = None
    p_value: Number | None = None
    cramers_v: Number | None = None
    n: int = 0
    method: str = ""
    note: str | None = None


class ScoreDifferenceBlock(_Model):
    category: str
    metric: str = "overall"
    protocol: str = "single"
    round_kind: str = "final"
    identities: list[str] = Field(default_factory=list)
    means: list[Number | None] = Field(default_factory=list)
    counts: list[int] = Field(default_factory=list)
    matrix: list[list[Number | None]] = Field(default_factory=list)
    n: int = 0
    method: str = ""
    note: str | None = None


class WinRateRow(_Model):
    category: str
    identity: str
    appearances: int = 0
    wins: int = 0
    losses: int = 0
    ties: int = 0
    rate: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None
    confidence: Number = 0.95
    n: int = 0
    method: str = ""


class SingleBlock(_Model):
    mean_scores: MeanScoresBlock = Field(default_factory=MeanScoresBlock)
    chi_square: list[ChiSquareRow] = Field(default_factory=list)
    score_difference: dict[str, ScoreDifferenceBlock] = Field(default_factory=dict)


class PairBlock(_Model):
    mean_scores: MeanScoresBlock = Field(default_factory=MeanScoresBlock)
    chi_square: list[ChiSquareRow] = Field(default_factory=list)
    win_rates: list[WinRateRow] = Field(default_factory=list)


class FailureRow(_Model):
    protocol: str
    category: str
    judge: str
    turns: int = 0
    failures: int = 0
    rate: Number | None = None
    n: int = 0
    method: str = ""


class HeadlineBlock(_Model):
    verdict: str = ""
    alpha: Number = 0.05
    tests: int | None = None
    detected: list[str] = Field(default_factory=list)


class EffectRow(_Model):
    id: str
    family: str = ""
    protocol: str = ""
    category: str = ""
    metric: str = ""
    judge: str | None = None
    contrast: str = ""
    identity: str = ""
    versus: str | None = None
    estimate: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None
    confidence: Number = 0.95
    scale: str = ""
    cohen_h: Number | None = None
    p_value: Number | None = None
    n: int = 0
    n_clusters: int = 0
    test: str = ""
    method: str = ""
    p_holm: Number | None = None
    p_bh: Number | None = None
    verdict: str = ""


class FamilyRow(_Model):
    family: str
    size: int = 0
    method: str = ""


class PositionBiasBlock(_Model):
    first_position_win_rate: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None
    confidence: Number = 0.95
    n: int = 0
    n_ties: int = 0
    p_value: Number | None = None
    order_consistency: Number | None = None
    n_swapped_pairs: int = 0
    method: str = ""


OptionalPositionBias = Annotated[
    PositionBiasBlock | None,
    BeforeValidator(_none_if_empty),
    WrapSerializer(_empty_if_none),
]
"""A position-bias block, or none when the run has no verdicts (``{}`` in the file)."""


class BradleyTerryTerm(_Model):
    estimate: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None


class BradleyTerryAbility(_Model):
    identity: str
    estimate: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None


class BradleyTerryFit(_Model):
    category: str
    abilities: list[BradleyTerryAbility] = Field(default_factory=list)
    position: BradleyTerryTerm | None = None
    confidence: Number = 0.95
    n: int = 0
    n_clusters: int = 0
    n_boot: int = 0
    method: str = ""


class AgreementRow(_Model):
    protocol: str = ""
    round_kind: str = ""
    metric: str = ""
    level: str = ""
    alpha: Number | None = None
    n_units: int = 0
    n_judges: int = 0
    method: str = ""


class DebateShiftRow(_Model):
    protocol: str = ""
    category: str = ""
    identity: str = ""
    metric: str = ""
    first_mean: Number | None = None
    final_mean: Number | None = None
    shift: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None
    confidence: Number = 0.95
    n: int = 0
    method: str = ""


class ConformityRow(_Model):
    judge: str
    moved_toward_others: Number | None = None
    moved_away: Number | None = None
    unchanged_distance: Number | None = None
    n: int = 0
    method: str = ""


class DebateBlock(_Model):
    shift_by_identity: list[DebateShiftRow] = Field(default_factory=list)
    conformity: list[ConformityRow] = Field(default_factory=list)


class FailureByIdentityRow(_Model):
    category: str
    identity: str | None = None
    judge: str | None = None
    turns: int = 0
    failed: int = 0
    rate: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None
    confidence: Number = 0.95
    n: int = 0
    method: str = ""


class ArmResults(_Model):
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


class DesignBlock(_Model):
    arms: list[str] = Field(default_factory=list)
    treatments: list[str] = Field(default_factory=list)
    signals: list[str] = Field(default_factory=list)
    note: str = ""


class InjectionShiftRow(_Model):
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


class LabelSwapTests(_Model):
    tests: int = 0
    rejected: int = 0
    rate: Number | None = None
    alpha: Number = 0.05
    method: str = ""


class ControlFalsePositives(_Model):
    """One control arm's rejections where no identity contrast exists."""

    n_verdicts: int = 0
    position_bias: OptionalPositionBias = None
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
    control_arms: dict[str, ArmResults] = Field(default_factory=dict)
    injection_robustness: dict[str, InjectionShiftRow] = Field(default_factory=dict)
    control_false_positives: dict[str, ControlFalsePositivesEntry] = Field(default_factory=dict)

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
