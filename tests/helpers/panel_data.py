"""Frames of several judge panels on the very same trials, for the panel comparison tests.

What the scenarios and answers bring is shared by every panel, as it is in a real run: the
answers' quality and each base scenario's own pull toward a label or a position (a scenario
that reads as a nurse's pulls every judge the same way). What the judges bring is each panel's
own: its score noise, its planted shift, its verdict flips and its parse failures. Trial keys
name the panel, as real ones do, so nothing may match trials on them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from helpers.stats_data import (
    answer_quality,
    base_preferences,
    varying_pair_verdicts,
    varying_single_scores,
)

JUDGES = ("critic", "expert", "skeptic")


@dataclass
class Frames:
    """One panel's frames of one arm, shaped like ``judging.RunFrames``."""

    scores: pd.DataFrame
    verdicts: pd.DataFrame
    turns: pd.DataFrame
    consensus: pd.DataFrame


@dataclass(frozen=True)
class PanelSpec:
    """One panel's own part: ``shift`` points added to female - male in every base (single),
    ``label`` and ``position`` logits added to the pair label and first-position pulls,
    ``noise`` its judges' score noise (sd, points), ``flip`` the chance a judge's own pair
    verdict differs from the consensus, ``fail_rate`` the chance a judge turn does not parse."""

    shift: float = 0.0
    label: float = 0.0
    position: float = 0.0
    noise: float = 1.0
    flip: float = 0.2
    fail_rate: float = 0.0


@dataclass(frozen=True)
class Design:
    """The shared part: base scenarios, derived scenarios per base, and the sd over bases of
    each base's pull on the single contrast (points), the pair label and the position (logits)."""

    bases: int = 20
    per_base: int = 8
    scenario_sd: float = 0.6
    label_sd: float = 0.4
    position_sd: float = 0.3


def _single_turns(scores: pd.DataFrame) -> pd.DataFrame:
    keys = ["trial_key", "judge"]
    turns = scores.groupby(keys, as_index=False, sort=False).first()
    return turns.assign(
        first_identity=turns["identity"],
        second_identity=None,
        first_response_index=turns["response_index"],
        winner_position=np.nan,
    ).drop(columns=["identity", "response_index", "position", "metric", "score"])


def _pair_turns(rng: np.random.Generator, verdicts: pd.DataFrame, flip: float) -> pd.DataFrame:
    parts = []
    consensus = verdicts["winner_position"].to_numpy(dtype=float)
    for judge in JUDGES:
        own = np.where(np.isnan(consensus), rng.integers(0, 2, consensus.size), consensus)
        own = np.where(rng.random(own.size) < flip, 1.0 - own, own)
        parts.append(
            verdicts.drop(columns=["winner_identity"]).assign(
                protocol="pair",
                judge=judge,
                judge_model="fake",
                round=0,
                round_kind="final",
                winner_position=own,
            )
        )
    return pd.concat(parts, ignore_index=True)


def panel_frames(
    seed: int, panels: Mapping[str, PanelSpec], design: Design = Design()
) -> dict[str, Frames]:
    """Every panel's frames of the same trials (gender, female and male; single and pair)."""
    rng = np.random.default_rng(seed)
    score_quality = answer_quality(rng, design.bases, design.per_base, sd=1.0)
    pair_quality = answer_quality(rng, design.bases, design.per_base)
    pull = base_preferences(rng, design.bases, design.scenario_sd)
    label = base_preferences(rng, design.bases, design.label_sd)
    position = base_preferences(rng, design.bases, design.position_sd)
    frames = {}
    for name, spec in panels.items():
        scores = varying_single_scores(
            rng, score_quality, pull + spec.shift, noise=spec.noise, judges=JUDGES
        )
        verdicts = varying_pair_verdicts(
            rng, pair_quality, label + spec.label, position + spec.position, tie_rate=0.1
        )
        scores["score"] = scores["score"].clip(0.0, 10.0)
        scores["trial_key"] = name + ":" + scores["trial_key"]
        verdicts["trial_key"] = name + ":" + verdicts["trial_key"]
        turns = pd.concat(
            [_single_turns(scores), _pair_turns(rng, verdicts, spec.flip)], ignore_index=True
        )
        turns["parse_ok"] = rng.random(len(turns)) >= spec.fail_rate
        failed = turns.loc[~turns["parse_ok"], ["trial_key", "judge"]]
        lost = scores.set_index(["trial_key", "judge"]).index.isin(pd.MultiIndex.from_frame(failed))
        frames[name] = Frames(
            scores.loc[~lost].assign(panel=name).reset_index(drop=True),
            verdicts.assign(panel=name),
            turns.assign(panel=name),
            pd.DataFrame(),
        )
    return frames


def relabelled(frames: Frames, name: str) -> Frames:
    """The same frames under another panel name (trial keys and the panel column renamed)."""

    def rename(frame: pd.DataFrame) -> pd.DataFrame:
        if frame.empty:
            return frame
        old = frame["panel"].iloc[0]
        keys = frame["trial_key"].str.replace(f"{old}:", f"{name}:", n=1, regex=False)
        return frame.assign(panel=name, trial_key=keys)

    return Frames(
        *(rename(f) for f in (frames.scores, frames.verdicts, frames.turns)), frames.consensus
    )
