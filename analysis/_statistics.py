"""The design-aware statistics of a run: effects, their corrections and the headline, position
bias (``verdict_statistics``, what the verdict rests on), then Bradley-Terry abilities,
agreement, debate effects and failures by identity (``design_parts``).

Each block is computed by a pure function of its own module; this module only selects the rows
each one needs and assembles plain JSON. ``analyze`` merges the result into ``results.json``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from fairpanel.analysis._frames import (
    BASE_ID,
    PROTOCOL,
    ROUND_KIND,
    TRIAL_KEY,
    jsonable,
    validate_frames,
    validate_scores,
)
from fairpanel.analysis.judges import agreement, debate, failure_rates_by_identity
from fairpanel.analysis.malibu import DEFAULT_BT_BOOTSTRAP, bradley_terry
from fairpanel.analysis.tools import DEFAULT_BOOTSTRAP
from fairpanel.analysis.verdict import (
    correct_effects,
    headline,
    pair_outcomes,
    pair_verdict_effects,
    panel_scores,
    position_bias,
    single_score_effects,
    with_design_columns,
)


def _n_bases(*frames: pd.DataFrame) -> int:
    bases: set[str] = set()
    for frame in frames:
        if BASE_ID in frame.columns:
            bases.update(str(b) for b in frame[BASE_ID].dropna().unique())
    return len(bases)


def _judge_scores(
    scores: pd.DataFrame, consensus: pd.DataFrame | None, round_kind: str
) -> pd.DataFrame:
    """Each judge's own single-protocol scores of the round, from the trials the panel finished
    when the consensus says which those are (audit D3)."""
    judges = with_design_columns(
        scores.loc[(scores[PROTOCOL] == "single") & (scores[ROUND_KIND] == round_kind)]
    )
    if consensus is not None and not consensus.empty:
        judges = judges.loc[judges[TRIAL_KEY].isin(consensus[TRIAL_KEY])]
    return judges


def verdict_statistics(
    scores: pd.DataFrame,
    verdicts: pd.DataFrame,
    turns: pd.DataFrame,
    consensus: pd.DataFrame | None = None,
    *,
    round_kind: str = "final",
    alpha: float = 0.05,
    confidence: float = 0.95,
    secondary: bool = True,
) -> dict[str, Any]:
    """What the headline rests on: ``headline``, ``effects``, ``multiple_comparisons``,
    ``position_bias``. No resampling, so ``fairpanel simulate`` can run exactly the rule the
    report prints over hundreds of simulated runs; ``secondary=False`` leaves out the
    exploratory rows, which never change ``identity_effect`` (the headline then lists none)."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha!r}")
    scores, verdicts, turns = validate_frames(scores, verdicts, turns)
    panel = panel_scores(scores, consensus, round_kind)
    judges = _judge_scores(scores, consensus, round_kind) if secondary else scores.iloc[:0]
    skipped: list[str] = []
    effects = single_score_effects(
        panel, judges, confidence=confidence, skipped=skipped, primary_only=not secondary
    )
    outcomes = pair_outcomes(verdicts, turns if secondary else None)
    effects += pair_verdict_effects(outcomes, confidence=confidence, primary_only=not secondary)
    effects, families = correct_effects(effects, alpha)
    position = (
        position_bias(verdicts, alpha=alpha, confidence=confidence) if not verdicts.empty else {}
    )
    top = headline(effects, families, alpha, n_bases=_n_bases(panel, verdicts), skipped=skipped)
    if position:
        top["position"] = position["verdict"]
        top["position_bias"] = position["called"]
    result: dict[str, Any] = jsonable(
        {
            "headline": top,
            "effects": [e.to_dict() for e in effects],
            "multiple_comparisons": [f.to_dict() for f in families],
            "position_bias": position,
        }
    )
    return result


ReportPart = Callable[[], dict[str, Any]]
"""One independent computation of an arm's report: the blocks it returns are merged into it."""


def design_parts(
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
) -> dict[str, ReportPart]:
    """The RESULTS_CONTRACT blocks (``headline``, ``effects``, ``multiple_comparisons``,
    ``position_bias``, ``bradley_terry``, ``agreement``, ``debate``, ``failures_by_identity``)
    of one arm and treatment, as parts that only read the frames: a caller may run them in any
    order or at once (``fairpanel report`` runs a large run's parts in forked workers) and
    merges the same report. Bootstrap intervals (Bradley-Terry, debate shifts) are seeded from
    ``seed``; a block without data is empty."""
    validated = validate_scores(scores)
    return {
        "verdicts": lambda: verdict_statistics(
            scores,
            verdicts,
            turns,
            consensus,
            round_kind=round_kind,
            alpha=alpha,
            confidence=confidence,
        ),
        "bradley_terry": lambda: {
            "bradley_terry": bradley_terry(
                verdicts, confidence=confidence, seed=seed, n_boot=n_boot_bradley_terry
            )
            if not verdicts.empty
            else []
        },
        "agreement": lambda: {"agreement": agreement(validated, turns)},
        "debate": lambda: {
            "debate": debate(validated, confidence=confidence, seed=seed, n_boot=n_boot)
        },
        "failures_by_identity": lambda: {
            "failures_by_identity": failure_rates_by_identity(turns, confidence)
        },
    }
