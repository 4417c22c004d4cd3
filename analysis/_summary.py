"""One call that turns a run's stored records into the JSON report the CLI writes and renders.

Everything here is assembly: the statistics live in the other modules, the shape of the result
in ``results._run``. The blocks go through ``jsonable`` (no NaN, no numpy scalars) before they are
typed, so that ``json.dumps(report, allow_nan=False)`` always works, whatever the data.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypedDict, Unpack

import numpy as np
import pandas as pd

from fairpanel.analysis._frames import (
    CATEGORY,
    PROTOCOL,
    PROTOCOLS,
    ROUND_KINDS,
    TRIAL_KEY,
    check_choice,
    jsonable,
    select_scores,
    validate_frames,
)
from fairpanel.analysis._statistics import ReportPart, design_parts
from fairpanel.analysis.judges import failure_rates
from fairpanel.analysis.malibu import (
    chi_square_tests,
    mean_scores,
    mean_scores_records,
    score_difference_matrix,
    win_rates,
)
from fairpanel.analysis.results import ArmResults


def _mean_scores_block(scores: pd.DataFrame, protocol: str, round_kind: str) -> dict[str, Any]:
    table = mean_scores(scores, protocol=protocol, round_kind=round_kind)
    return {
        "method": str(table.attrs["method"]),
        "protocol": protocol,
        "round_kind": round_kind,
        "rows": mean_scores_records(table),
    }


def _trial_counts(
    scores: pd.DataFrame, verdicts: pd.DataFrame, turns: pd.DataFrame
) -> dict[str, int]:
    """Distinct trials per protocol, over all frames (a trial whose turns all failed has no
    scores but still counts as run; every verdict is a pair trial)."""
    counts: dict[str, int] = {}
    for protocol in PROTOCOLS:
        keys = [frame.loc[frame[PROTOCOL] == protocol, TRIAL_KEY] for frame in (scores, turns)]
        if protocol == "pair":
            keys.append(verdicts[TRIAL_KEY])
        shared = _distinct_shared_codes(keys)
        # Distinct keys as strings, counted by pandas rather than one Python object per row.
        counts[protocol] = (
            shared
            if shared is not None
            else int(pd.Series(pd.concat(keys).unique()).astype(str).nunique())
        )
    return counts


def _distinct_shared_codes(columns: list[pd.Series]) -> int | None:
    """How many distinct values the columns hold together, when they are categoricals of one
    set of categories with no value missing (the report's trial keys): distinct codes are
    distinct texts then, counted by a table over the categories. ``None`` otherwise."""
    dtypes = [column.dtype for column in columns]
    first = dtypes[0]
    if not isinstance(first, pd.CategoricalDtype) or not all(
        isinstance(d, pd.CategoricalDtype) and d.categories.equals(first.categories)
        for d in dtypes[1:]
    ):
        return None  # codes of two orders of categories name different values
    held = np.zeros(len(first.categories) + 1, dtype=bool)
    for column in columns:
        held[column.cat.codes.to_numpy()] = True  # code -1 (missing) marks the last entry
    if held[-1]:
        return None
    return int(held.sum())


def _descriptive_blocks(
    scores: pd.DataFrame, verdicts: pd.DataFrame, turns: pd.DataFrame, round_kind: str,
    confidence: float,
) -> dict[str, Any]:  # fmt: skip
    single_scores = select_scores(scores, "single", round_kind, [CATEGORY])
    categories = sorted({str(c) for c in single_scores[CATEGORY].unique()})
    return {
        "n_trials": _trial_counts(scores, verdicts, turns),
        "round_kind": round_kind,
        "single": {
            "mean_scores": _mean_scores_block(scores, "single", round_kind),
            "chi_square": [r.to_dict() for r in chi_square_tests(scores, "single", round_kind)],
            "score_difference": {
                category: score_difference_matrix(
                    scores, category, None, "single", round_kind
                ).to_dict()
                for category in categories
            },
        },
        "pair": {
            "mean_scores": _mean_scores_block(scores, "pair", round_kind),
            "chi_square": [r.to_dict() for r in chi_square_tests(scores, "pair", round_kind)],
            "win_rates": [r.to_dict() for r in win_rates(verdicts, confidence)],
        },
        "failures": [r.to_dict() for r in failure_rates(turns)],
    }


def arm_parts(
    scores: pd.DataFrame,
    verdicts: pd.DataFrame,
    turns: pd.DataFrame,
    round_kind: str = "final",
    confidence: float = 0.95,
    *,
    consensus: pd.DataFrame | None = None,
    alpha: float = 0.05,
    seed: int = 0,
) -> dict[str, ReportPart]:
    """``analyze_arm``'s report as independent parts (see ``design_parts``); the frames are
    checked here, before any part runs. ``arm_results`` assembles the parts' blocks."""
    check_choice(round_kind, ROUND_KINDS, "round_kind")
    scores, verdicts, turns = validate_frames(scores, verdicts, turns)
    design = design_parts(
        scores,
        verdicts,
        turns,
        consensus,
        round_kind=round_kind,
        alpha=alpha,
        confidence=confidence,
        seed=seed,
    )
    return {
        "descriptive": lambda: _descriptive_blocks(scores, verdicts, turns, round_kind, confidence)
    } | design


def arm_results(blocks: Iterable[dict[str, Any]]) -> ArmResults:
    """The typed report of the blocks of an arm's parts, merged in the parts' order."""
    report: dict[str, Any] = {}
    for block in blocks:
        report |= block
    return ArmResults.from_report(jsonable(report))


class ArmOptions(TypedDict, total=False):
    """``arm_parts``' settings, as ``analyze_arm`` and ``analyze`` pass them on."""

    round_kind: str
    confidence: float
    consensus: pd.DataFrame | None
    alpha: float
    seed: int


def analyze_arm(
    scores: pd.DataFrame,
    verdicts: pd.DataFrame,
    turns: pd.DataFrame,
    **options: Unpack[ArmOptions],
) -> ArmResults:
    """The typed report of one arm under one treatment (results.json's leading blocks).

    Keys: ``n_trials`` ({protocol: int}); ``single`` with ``mean_scores``, ``chi_square`` and
    ``score_difference`` ({category: matrix over all metrics}); ``pair`` with ``mean_scores``,
    ``chi_square`` (same test on the scores given inside pair trials) and ``win_rates``;
    ``failures``. Score-based entries use the judges' ``round_kind`` round (default: the final
    round after discussion). A protocol without rows yields empty lists, not an error.
    The design-aware blocks (``headline``, ``effects``, ...) come from ``design_parts``;
    ``consensus`` is the per-trial consensus frame (the judges' mean stands in without it).
    """
    parts = arm_parts(scores, verdicts, turns, **options)
    return arm_results(part() for part in parts.values())


def analyze(
    scores: pd.DataFrame,
    verdicts: pd.DataFrame,
    turns: pd.DataFrame,
    **options: Unpack[ArmOptions],
) -> dict[str, Any]:
    """``analyze_arm``'s report as plain JSON (results.json's leading blocks, in file order)."""
    return analyze_arm(scores, verdicts, turns, **options).to_json()
