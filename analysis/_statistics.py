"""The design-aware statistics of a run in one call: effects, their corrections and the headline,
position bias, Bradley-Terry abilities, agreement, debate effects and failures by identity.

Each block is computed by a pure function of its own module; this module only selects the rows
each one needs and assembles plain JSON. ``analyze`` merges the result into ``results.json``.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from fairpanel.analysis._agreement import agreement, conformity, debate_shift
from fairpanel.analysis._bradley_terry import DEFAULT_BT_BOOTSTRAP, bradley_terry
from fairpanel.analysis._effects import correct_effects, headline
from fairpanel.analysis._failures import failure_rates_by_identity
from fairpanel.analysis._frames import (
    PROTOCOL,
    ROUND_KIND,
    SCORE,
    TURN_COLUMNS,
    VERDICT_COLUMNS,
    jsonable,
    require_columns,
    validate_scores,
)
from fairpanel.analysis._paired import (
    panel_scores_from_judges,
    single_score_effects,
    with_design_columns,
)
from fairpanel.analysis._position import position_bias
from fairpanel.analysis._resample import DEFAULT_BOOTSTRAP
from fairpanel.analysis._verdict_tests import pair_outcomes, pair_verdict_effects

CONSENSUS_COLUMNS: tuple[str, ...] = (
    "trial_key", "protocol", "base_id", "scenario_id", "category", "identity", "position",
    "response_index", "metric", "score",
)  # fmt: skip


def _panel_scores(
    scores: pd.DataFrame, consensus: pd.DataFrame | None, round_kind: str
) -> pd.DataFrame:
    """Single-protocol panel scores: the stored consensus, or the judges' mean when the caller
    has none or asks for another round than the final one."""
    if consensus is not None and not consensus.empty and round_kind == "final":
        frame = require_columns(consensus, CONSENSUS_COLUMNS, "consensus")
        frame = with_design_columns(frame.loc[frame[PROTOCOL] == "single"])
        return frame.assign(**{SCORE: pd.to_numeric(frame[SCORE]).astype(float)})
    chosen = scores.loc[(scores[PROTOCOL] == "single") & (scores[ROUND_KIND] == round_kind)]
    return panel_scores_from_judges(chosen.assign(**{ROUND_KIND: "final"}))


def _position_sentence(block: dict[str, Any], alpha: float) -> str:
    p_value = block.get("p_value")
    rate = block.get("first_position_win_rate")
    if p_value is None or rate is None or p_value >= alpha:
        return ""
    return (
        f" Position bias: the answer shown first won {rate:.0%} of decided pairs "
        f"(n={block['n']}, p={p_value:.2g})."
    )


def design_statistics(
    scores: pd.DataFrame,
    verdicts: pd.DataFrame,
    turns: pd.DataFrame,
    consensus: pd.DataFrame | None = None,
    *,
    round_kind: str = "final",
    alpha: float = 0.05,
    confidence: float = 0.95,
    seed: int = 0,
    n_boot: int = DEFAULT_BOOTSTRAP,
    n_boot_bradley_terry: int = DEFAULT_BT_BOOTSTRAP,
) -> dict[str, Any]:
    """The RESULTS_CONTRACT blocks (``headline``, ``effects``, ``multiple_comparisons``,
    ``position_bias``, ``bradley_terry``, ``agreement``, ``debate``, ``failures_by_identity``)
    for one arm and treatment. Intervals are seeded from ``seed``; a block without data is empty.
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    scores = validate_scores(scores)
    verdicts = require_columns(verdicts, VERDICT_COLUMNS, "verdicts")
    turns = require_columns(turns, TURN_COLUMNS, "turns")
    judges = with_design_columns(
        scores.loc[(scores[PROTOCOL] == "single") & (scores[ROUND_KIND] == round_kind)]
    )
    panel = _panel_scores(scores, consensus, round_kind)
    effects = single_score_effects(panel, judges, confidence=confidence, seed=seed, n_boot=n_boot)
    effects += pair_verdict_effects(
        pair_outcomes(verdicts, turns), confidence=confidence, seed=seed, n_boot=n_boot
    )
    effects, families = correct_effects(effects, alpha)
    position = (
        position_bias(verdicts, confidence=confidence, seed=seed, n_boot=n_boot)
        if not verdicts.empty
        else {}
    )
    top = headline(effects, families, alpha)
    top["verdict"] += _position_sentence(position, alpha)
    report = {
        "headline": top,
        "effects": [e.to_dict() for e in effects],
        "multiple_comparisons": [f.to_dict() for f in families],
        "position_bias": position,
        "bradley_terry": bradley_terry(
            verdicts, confidence=confidence, seed=seed, n_boot=n_boot_bradley_terry
        )
        if not verdicts.empty
        else [],
        "agreement": agreement(scores, turns),
        "debate": {
            "shift_by_identity": debate_shift(
                scores, confidence=confidence, seed=seed, n_boot=n_boot
            ),
            "conformity": conformity(scores),
        },
        "failures_by_identity": failure_rates_by_identity(turns, confidence),
    }
    result: dict[str, Any] = jsonable(report)
    return result
