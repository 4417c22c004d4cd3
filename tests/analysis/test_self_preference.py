"""Self-preference's difference in differences against an independent computation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairpanel.analysis import MANIPULATION_COLUMNS, self_preference

LABEL = "answer-by-w"


def _frame(shift_by_panel: dict[str, np.ndarray], bases: int, seed: int) -> pd.DataFrame:
    """Two single trials per base and panel; the twin's score moves by the panel's shift for
    that base plus noise shared by the panels (answer quality, which must cancel)."""
    rng = np.random.default_rng(seed)
    quality = rng.normal(0, 1, size=(bases, 2))
    rows = []
    for panel, shifts in shift_by_panel.items():
        for base in range(bases):
            for trial in range(2):
                key = f"{panel}-{base}-{trial}"
                common = {"pair_key": key, "manipulation": LABEL, "kind": "self_preference",
                          "control": False, "protocol": "single", "panel": panel,
                          "base_id": f"b{base:02d}", "scenario_id": f"b{base:02d}/{trial}",
                          "won": np.nan}  # fmt: skip
                untouched = 6 + rng.normal(0, 0.3)
                twin = untouched + quality[base, trial] + shifts[base] + rng.normal(0, 0.3)
                rows.append({**common, "arm": "main", "score": untouched})
                rows.append({**common, "arm": "manipulation", "score": twin})
    return pd.DataFrame(rows, columns=MANIPULATION_COLUMNS)


def _independent(frame: pd.DataFrame, own: str, other: str) -> tuple[float, float]:
    means = {}
    for panel in (own, other):
        rows = frame[frame["panel"] == panel]
        wide = rows.pivot_table(index=["pair_key", "base_id"], columns="arm", values="score")
        means[panel] = (wide["manipulation"] - wide["main"]).groupby(level="base_id").mean()
    result = stats.ttest_1samp((means[own] - means[other]).to_numpy(), 0.0)
    return float((means[own] - means[other]).mean()), float(result.pvalue)


@pytest.mark.parametrize("planted", [0.0, 0.8])
def test_the_contrast_equals_scipy_on_base_differences(planted: float) -> None:
    bases = 12
    frame = _frame({"by-w": np.full(bases, planted / 2), "by-r": np.full(bases, -planted / 2)},
                   bases, seed=4)  # fmt: skip
    rows = self_preference(
        frame, writers={LABEL: "w"}, judge_models={"by-r": "r", "by-w": "w"}, responder="r"
    )
    assert len(rows) == 1
    row = rows[0]
    estimate, p_value = _independent(frame, "by-w", "by-r")
    assert row.estimate == pytest.approx(estimate) and row.p_value == pytest.approx(p_value)
    assert (row.own_panel, row.responder_panel, row.n_bases) == ("by-w", "by-r", bases)
    assert row.called == (planted > 0)
    assert row.p_holm == pytest.approx(row.p_value)


def test_without_a_panel_per_model_the_row_says_why() -> None:
    frame = _frame({"mixed": np.zeros(6)}, 6, seed=1)
    rows = self_preference(frame, writers={LABEL: "w"}, judge_models={}, responder="r")
    assert rows[0].p_value is None and rows[0].reason is not None
    assert "no panel judged only by w" in rows[0].reason
