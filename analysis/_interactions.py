"""Does a treatment change the bias? The treatment x label interaction, not two verdicts.

"Significant under the baseline, not under the debiasing prompt" does not show that the prompt
works: the two verdicts can differ by chance. The design runs every treatment on the same
scenarios, responses and arrangements, so each primary contrast can be matched unit by unit
across treatments; the interaction is the mean over base scenarios of (contrast under the
treatment - contrast under the baseline), tested like every other contrast (``_cluster``) and
corrected by Holm over the interactions of a run.
"""

from __future__ import annotations

import itertools
from typing import Protocol

import pandas as pd

from fairpanel.analysis._cluster import cluster_mean_test
from fairpanel.analysis._effects import (
    INTERACTION,
    Effect,
    correct_effects,
    tested_by,
)
from fairpanel.analysis._frames import (
    BASE_ID,
    CATEGORY,
    FIRST_IDENTITY,
    IDENTITY,
    OVERALL,
    SECOND_IDENTITY,
)
from fairpanel.analysis._paired import UNIT, differences_of, label_columns, panel_scores
from fairpanel.analysis._verdict_tests import SWAP_KEYS, label_swaps, pair_outcomes

__all__ = ["ArmFrames", "treatment_interactions"]

FAMILY = "treatment x label interaction"
TREATMENT = "treatment"


class ArmFrames(Protocol):
    """The stored frames of one arm under one treatment (``judging.RunFrames`` is one)."""

    scores: pd.DataFrame
    verdicts: pd.DataFrame
    turns: pd.DataFrame
    consensus: pd.DataFrame


def _labels(values: pd.Series) -> list[str]:
    return sorted({str(v) for v in values.dropna()})


def _single_units(frames: ArmFrames, category: str, pair: tuple[str, str]) -> pd.DataFrame:
    panel = panel_scores(frames.scores, frames.consensus, "final")
    if panel.empty:
        return pd.DataFrame(columns=[*UNIT, "difference"])
    return differences_of(label_columns(panel, category), *pair, OVERALL)


def _swap_units(frames: ArmFrames, category: str, pair: tuple[str, str]) -> pd.DataFrame:
    outcomes = pair_outcomes(frames.verdicts)
    rows = outcomes.loc[outcomes[CATEGORY] == category]
    matched = label_swaps(rows, *pair)
    return matched.assign(difference=matched["change"].to_numpy(dtype=float) / 4.0)


def _contrasts(frames: ArmFrames) -> set[tuple[str, str, str, str]]:
    """(protocol, category, identity, versus) of the primary contrasts ``frames`` can hold."""
    found: set[tuple[str, str, str, str]] = set()
    for category, rows in frames.scores.groupby(CATEGORY):
        for pair in itertools.combinations(_labels(rows[IDENTITY]), 2):
            found.add(("single", str(category), *pair))
    for category, rows in frames.verdicts.groupby(CATEGORY):
        labels = _labels(pd.concat([rows[FIRST_IDENTITY], rows[SECOND_IDENTITY]]))
        for pair in itertools.combinations(labels, 2):
            found.add(("pair", str(category), *pair))
    return found


def _interaction(
    baseline: pd.DataFrame,
    treated: pd.DataFrame,
    keys: list[str],
    contrast: tuple[str, str, str, str],
    treatment: str,
    confidence: float,
) -> Effect | None:
    protocol, category, identity, versus = contrast
    on = [k for k in keys if k != TREATMENT and k in baseline.columns and k in treated.columns]
    matched = treated.loc[:, [*on, "difference"]].merge(
        baseline.loc[:, [*on, "difference"]], on=on, suffixes=("_treated", "_baseline")
    )
    if matched.empty:
        return None
    values = (matched["difference_treated"] - matched["difference_baseline"]).to_numpy(float)
    test = cluster_mean_test(values, matched[BASE_ID].to_numpy(), confidence=confidence)
    scale = "score points" if protocol == "single" else "win share - 0.5"
    what = (
        "the panel's overall score difference"
        if protocol == "single"
        else "the panel's label-swap contrast"
    )
    return Effect(
        **tested_by(test),
        id=f"interaction:{treatment}:{protocol}:{category}:{identity}-{versus}",
        family=FAMILY,
        protocol=protocol,
        category=category,
        metric=OVERALL if protocol == "single" else "win_rate",
        judge=None,
        contrast=f"({identity} - {versus}) under {treatment} minus under the baseline",
        identity=identity,
        versus=versus,
        confidence=confidence,
        scale=scale,
        cohen_h=None,
        method=(
            f"{what} for each unit matched across treatments (same scenario, responses, order, "
            f"replicate and signal), under {treatment} minus under the baseline; "
            f"{test.describe(confidence)}; a negative estimate means the treatment moved the "
            f"contrast towards {versus}"
        ),
        role=INTERACTION,
    )


def treatment_interactions(
    baseline: ArmFrames,
    treated: ArmFrames,
    *,
    treatment: str,
    alpha: float = 0.05,
    confidence: float = 0.95,
) -> list[Effect]:
    """The interaction of ``treatment`` with every primary contrast, Holm-corrected together.

    To correct the interactions of several treatments together, concatenate the lists of each
    treatment and pass them to ``correct_effects`` again.
    """
    effects: list[Effect] = []
    for contrast in sorted(_contrasts(baseline) & _contrasts(treated)):
        protocol, category, identity, versus = contrast
        if protocol == "single":
            units = (
                _single_units(baseline, category, (identity, versus)),
                _single_units(treated, category, (identity, versus)),
            )
            keys = list(UNIT)
        else:
            units = (
                _swap_units(baseline, category, (identity, versus)),
                _swap_units(treated, category, (identity, versus)),
            )
            keys = list(SWAP_KEYS)
        effect = _interaction(*units, keys, contrast, treatment, confidence)
        if effect is not None:
            effects.append(effect)
    corrected, _ = correct_effects(effects, alpha)
    return corrected
