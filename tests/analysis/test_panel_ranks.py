"""Panel ranks: each panel's largest primary effect on one scale, and rank intervals from a
bootstrap that resamples the same base scenarios for every panel."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.panel_data import Design, Frames, PanelSpec, panel_frames, relabelled

from fairpanel.analysis import panel_ranks, verdict_statistics

DESIGN = Design(bases=15, per_base=12)


def _largest_primary(frames: Frames, scale: str) -> tuple[str, float]:
    """The largest absolute primary effect of ``scale`` in the panel's own results."""
    result = verdict_statistics(frames.scores, frames.verdicts, frames.turns, None, secondary=False)
    effects = [e for e in result["effects"] if e["role"] == "primary" and e["scale"] == scale]
    largest = max(effects, key=lambda e: abs(e["estimate"]))
    return largest["id"], float(largest["estimate"])


def test_panels_that_differ_on_the_same_scenarios_are_told_apart() -> None:
    """b's effect is a's plus 0.25 on every scenario, and the scenarios' own pull (sd 0.6
    points) is shared: resampling the same bases for both keeps b above a in every resample,
    where each panel's own interval (about +-0.3) would overlap the other's."""
    panels = {
        "a": PanelSpec(shift=0.5, noise=0.8),
        "b": PanelSpec(shift=0.75, noise=0.8),
        "strong": PanelSpec(shift=-2.0, noise=0.8),
    }
    frames = panel_frames(3, panels, DESIGN)
    ranks = panel_ranks(frames)
    assert list(ranks) == ["a", "b", "strong"]
    assert (ranks["a"].rank, ranks["a"].rank_label) == (1, "1st")
    assert (ranks["b"].rank, ranks["b"].rank_label) == (2, "2nd")
    assert (ranks["strong"].rank, ranks["strong"].rank_label) == (3, "3rd")
    for name, rank in ranks.items():
        effect_id, estimate = _largest_primary(frames[name], "score points")
        assert effect_id == "single:gender:overall:female-male:panel"
        assert rank.effect_id == "single:gender:female-male"
        assert rank.estimate == pytest.approx(estimate, abs=1e-12)
        assert rank.largest_effect == pytest.approx(abs(estimate), abs=1e-12)
        assert rank.ci_low is not None and rank.ci_high is not None
        assert rank.ci_low <= abs(estimate) <= rank.ci_high
        assert (rank.n_bases, rank.reps, rank.reason) == (15, 2000, None)
    # Each panel's own interval overlaps the other's: only the pairing separates them.
    assert ranks["a"].ci_high is not None and ranks["b"].ci_low is not None
    assert ranks["a"].ci_high > ranks["b"].ci_low


def test_identical_panels_share_a_rank_interval() -> None:
    one = panel_frames(4, {"one": PanelSpec(shift=0.3)}, DESIGN)["one"]
    ranks = panel_ranks({"one": one, "again": relabelled(one, "again")})
    for rank in ranks.values():
        assert rank.rank == 1  # equal effects share the better rank
        assert (rank.rank_low, rank.rank_high, rank.rank_label) == (1, 2, "1st-2nd")
    assert ranks["one"].largest_effect == ranks["again"].largest_effect


def test_the_ranked_scale_is_score_points_when_the_design_has_them() -> None:
    """A large pair effect (a win share) never outranks a small score difference: the two
    scales are not comparable numbers, so only score points are ranked when there are any."""
    panels = {"a": PanelSpec(shift=0.05, label=2.0), "b": PanelSpec(shift=0.4)}
    frames = panel_frames(6, panels, DESIGN)
    ranks = panel_ranks(frames)
    assert {rank.scale for rank in ranks.values()} == {"score points"}
    assert ranks["a"].effect_id == "single:gender:female-male"
    pair_only = {
        name: Frames(f.scores.iloc[:0], f.verdicts, f.turns, f.consensus)
        for name, f in frames.items()
    }
    ranks = panel_ranks(pair_only)
    assert {rank.scale for rank in ranks.values()} == {"win share - 0.5"}
    _, estimate = _largest_primary(pair_only["a"], "win share - 0.5")
    assert ranks["a"].estimate == pytest.approx(estimate, abs=1e-12)
    assert ranks["a"].effect_id == "pair:gender:female-male"
    assert (ranks["a"].rank, ranks["a"].rank_label) == (2, "2nd")


def test_few_bases_give_a_rank_without_an_interval() -> None:
    frames = panel_frames(8, {"a": PanelSpec(), "b": PanelSpec(shift=1.0)}, Design(bases=4))
    ranks = panel_ranks(frames)
    for rank in ranks.values():
        assert rank.rank_low is None and rank.rank_high is None and rank.ci_low is None
        assert rank.reason is not None and rank.reason.startswith("4 base scenarios")
        assert rank.reps == 0
    assert [ranks["a"].rank_label, ranks["b"].rank_label] == ["1st", "2nd"]
    assert np.isfinite(float(ranks["b"].largest_effect or np.nan))
