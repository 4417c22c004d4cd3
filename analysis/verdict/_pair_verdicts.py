"""Pair protocol: which side wins, and does the label on a side change that?

The design shows the same two answers in the same order with the labels swapped. If the label
did not matter, the front answer would fare the same under both labels, so the label-swap
contrast of each matched swap, half the front answer's outcome (win 1, tie 1/2, loss 0) under
one label minus under the other, is the direct measure of a label effect: 0 when the label does
not matter, +0.5 when the label alone decides. The panel's swap contrast is the primary test of
its category and label pair (tested over base scenarios, ``tools._cluster``).

Two more views of the same verdicts are secondary (exploratory, BH): a label's win rate among
decided pairs against 50% (ties reported beside it, not counted as losses), and the
Cochran-Mantel-Haenszel odds ratio stratified by base scenario, whose p-value is conditional on
the scenarios run (it does not generalise over scenarios) and which is kept for readers who know
it. The verdicts are the panel's consensus (``judge`` None) or one judge's own final-round
verdict.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pandas as pd
from statsmodels.stats.contingency_tables import StratifiedTable

from fairpanel.analysis._frames import (
    BASE_ID,
    CATEGORY,
    FIRST_IDENTITY,
    FIRST_RESPONSE_INDEX,
    JUDGE,
    PARSE_OK,
    PROTOCOL,
    ROUND_KIND,
    SCENARIO_ID,
    SECOND_IDENTITY,
    TRIAL_KEY,
    WINNER_POSITION,
    float_or_none,
)
from fairpanel.analysis.tools import MIN_BASES, ClusterTest, cluster_mean_test, too_few_bases
from fairpanel.analysis.verdict._effects import (
    NO_DIFFERENCE,
    PRIMARY,
    SECONDARY,
    Effect,
    cohen_h,
    tested_by,
    untested,
)
from fairpanel.analysis.verdict._paired import OPTIONAL_DESIGN, with_design_columns

WIN_RATE_FAMILY = "pair win rates among decided pairs against 50%"
SWAP_FAMILY = "pair label swaps"
CMH_FAMILY = "pair label effect stratified by base scenario (CMH)"
OUTCOME_COLUMNS = [
    JUDGE,
    BASE_ID,
    SCENARIO_ID,
    *OPTIONAL_DESIGN,
    CATEGORY,
    FIRST_IDENTITY,
    SECOND_IDENTITY,
    FIRST_RESPONSE_INDEX,
    WINNER_POSITION,
]
# The order of the two responses is part of a swap's identity: the swap holds it fixed.
SWAP_KEYS = [BASE_ID, SCENARIO_ID, *OPTIONAL_DESIGN, FIRST_RESPONSE_INDEX]
_JUDGE_TURN_COLUMNS = (FIRST_IDENTITY, SECOND_IDENTITY, SCENARIO_ID, BASE_ID, FIRST_RESPONSE_INDEX)


def pair_outcomes(verdicts: pd.DataFrame, turns: pd.DataFrame | None = None) -> pd.DataFrame:
    """Consensus verdicts (``judge`` None) and judges' final pair verdicts in one frame.

    ``winner_position`` is 0 (front answer won), 1, or NaN (a consensus without majority).
    Judge turns that did not parse carry no verdict and are left out. Same-label pairs are
    dropped: they have no contrast.
    """
    parts = [with_design_columns(verdicts).assign(**{JUDGE: None})]
    if turns is not None and all(col in turns.columns for col in _JUDGE_TURN_COLUMNS):
        # Only trials the panel finished: a judge's verdict in a trial that failed later (a
        # moderator that never answered) is not part of the analysed design.
        mine = turns.loc[
            (turns[PROTOCOL] == "pair")
            & (turns[ROUND_KIND] == "final")
            & turns[PARSE_OK].astype(bool)
            & turns[TRIAL_KEY].isin(verdicts[TRIAL_KEY])
        ]
        parts.append(with_design_columns(mine.loc[mine[WINNER_POSITION].notna()]))
    kept = [p.loc[:, OUTCOME_COLUMNS] for p in parts if not p.empty]
    if not kept:
        return pd.DataFrame(columns=OUTCOME_COLUMNS)
    frame = pd.concat(kept, ignore_index=True)
    frame[WINNER_POSITION] = pd.to_numeric(frame[WINNER_POSITION]).astype(float)
    return frame.loc[frame[FIRST_IDENTITY] != frame[SECOND_IDENTITY]].reset_index(drop=True)


def _judges(outcomes: pd.DataFrame) -> list[str | None]:
    named = sorted({str(j) for j in outcomes[JUDGE].dropna().unique()})
    return [None, *named]


def _of_judge(outcomes: pd.DataFrame, judge: str | None) -> pd.DataFrame:
    return outcomes.loc[outcomes[JUDGE].isna() if judge is None else outcomes[JUDGE] == judge]


def _who(judge: str | None) -> str:
    return "panel" if judge is None else judge


def _source(judge: str | None) -> str:
    return "the panel's consensus verdicts" if judge is None else f"judge {judge}'s final verdicts"


def _share(test: ClusterTest) -> float | None:
    return None if test.estimate is None else test.estimate + 0.5


def _pair_effect(
    test: ClusterTest,
    what: str,
    judge: str | None,
    *,
    pair: tuple[str, str | None],
    **fields: Any,
) -> Effect:
    """A pair-protocol contrast on the win-share scale, decided by its cluster test: its id
    (``pair:<what>:<panel or judge>``), and Cohen's h of the win share against one half."""
    identity, versus = pair
    return Effect(
        **tested_by(test),
        id=f"pair:{what}:{_who(judge)}",
        protocol="pair",
        metric="win_rate",
        judge=judge,
        identity=identity,
        versus=versus,
        cohen_h=cohen_h(_share(test)),
        **fields,
    )


