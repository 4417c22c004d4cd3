"""``RunFrames.where`` and ``values`` on codes against the pandas formulations they replace:
the same rows in the same order, the same values in first-seen order, on text and categorical
columns with missing values and categories no row holds."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairpanel.judging import RunFrames


def _frame(seed: int, n: int, categorical: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "trial_key": [f"t{i % 13}" for i in range(n)],
            "arm": rng.choice(["placebo", "main", "same_label"], n).astype(object),
            "treatment": rng.choice(["none", "author-blind"], n).astype(object),
            "score": rng.random(n),
            "round": rng.integers(0, 3, n),
            "call_keys": [("k", str(i % 5)) for i in range(n)],
        }
    )
    frame.attrs["source"] = "test"
    frame.loc[frame.index[::9], "treatment"] = None
    if categorical:
        arm = frame["arm"].where(frame["arm"] != "placebo")  # missing in the categorical
        frame["arm"] = pd.Categorical(arm, categories=["same_label", "main", "unused"])
        frame["treatment"] = pd.Categorical(frame["treatment"])
    return frame


def _frames(categorical: bool) -> RunFrames:
    return RunFrames(
        _frame(1, 60, categorical),
        _frame(2, 20, categorical),
        _frame(3, 40, categorical),
        _frame(4, 30, categorical),
    )


def _reference_where(frame: pd.DataFrame, **design: str) -> pd.DataFrame:
    mask = pd.Series(True, index=frame.index)
    for column, value in design.items():
        mask &= frame[column] == value
    return frame[mask].reset_index(drop=True)


@pytest.mark.parametrize("categorical", [False, True])
@pytest.mark.parametrize(
    "design",
    [{"arm": "main"}, {"arm": "main", "treatment": "none"}, {"arm": "unused"}, {"arm": "nope"}],
)
def test_where_keeps_the_rows_the_masks_kept(categorical: bool, design: dict[str, str]) -> None:
    frames = _frames(categorical)
    picked = frames.where(**design)
    for name in ("scores", "verdicts", "turns", "consensus"):
        expected = _reference_where(getattr(frames, name), **design)
        pd.testing.assert_frame_equal(getattr(picked, name), expected)
    if design == {"arm": "main"}:
        assert len(picked.scores) > 0


@pytest.mark.parametrize("categorical", [False, True])
def test_values_in_first_seen_order_as_text(categorical: bool) -> None:
    frames = _frames(categorical)
    for column in ("arm", "treatment", "trial_key"):
        seen = pd.concat([frames.scores[column], frames.verdicts[column], frames.turns[column]])
        expected = list(dict.fromkeys(str(v) for v in pd.unique(seen)))
        assert frames.values(column) == expected
    assert "nan" in frames.values("treatment") or "None" in frames.values("treatment")
