"""A judge panel drawn from a random-effects model, for calibrating the headline at scale.

Real judges are not coin flips, and they are not independent from one judgment to the next:
an answer that is good in one arrangement is good in the other three, one judge is lenient on
everything, a judge who likes an answer likes it on every metric, the panel shares what it read
in the debate, and a judge's preference for a label or a position can change from one kind of
scenario to another while averaging to zero. Each of those dependencies makes naive tests
reject too often, so calibration measured without them is measured on easier data than real
runs give. This model draws all of them, for the very trials a design has, straight into the
frames ``load_frames`` would produce (integer scores 0-10, every judge's final answer, the
panel's mean and majority), in milliseconds rather than the mock provider's seconds, so that
``fairpanel simulate`` can run the headline rule over hundreds of runs.

One score (judge j, showing of response r of scenario s under label l at position p in trial t,
metric m) is ``round(base + quality[s,r] + quality[s,r,m] + leniency[j] + label[b,l] +
planted[l,m] + halo[t,p,j] + shared[t,p] + noise)`` clipped to 0-10, where b is the scenario's
base and every term but ``base`` and ``planted`` is a normal draw with its own standard
deviation (``PanelModel``). A pair judge picks the candidate with the larger sum of its four
scores (ties at random), except that with probability ``|position[b] + first_position|`` it
picks the first (positive) or second (negative) candidate whatever the scores; ``position[b]``
is the base scenario's own position preference, mean zero.

Several panels judging the same trials (``_panels``) share what the trials bring: the answers'
quality and the scenarios' label and position pulls come from one ``ScenarioDraws`` per panel,
drawn together; everything else is drawn per panel.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import pandas as pd

from fairpanel.judging.experiment import DEFAULT_PANEL, TrialSpec
from fairpanel.judging.store import (
    CONSENSUS_FRAME_COLUMNS,
    SCORE_FRAME_COLUMNS,
    TURN_FRAME_COLUMNS,
    VERDICT_FRAME_COLUMNS,
    RunFrames,
)

__all__ = ["PanelModel", "ScenarioDraws", "TrialTable", "model_frames", "trial_table"]

METRICS: tuple[str, ...] = ("creativity", "accuracy", "efficiency", "reliability")
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class PanelModel:
    """Standard deviations of the random effects (score points unless said otherwise), the
    planted shifts and the global position preference of one simulated panel."""

    base_score: float = 6.0
    noise_sd: float = 1.0
    quality_sd: float = 0.7
    quality_metric_sd: float = 0.4
    leniency_sd: float = 0.5
    halo_sd: float = 0.5
    shared_sd: float = 0.4
    label_base_sd: float = 0.2
    """Each base scenario's own preference for each label: a scenario-specific taste that
    averages to zero over scenarios (0.2 points moves a pair verdict by about 0.35 logits)."""
    position_base_sd: float = 0.09
    """Each base scenario's own first-position preference, as a share of verdicts decided by
    position (0.09 is about 0.35 logits of the first candidate's odds)."""
    first_position: float = 0.0
    """The position preference shared by every scenario (share; negative favours the second)."""
    planted: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """label -> metric -> shift in points (applied as drawn: a real shift, not rounded away)."""

    def describe(self) -> str:
        """The model in one sentence, for simulate.json."""
        return (
            f"integer scores 0-10 around {self.base_score:g}: answer quality sd "
            f"{self.quality_sd:g} (shared by its metrics) + {self.quality_metric_sd:g} per "
            f"metric, judge leniency sd {self.leniency_sd:g}, halo (one judge, one showing, all "
            f"metrics) sd {self.halo_sd:g}, debate-shared noise (all judges, one showing) sd "
            f"{self.shared_sd:g}, score noise sd {self.noise_sd:.2g}; each base scenario's own "
            f"label preference sd {self.label_base_sd:g} points and position preference sd "
            f"{self.position_base_sd:g} (share of verdicts), both mean zero; pair verdicts follow "
            "the summed scores except for position-decided ones"
        )


@dataclass(frozen=True)
class TrialTable:
    """A design's trials as index arrays (one entry per trial, per showing or per judge seat),
    built once and answered by many simulated panels."""

    keys: list[str]
    specs: list[TrialSpec]
    base: IntArray
    """Base scenario index per trial."""
    show_trial: IntArray
    show_position: IntArray
    show_label: IntArray
    show_answer: IntArray
    """(scenario, response) index per showing."""
    labels: list[str]
    judges: list[str]
    n_bases: int
    n_answers: int


def trial_table(specs: Sequence[TrialSpec], keys: Sequence[str] | None = None) -> TrialTable:
    """Index arrays for ``specs`` (``keys`` when already computed; they cost a hash each)."""
    base_index: dict[str, int] = {}
    label_index: dict[str, int] = {}
    answer_index: dict[tuple[str, int], int] = {}
    judges = sorted({seat.persona for spec in specs for seat in spec.seats})
    base, trial, position, label, answer = [], [], [], [], []
    for t, spec in enumerate(specs):
        base.append(base_index.setdefault(spec.base_id, len(base_index)))
        for p, (identity, response) in enumerate(
            zip(spec.identities, spec.response_indices, strict=True)
        ):
            trial.append(t)
            position.append(p)
            label.append(label_index.setdefault(identity, len(label_index)))
            answer.append(answer_index.setdefault((spec.scenario_id, response), len(answer_index)))
    return TrialTable(
        keys=list(keys) if keys is not None else [spec.key() for spec in specs],
        specs=list(specs),
        base=np.array(base, dtype=np.int64),
        show_trial=np.array(trial, dtype=np.int64),
        show_position=np.array(position, dtype=np.int64),
        show_label=np.array(label, dtype=np.int64),
        show_answer=np.array(answer, dtype=np.int64),
        labels=list(label_index),
        judges=judges,
        n_bases=len(base_index),
        n_answers=len(answer_index),
    )


@dataclass(frozen=True)
class ScenarioDraws:
    """What the trials bring whoever judges them, drawn once for several panels: the answers'
    quality (points, per answer and metric) and each base scenario's pull toward each label and
    toward a position, as standard normals that each panel scales by its own standard
    deviations (so panels whose pulls correlate can still differ in how strong they are)."""

    quality: FloatArray
    """(answer, metric), points."""
    label: FloatArray
    """(base, label), standard normal."""
    position: FloatArray
    """(base,), standard normal."""


def _planted(model: PanelModel, labels: list[str]) -> FloatArray:
    shift = np.zeros((len(labels), len(METRICS)))
    for label, metrics in model.planted.items():
        if label in labels:
            for metric, value in metrics.items():
                shift[labels.index(label), METRICS.index(metric)] = value
    return shift


def _scores(
    table: TrialTable,
    model: PanelModel,
    rng: np.random.Generator,
    shared: ScenarioDraws | None = None,
) -> FloatArray:
    """Scores as an array (showing, judge, metric); the answers' quality and the scenarios'
    label pulls come from ``shared`` when given (else they are drawn here, first)."""
    n_show, n_judges, n_metrics = table.show_trial.size, len(table.judges), len(METRICS)
    if shared is None:
        quality = rng.normal(0, model.quality_sd, table.n_answers)[:, None] + rng.normal(
            0, model.quality_metric_sd, (table.n_answers, n_metrics)
        )
        label = rng.normal(0, model.label_base_sd, (table.n_bases, len(table.labels)))
    else:
        quality, label = shared.quality, shared.label * model.label_base_sd
    leniency = rng.normal(0, model.leniency_sd, n_judges)
    show_base = table.base[table.show_trial]
    mean = (
        model.base_score
        + quality[table.show_answer]
        + label[show_base, table.show_label][:, None]
        + _planted(model, table.labels)[table.show_label]
        + rng.normal(0, model.shared_sd, n_show)[:, None]
    )
    raw = (
        mean[:, None, :]
        + leniency[None, :, None]
        + rng.normal(0, model.halo_sd, (n_show, n_judges))[:, :, None]
        + rng.normal(0, model.noise_sd, (n_show, n_judges, n_metrics))
    )
    return np.clip(np.rint(raw), 0.0, 10.0)


def _pair_winners(
    table: TrialTable,
    model: PanelModel,
    scores: FloatArray,
    pairs: IntArray,
    rng: np.random.Generator,
    shared: ScenarioDraws | None = None,
) -> FloatArray:
    """Each judge's winner position (0 or 1) per pair trial, as (pair trial, judge); the
    scenarios' position pulls come from ``shared`` when given."""
    first_show = np.flatnonzero(np.isin(table.show_trial, pairs) & (table.show_position == 0))
    totals_first = scores[first_show].sum(axis=2)
    totals_second = scores[first_show + 1].sum(axis=2)
    by_scores = np.where(
        totals_first == totals_second,
        rng.integers(0, 2, totals_first.shape),
        (totals_second > totals_first).astype(np.int64),
    )
    if shared is None:
        by_base = rng.normal(0, model.position_base_sd, table.n_bases)
    else:
        by_base = shared.position * model.position_base_sd
    position = by_base[table.base[pairs]]
    preference = np.clip(position + model.first_position, -1.0, 1.0)[:, None]
    decided = rng.random(by_scores.shape) < np.abs(preference)
    return np.where(decided, np.where(preference > 0, 0, 1), by_scores).astype(float)


def model_frames(
    table: TrialTable,
    model: PanelModel,
    seed: int | Sequence[int],
    shared: ScenarioDraws | None = None,
) -> RunFrames:
    """The frames a run of ``table``'s trials would store with a panel drawn from ``model``
    (with the answers and scenario pulls of ``shared`` when several panels judge the trials)."""
    rng = np.random.default_rng(seed)
    scores = _scores(table, model, rng, shared)
    specs = table.specs
    protocol = np.array([spec.protocol for spec in specs])
    pairs = np.flatnonzero(protocol == "pair")
    winners = (
        _pair_winners(table, model, scores, pairs, rng, shared) if pairs.size else np.empty((0, 0))
    )
    return RunFrames(
        scores=_score_frame(table, scores),
        verdicts=_verdict_frame(table, pairs, winners),
        turns=_turn_frame(table, pairs, winners),
        consensus=_consensus_frame(table, scores),
    )


def _trial_columns(table: TrialTable, trials: IntArray) -> dict[str, object]:
    specs = [table.specs[t] for t in trials]
    return {
        "trial_key": [table.keys[t] for t in trials],
        "arm": [s.arm for s in specs],
        "treatment": [s.treatment for s in specs],
        "signal": [s.signal for s in specs],
        "panel": [s.panel or DEFAULT_PANEL for s in specs],
        "protocol": [s.protocol for s in specs],
        "base_id": [s.base_id for s in specs],
        "scenario_id": [s.scenario_id for s in specs],
        "category": [s.category for s in specs],
        "replicate": [s.replicate for s in specs],
    }


def _showing_columns(table: TrialTable) -> pd.DataFrame:
    frame = pd.DataFrame(_trial_columns(table, table.show_trial))
    frame["identity"] = [table.labels[i] for i in table.show_label]
    frame["position"] = table.show_position
    frame["response_index"] = [
        table.specs[t].response_indices[p]
        for t, p in zip(table.show_trial, table.show_position, strict=True)
    ]
    return frame


def _score_frame(table: TrialTable, scores: FloatArray) -> pd.DataFrame:
    showing = _showing_columns(table)
    n_show, n_judges, n_metrics = scores.shape
    rows = showing.loc[np.repeat(np.arange(n_show), n_judges * n_metrics)].reset_index(drop=True)
    rows["judge"] = np.tile(np.repeat(table.judges, n_metrics), n_show)
    rows["judge_model"] = "mock/judge"
    rows["round"] = 0
    rows["round_kind"] = "final"
    rows["metric"] = np.tile(METRICS, n_show * n_judges)
    rows["score"] = scores.reshape(-1)
    rows["trial_status"] = "ok"
    return rows.loc[:, SCORE_FRAME_COLUMNS]


def _consensus_frame(table: TrialTable, scores: FloatArray) -> pd.DataFrame:
    showing = _showing_columns(table)
    n_show, _, n_metrics = scores.shape
    rows = showing.loc[np.repeat(np.arange(n_show), n_metrics)].reset_index(drop=True)
    rows["consensus_method"] = "mean"
    rows["metric"] = np.tile(METRICS, n_show)
    rows["score"] = scores.mean(axis=1).reshape(-1)
    return rows.loc[:, CONSENSUS_FRAME_COLUMNS]


def _majority(winners: FloatArray) -> FloatArray:
    second = winners.sum(axis=1)
    first = winners.shape[1] - second
    return np.where(first > second, 0.0, np.where(second > first, 1.0, np.nan))


def _pair_columns(table: TrialTable, pairs: IntArray) -> pd.DataFrame:
    frame = pd.DataFrame(_trial_columns(table, pairs))
    specs = [table.specs[t] for t in pairs]
    frame["first_identity"] = [s.identities[0] for s in specs]
    frame["second_identity"] = [s.identities[1] if len(s.identities) > 1 else None for s in specs]
    frame["first_response_index"] = [s.response_indices[0] for s in specs]
    frame["second_response_index"] = [
        s.response_indices[1] if len(s.response_indices) > 1 else None for s in specs
    ]
    return frame


def _verdict_frame(table: TrialTable, pairs: IntArray, winners: FloatArray) -> pd.DataFrame:
    frame = _pair_columns(table, pairs).drop(columns="protocol")
    majority = _majority(winners) if pairs.size else np.empty(0)
    frame["winner_position"] = majority
    frame["winner_identity"] = [
        None if np.isnan(w) else (first if w == 0 else second)
        for w, first, second in zip(
            majority, frame["first_identity"], frame["second_identity"], strict=True
        )
    ]
    return frame.loc[:, VERDICT_FRAME_COLUMNS]


def _turn_frame(table: TrialTable, pairs: IntArray, winners: FloatArray) -> pd.DataFrame:
    everyone = np.arange(len(table.specs))
    frame = _pair_columns(table, everyone)
    n_judges = len(table.judges)
    rows = frame.loc[np.repeat(everyone, n_judges)].reset_index(drop=True)
    rows["judge"] = np.tile(table.judges, len(everyone))
    rows["judge_model"] = "mock/judge"
    rows["round"] = 0
    rows["round_kind"] = "final"
    rows["attempts"] = 1
    rows["parse_ok"] = True
    position = np.full((len(everyone), n_judges), np.nan)
    if pairs.size:
        position[pairs] = winners
    rows["winner_position"] = position.reshape(-1)
    rows["trial_status"] = "ok"
    rows["call_keys"] = [()] * len(rows)
    return rows.loc[:, TURN_FRAME_COLUMNS]