def win_rate_effect(
    rows: pd.DataFrame, category: str, identity: str, judge: str | None, *, confidence: float
) -> Effect:
    """``identity``'s share of the decided pairs it took part in, against 50%, with the share
    of its pairs that were ties beside it."""
    mine = rows.loc[(rows[FIRST_IDENTITY] == identity) | (rows[SECOND_IDENTITY] == identity)]
    decided = mine[WINNER_POSITION].notna().to_numpy()
    identity_first = (mine[FIRST_IDENTITY] == identity).to_numpy()
    won = (mine[WINNER_POSITION] == 0.0).to_numpy() == identity_first
    test = cluster_mean_test(
        won[decided].astype(float) - 0.5, mine[BASE_ID].to_numpy()[decided], confidence=confidence
    )
    ties = int((~decided).sum())
    return _pair_effect(
        test,
        f"{category}:win_rate:{identity}-vs-50%",
        judge,
        family=WIN_RATE_FAMILY,
        category=category,
        contrast=f"{identity} vs 50%",
        pair=(identity, None),
        confidence=confidence,
        scale="win rate - 0.5",
        method=(
            f"{identity}'s wins / decided pairs it appeared in, from {_source(judge)} (ties "
            f"not counted as losses: {ties} of {len(mine)} were ties); win share within each "
            f"base scenario, {test.describe(confidence)}; Cohen's h against 0.5"
        ),
        role=SECONDARY,
        tie_share=ties / len(mine) if len(mine) else None,
    )


def label_swaps(rows: pd.DataFrame, identity: str, versus: str) -> pd.DataFrame:
    """Matched arrangements: the same answers in the same order, front label ``identity`` in one
    and ``versus`` in the other. ``change`` is the front answer's outcome (win 1, tie 0, loss -1)
    under ``identity`` minus under ``versus``: positive favours ``identity``.
    """
    pair = rows.loc[
        ((rows[FIRST_IDENTITY] == identity) & (rows[SECOND_IDENTITY] == versus))
        | ((rows[FIRST_IDENTITY] == versus) & (rows[SECOND_IDENTITY] == identity))
    ]
    front = pair.assign(
        outcome=np.select(
            [pair[WINNER_POSITION] == 0.0, pair[WINNER_POSITION] == 1.0], [1.0, -1.0], 0.0
        )
    )
    keys = [k for k in SWAP_KEYS if k in front.columns]
    under_identity = front.loc[front[FIRST_IDENTITY] == identity, [*keys, "outcome"]]
    under_versus = front.loc[front[FIRST_IDENTITY] == versus, [*keys, "outcome"]]
    matched = under_identity.merge(under_versus, on=keys, suffixes=("_identity", "_versus"))
    matched["change"] = matched["outcome_identity"] - matched["outcome_versus"]
    return matched


