"""The random-effects judge panel that calibrates the headline: it draws what it says it draws,
and its frames are the frames the analysis reads from a real store."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fairpanel.analysis import verdict_statistics
from fairpanel.judging.experiment._load import load_experiment
from fairpanel.judging.simulate._panel_model import (
    METRICS,
    PanelModel,
    TrialTable,
    model_frames,
    trial_table,
)
from fairpanel.judging.simulate._runs import design_scales, mock_config, prepare_design, scaled
from fairpanel.judging.store import _frames

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "mock-planted-bias.yaml"
QUIET = PanelModel(
    quality_sd=0.0,
    quality_metric_sd=0.0,
    leniency_sd=0.0,
    halo_sd=0.0,
    shared_sd=0.0,
    label_base_sd=0.0,
    position_base_sd=0.0,
)


@functools.cache
def _table() -> TrialTable:
    config = mock_config(load_experiment(EXAMPLE))
    prepared = prepare_design(scaled(config, design_scales(config, [0.5])[0]))
    return trial_table([spec for spec in prepared.specs if spec.arm == "main"])


def _gender_difference(frames: _frames.RunFrames) -> float:
    rows = frames.consensus.loc[
        (frames.consensus["protocol"] == "single") & (frames.consensus["category"] == "gender")
    ]
    means = rows.groupby("identity")["score"].mean()
    return float(means["female"] - means["male"])


def test_frames_have_the_columns_a_store_gives() -> None:
    frames = model_frames(_table(), PanelModel(), seed=1)
    assert list(frames.scores.columns) == _frames.SCORE_FRAME_COLUMNS
    assert list(frames.verdicts.columns) == _frames.VERDICT_FRAME_COLUMNS
    assert list(frames.consensus.columns) == _frames.CONSENSUS_FRAME_COLUMNS
    assert list(frames.turns.columns) == _frames.TURN_FRAME_COLUMNS
    scores = frames.scores["score"]
    assert scores.between(0, 10).all() and (scores == scores.round()).all()
    # Every judge answers every trial: one turn per trial and judge.
    assert len(frames.turns) == len(_table().specs) * len(_table().judges)
    result = verdict_statistics(frames.scores, frames.verdicts, frames.turns, frames.consensus)
    assert result["headline"]["tests"] == 26  # 13 label pairs, two protocols


def test_a_planted_shift_is_what_the_consensus_shows() -> None:
    planted = PanelModel(planted={"female": dict.fromkeys(METRICS, 0.5)})
    differences = [_gender_difference(model_frames(_table(), planted, seed)) for seed in range(8)]
    nulls = [_gender_difference(model_frames(_table(), PanelModel(), seed)) for seed in range(8)]
    assert np.mean(differences) == pytest.approx(0.5, abs=0.12)
    assert np.mean(nulls) == pytest.approx(0.0, abs=0.12)


def test_scenario_preferences_vary_by_base_and_average_to_zero() -> None:
    """With only the base scenarios' label preferences on, the female - male difference of a
    base is the same in every derived scenario of it, differs between bases with sd
    sqrt(2) * label_base_sd, and has no mean over many runs."""
    model = PanelModel(
        **{**QUIET.__dict__, "noise_sd": 0.0, "base_score": 5.0, "label_base_sd": 2.0}
    )
    spreads, means = [], []
    for seed in range(30):
        rows = model_frames(_table(), model, seed).consensus
        rows = rows.loc[(rows["protocol"] == "single") & (rows["category"] == "gender")]
        by_base = rows.pivot_table(
            index=["base_id", "scenario_id", "response_index", "metric"],
            columns="identity",
            values="score",
        )
        difference = (by_base["female"] - by_base["male"]).groupby(level="base_id")
        assert (difference.nunique() == 1).all()  # rounding is the only other term
        base_means = difference.mean()
        spreads.append(base_means.std(ddof=1))
        means.append(base_means.mean())
    assert np.mean(spreads) == pytest.approx(np.sqrt(2) * 2.0, rel=0.15)
    assert abs(np.mean(means)) < 3 * np.sqrt(2) * 2.0 / np.sqrt(15 * 30)


def test_halo_ties_a_judges_metrics_together_and_noise_does_not() -> None:
    def metric_correlation(model: PanelModel) -> float:
        scores = model_frames(_table(), model, seed=3).scores
        wide = scores.pivot_table(
            index=["trial_key", "position", "judge"], columns="metric", values="score"
        )
        return float(wide.corr().loc["creativity", "accuracy"])

    assert metric_correlation(QUIET) == pytest.approx(0.0, abs=0.05)
    haloed = PanelModel(**{**QUIET.__dict__, "halo_sd": 1.5})
    assert metric_correlation(haloed) > 0.5


def test_position_preference_decides_its_share_of_verdicts() -> None:
    def first_wins(model: PanelModel) -> float:
        turns = model_frames(_table(), model, seed=5).turns
        decided = turns["winner_position"].dropna()
        return float((decided == 0).mean())

    assert first_wins(PanelModel(first_position=0.4)) == pytest.approx(0.7, abs=0.03)
    assert first_wins(PanelModel(first_position=-0.4)) == pytest.approx(0.3, abs=0.03)
    assert first_wins(PanelModel()) == pytest.approx(0.5, abs=0.03)


def test_the_same_seed_draws_the_same_panel() -> None:
    first = model_frames(_table(), PanelModel(), seed=9)
    again = model_frames(_table(), PanelModel(), seed=9)
    other = model_frames(_table(), PanelModel(), seed=10)
    pd.testing.assert_frame_equal(first.scores, again.scores)
    assert not first.scores["score"].equals(other.scores["score"])
