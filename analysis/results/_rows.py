"""The rows and small blocks of results.json as typed models; ``results._run`` puts them together
into an arm's results and the whole file.

Field order is the order of the keys in results.json, so the file is the models' plain dump.
Numbers keep the type the statistics gave them (``Number`` is ``float | int``, never coerced),
and a value a statistic could not define (NaN) is ``None``. Reading is lenient: unknown keys are
ignored and fields added in later versions have defaults, so older files load.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, TypeAlias

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, WrapSerializer
from pydantic_core.core_schema import SerializerFunctionWrapHandler

__all__ = [
    "AgreementRow",
    "BradleyTerryAbility",
    "BradleyTerryFit",
    "BradleyTerryTerm",
    "ChiSquareRow",
    "ConformityRow",
    "DebateBlock",
    "DebateShiftRow",
    "EffectRow",
    "FailureByIdentityRow",
    "FailureRow",
    "FamilyRow",
    "HeadlineBlock",
    "MeanScoreRow",
    "MeanScoresBlock",
    "Number",
    "OptionalPositionBias",
    "PairBlock",
    "PositionBiasBlock",
    "ResultsModel",
    "ScoreDifferenceBlock",
    "SelfPreferenceRow",
    "SingleBlock",
    "WinRateRow",
]

Number: TypeAlias = float | int
"""A statistic as computed: a float stays a float and an int an int (pydantic's smart union
picks the exact type), so the JSON dump writes ``3`` and ``3.0`` where the analysis did."""


def _none_if_empty(value: Any) -> Any:
    return None if isinstance(value, Mapping) and not value else value


def _empty_if_none(value: Any, handler: SerializerFunctionWrapHandler) -> Any:
    return {} if value is None else handler(value)


class ResultsModel(BaseModel):
    """Lenient on reading (unknown keys ignored), frozen once built."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class MeanScoreRow(ResultsModel):
    category: str
    identity: str
    creativity: Number | None = None
    accuracy: Number | None = None
    efficiency: Number | None = None
    reliability: Number | None = None
    overall: Number | None = None
    n: int = 0
    n_trials: int = 0


class MeanScoresBlock(ResultsModel):
    method: str = ""
    protocol: str = ""
    round_kind: str = "final"
    rows: list[MeanScoreRow] = Field(default_factory=list)


class ChiSquareRow(ResultsModel):
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


class ScoreDifferenceBlock(ResultsModel):
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


class WinRateRow(ResultsModel):
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
    tie_share: Number | None = None


class SingleBlock(ResultsModel):
    mean_scores: MeanScoresBlock = Field(default_factory=MeanScoresBlock)
    chi_square: list[ChiSquareRow] = Field(default_factory=list)
    score_difference: dict[str, ScoreDifferenceBlock] = Field(default_factory=dict)


class PairBlock(ResultsModel):
    mean_scores: MeanScoresBlock = Field(default_factory=MeanScoresBlock)
    chi_square: list[ChiSquareRow] = Field(default_factory=list)
    win_rates: list[WinRateRow] = Field(default_factory=list)


class FailureRow(ResultsModel):
    protocol: str
    category: str
    judge: str
    turns: int = 0
    failures: int = 0
    rate: Number | None = None
    n: int = 0
    method: str = ""


class HeadlineBlock(ResultsModel):
    """The run's answer. ``verdict`` and ``identity_effect`` rest on the primary family only
    (``tests`` of them, corrected together by ``procedure``); ``exploratory`` lists secondary
    rows called at their false discovery rate, which never change the verdict. ``position`` is
    a separate claim with its own test. ``identity_effect`` is None when no verdict is possible
    (no paired data, or fewer than ``min_bases`` base scenarios).

    ``mde`` is what the run could have seen: the smallest minimum detectable effect of the
    tested primary contrasts (80% power at Holm's first step, alpha / ``tests``, from the run's
    own spread of base-scenario means), in ``mde_scale`` units: score points on the 0-10 scale
    when the run has single-protocol contrasts, else the pair protocol's win share - 0.5. A
    shift that large on one contrast is found in 80% of runs like this one. None (and ``""``)
    when nothing was tested, and in files written before it existed."""

    verdict: str = ""
    alpha: Number = 0.05
    tests: int | None = None
    detected: list[str] = Field(default_factory=list)
    identity_effect: bool | None = None
    procedure: str = ""
    secondary_tests: int = 0
    exploratory: list[str] = Field(default_factory=list)
    n_bases: int = 0
    min_bases: int = 0
    position: str = ""
    position_bias: bool | None = None
    skipped: list[str] = Field(default_factory=list)
    mde: Number | None = None
    mde_scale: str = ""


class EffectRow(ResultsModel):
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
    role: str = ""
    tie_share: Number | None = None
    mde: Number | None = None
    """A tested primary row's minimum detectable effect, in ``scale`` units: the shift its
    cluster t test finds in 80% of runs like this one at alpha / (primary tests), Holm's first
    step. None for secondary and interaction rows, untested rows, and older files."""


class FamilyRow(ResultsModel):
    family: str
    size: int = 0
    method: str = ""
    role: str = ""


class PositionBiasBlock(ResultsModel):
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
    called: bool | None = None
    verdict: str = ""
    n_twins: int = 0
    n_clusters: int = 0
    tie_share: Number | None = None
    test: str = ""


OptionalPositionBias = Annotated[
    PositionBiasBlock | None,
    BeforeValidator(_none_if_empty),
    WrapSerializer(_empty_if_none),
]
"""A position-bias block, or none when the run has no verdicts (``{}`` in the file)."""


class BradleyTerryTerm(ResultsModel):
    estimate: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None


class BradleyTerryAbility(ResultsModel):
    identity: str
    estimate: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None


class BradleyTerryFit(ResultsModel):
    category: str
    abilities: list[BradleyTerryAbility] = Field(default_factory=list)
    position: BradleyTerryTerm | None = None
    confidence: Number = 0.95
    n: int = 0
    n_clusters: int = 0
    n_boot: int = 0
    method: str = ""


class AgreementRow(ResultsModel):
    protocol: str = ""
    round_kind: str = ""
    metric: str = ""
    level: str = ""
    alpha: Number | None = None
    n_units: int = 0
    n_judges: int = 0
    method: str = ""


class DebateShiftRow(ResultsModel):
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


class ConformityRow(ResultsModel):
    judge: str
    moved_toward_others: Number | None = None
    moved_away: Number | None = None
    unchanged_distance: Number | None = None
    n: int = 0
    method: str = ""


class DebateBlock(ResultsModel):
    shift_by_identity: list[DebateShiftRow] = Field(default_factory=list)
    conformity: list[ConformityRow] = Field(default_factory=list)


class FailureByIdentityRow(ResultsModel):
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


class SelfPreferenceRow(ResultsModel):
    """One second model's self-preference contrast under one protocol: ``estimate`` is the
    shift under the second model's own panel minus the shift under the responder's panel
    (positive: the judges prefer their own model's answers). ``p_holm`` is Holm over the
    run's self-preference rows; ``reason`` says why a row was not tested."""

    manipulation: str
    protocol: str
    own_model: str
    own_panel: str | None = None
    responder_model: str
    responder_panel: str | None = None
    scale: str = ""
    estimate: Number | None = None
    ci_low: Number | None = None
    ci_high: Number | None = None
    p_value: Number | None = None
    p_holm: Number | None = None
    n_bases: int = 0
    called: bool = False
    reason: str | None = None
    method: str = ""