def swap_effect(
    rows: pd.DataFrame,
    category: str,
    pair: tuple[str, str],
    judge: str | None,
    *,
    confidence: float,
) -> Effect:
    """The label-swap contrast: how much better the same front answer fares under ``identity``
    than under ``versus``, in win shares (primary for the panel's verdicts)."""
    identity, versus = pair
    matched = label_swaps(rows, identity, versus)
    # change is in outcome units (win 1, tie 0, loss -1); in win shares (1, 1/2, 0) and halved,
    # as the module docstring defines the contrast, it is change / 4.
    values = matched["change"].to_numpy(dtype=float) / 4.0
    test = cluster_mean_test(values, matched[BASE_ID].to_numpy(), confidence=confidence)
    ties = int((matched["outcome_identity"] == 0).sum() + (matched["outcome_versus"] == 0).sum())
    return _pair_effect(
        test,
        f"{category}:label_swap:{identity}-{versus}",
        judge,
        family=SWAP_FAMILY,
        category=category,
        contrast=f"{identity} vs {versus} (label swaps)",
        pair=(identity, versus),
        confidence=confidence,
        scale="win share - 0.5",
        method=(
            f"{_source(judge)} on {len(matched)} label swaps (same scenario, answers, order, "
            "replicate, treatment and signal; labels swapped); per swap, half the front "
            f"answer's outcome (win 1, tie 1/2, loss 0) under {identity} minus under {versus}, "
            f"so the estimate is {identity}'s win share against the same answer labelled "
            f"{versus}, minus 0.5; {test.describe(confidence)}"
        ),
        role=PRIMARY if judge is None else SECONDARY,
        tie_share=ties / (2 * len(matched)) if len(matched) else None,
    )


def stratified_tables(rows: pd.DataFrame, identity: str, versus: str) -> dict[str, np.ndarray]:
    """Per base scenario, decided verdicts as [[front=identity wins, loses], [front=versus ...]].

    Strata where one row is empty carry no information on the odds ratio and are left out.
    """
    decided = rows.loc[
        rows[WINNER_POSITION].notna()
        & (
            ((rows[FIRST_IDENTITY] == identity) & (rows[SECOND_IDENTITY] == versus))
            | ((rows[FIRST_IDENTITY] == versus) & (rows[SECOND_IDENTITY] == identity))
        )
    ]
    decided = decided.assign(**{BASE_ID: decided[BASE_ID].astype(str)})
    grouped = decided.groupby([BASE_ID, FIRST_IDENTITY, WINNER_POSITION]).size()
    # A few cells a base: looked up in a dict, not by MultiIndex.get per cell.
    counts = dict(zip(grouped.index, grouped.to_numpy().tolist(), strict=True))
    tables: dict[str, np.ndarray] = {}
    for base in sorted({str(b) for b in decided[BASE_ID].unique()}):
        table = np.array(
            [
                [float(counts.get((base, front, won), 0)) for won in (0.0, 1.0)]
                for front in (identity, versus)
            ]
        )
        if table[0].sum() > 0 and table[1].sum() > 0:
            tables[base] = table
    return tables


