"""The bias profile's calibration over many simulated runs: judges whose reaction to each
manipulation varies by scenario around zero are called clean, a planted one is caught."""

from __future__ import annotations

import numpy as np
import pytest

from fairpanel.analysis import MANIPULATION_COLUMNS
from fairpanel.judging.simulate import (
    ManipulationCalibration,
    ManipulationModel,
    manipulation_calibration,
    manipulation_frames,
)

# Fewer resamples than a real run's 2,000 keep the test cheap; the bench runs the default.
N_BOOT = 500


@pytest.fixture(scope="module")
def null() -> ManipulationCalibration:
    """300 runs, 5 manipulations and the control, preferences sd 0.8 points by base."""
    model = ManipulationModel(tau=0.8, n_bases=8, derived_per_base=2)
    return manipulation_calibration(model, 300, seed=1, n_boot=N_BOOT)


@pytest.fixture(scope="module")
def planted() -> ManipulationCalibration:
    model = ManipulationModel(tau=0.5, n_bases=12, planted={"verbosity-2x": 1.0})
    return manipulation_calibration(model, 80, seed=2, n_boot=N_BOOT)


def test_no_bias_is_rarely_called(null: ManipulationCalibration) -> None:
    assert null.runs == 300
    assert [row.name for row in null.labels][-1] == "same-text"
    assert len(null.labels) == 6
    assert null.false_calls.rate <= 0.07
    assert null.false_calls.ci_high < 0.09
    # Any false call is a call on some label, and no label is called in every false run.
    assert max(row.calls for row in null.labels) <= null.false_calls.calls
    assert null.false_calls.calls <= sum(row.calls for row in null.labels)


def test_a_planted_bias_is_caught_and_the_rest_stay_clean(planted: ManipulationCalibration) -> None:
    caught = planted.rate("verbosity-2x")
    assert caught.planted == 1.0 and caught.rate >= 0.8
    by_protocol = [planted.rate("verbosity-2x", p).calls for p in ("single", "pair")]
    assert max(by_protocol) <= caught.calls <= sum(by_protocol)
    others = [row for row in planted.labels if row.name != "verbosity-2x"]
    assert all(row.rate <= 0.05 for row in others)
    assert planted.false_calls.rate <= 0.1


def test_frames_follow_the_contract_and_the_model() -> None:
    """Main rows repeat per manipulation and are untouched; a planted shift moves the twin's
    score by about its size in single trials and its win share in pairs."""
    model = ManipulationModel(tau=0.0, derived_sd=0.0, n_bases=6, planted={"authority": 2.0})
    frames = list(manipulation_frames(model, 40, seed=3, batch=16))
    frame = frames[0]
    assert list(frame.columns) == MANIPULATION_COLUMNS
    keys = frame[frame["arm"] == "main"].groupby("pair_key", observed=True)["score"].nunique()
    assert (keys == 1).all()  # one main trial, repeated per manipulation
    assert set(frame.loc[frame["control"], "kind"]) == {"none"}
    assert frame.loc[frame["protocol"] == "single", "won"].isna().all()
    assert set(frame.loc[frame["protocol"] == "pair", "won"]) <= {0.0, 0.5, 1.0}
    shift = {}
    for label in ("authority", "bandwagon"):
        diffs = []
        for f in frames:
            mine = f[(f["manipulation"] == label) & (f["protocol"] == "single")]
            diffs.append(mine.loc[mine["arm"] == "manipulation", "score"].to_numpy().mean()
                         - mine.loc[mine["arm"] == "main", "score"].to_numpy().mean())  # fmt: skip
        shift[label] = float(np.mean(diffs))
    assert shift["authority"] == pytest.approx(2.0, abs=0.2)
    assert shift["bandwagon"] == pytest.approx(0.0, abs=0.2)
    again = list(manipulation_frames(model, 40, seed=3, batch=16))
    assert all(a.equals(b) for a, b in zip(again, frames, strict=True))
    with pytest.raises(ValueError, match="unknown"):
        ManipulationModel(planted={"shouting": 1.0})