def _pooled_log_odds(
    tables: list[np.ndarray], confidence: float
) -> tuple[float | None, float | None, float | None, bool]:
    """Mantel-Haenszel log odds ratio and interval; when it is 0 or infinite (every stratum
    favours one label), the same with 0.5 added to every cell (Haldane), flagged."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = float(StratifiedTable(tables).oddsratio_pooled)
        corrected = not 0.0 < ratio < math.inf
        if corrected:
            tables = [t + 0.5 for t in tables]
        stratified = StratifiedTable(tables)
        ratio = float(stratified.oddsratio_pooled)
        if not 0.0 < ratio < math.inf:
            return None, None, None, corrected
        low, high = (float_or_none(v) for v in stratified.logodds_pooled_confint(1 - confidence))
    return math.log(ratio), low, high, corrected


def cmh_effect(
    rows: pd.DataFrame, category: str, pair: tuple[str, str], judge: str | None, confidence: float
) -> Effect:
    """Cochran-Mantel-Haenszel test and Mantel-Haenszel log odds ratio over base scenarios
    (secondary: its p-value treats verdicts within a scenario as independent)."""
    identity, versus = pair
    tables = list(stratified_tables(rows, identity, versus).values())
    estimate = low = high = p_value = None
    corrected = False
    reason = (
        "no decided strata"
        if not tables
        else too_few_bases(len(tables))
        if len(tables) < MIN_BASES
        else None
    )
    if tables:
        estimate, low, high, corrected = _pooled_log_odds(tables, confidence)
    if tables and reason is None:
        with np.errstate(divide="ignore", invalid="ignore"):
            p_value = float_or_none(StratifiedTable(tables).test_null_odds(False).pvalue)
    haldane = (
        "; every stratum favoured one label, so the estimate and interval add 0.5 to each cell "
        "(Haldane)"
        if corrected
        else ""
    )
    return Effect(
        id=f"pair:{category}:win_rate:{identity}-{versus}:cmh:{_who(judge)}",
        family=CMH_FAMILY,
        protocol="pair",
        category=category,
        metric="win_rate",
        judge=judge,
        contrast=f"{identity} vs {versus} (front answer's odds of winning)",
        identity=identity,
        versus=versus,
        estimate=estimate,
        ci_low=low,
        ci_high=high,
        confidence=confidence,
        scale="log odds ratio",
        cohen_h=None,
        p_value=p_value,
        n=int(sum(t.sum() for t in tables)),
        n_clusters=len(tables),
        test="CMH (exploratory; p conditional on the scenarios run)",
        method=(
            f"{_source(judge)}, decided pairs; one 2x2 table per base scenario (front label "
            f"{identity} or {versus} x front answer won or lost); Cochran-Mantel-Haenszel test "
            "without continuity correction and Mantel-Haenszel pooled log odds ratio with the "
            "Robins-Breslow-Greenland interval (statsmodels StratifiedTable); scenarios with "
            "one arrangement only left out; the p-value treats verdicts within a scenario as "
            f"independent and does not generalise over scenarios{haldane}"
        ),
        verdict=NO_DIFFERENCE if p_value is not None else untested(reason),
        role=SECONDARY,
    )


def pair_verdict_effects(
    outcomes: pd.DataFrame, *, confidence: float = 0.95, primary_only: bool = False
) -> list[Effect]:
    """Label-swap contrasts (primary for the panel), win rates among decided pairs and CMH
    (secondary) per category, label pair and judge; ``primary_only``: the panel's label-swap
    contrasts alone.

    With two identities in a category, only the first's win rate is tested: the second's is its
    mirror image with the same p-value.
    """
    effects: list[Effect] = []
    for category in sorted({str(c) for c in outcomes[CATEGORY].unique()}):
        in_category = outcomes.loc[outcomes[CATEGORY] == category]
        labels = sorted(
            {
                str(v)
                for v in pd.concat(
                    [in_category[FIRST_IDENTITY], in_category[SECOND_IDENTITY]]
                ).unique()
            }
        )
        tested = labels[:1] if len(labels) == 2 else labels
        for judge in [None] if primary_only else _judges(in_category):
            rows = _of_judge(in_category, judge)
            if rows.empty:
                continue
            for pair in itertools.combinations(labels, 2):
                effects.append(swap_effect(rows, category, pair, judge, confidence=confidence))
            if primary_only:
                continue
            for identity in tested:
                effects.append(
                    win_rate_effect(rows, category, identity, judge, confidence=confidence)
                )
            for pair in itertools.combinations(labels, 2):
                effects.append(cmh_effect(rows, category, pair, judge, confidence))
    return [e for e in effects if e.n > 0]
