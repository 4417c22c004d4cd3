"""Pair protocol: which side wins, and does the label on a side change that?

Three views of the same verdicts, each corrected as its own family (they test the same contrasts
on the same data, so pooling them would count each contrast three times):

- exact binomial: does an identity win more than half of its decided pairs?
- exact McNemar on label swaps: the design shows the same two answers in the same order with
  the labels swapped; if the label did not matter, the answer in front would fare the same under
  both labels. Only swaps whose outcome changed carry information about the label.
- Cochran-Mantel-Haenszel: within each base scenario, does the front answer win more often
  when it carries label a than label b? Stratifying removes differences between scenarios and
  the position effect, which a pooled win rate mixes in.

The verdicts are the panel's consensus (``judge`` None) or one judge's own final-round verdict.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import binomtest
from statsmodels.stats.contingency_tables import StratifiedTable

from fairpanel.analysis._effects import Effect, cohen_h
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
    WINNER_POSITION,
    float_or_none,
)
from fairpanel.analysis._paired import OPTIONAL_DESIGN, with_design_columns
from fairpanel.analysis._resample import (
    DEFAULT_BOOTSTRAP,
    Interval,
    bootstrap_ratio,
    seed_for,
)

WIN_RATE_FAMILY = "pair win rates against 50%"
SWAP_FAMILY = "pair label swaps (exact McNemar)"
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
        mine = turns.loc[
            (turns[PROTOCOL] == "pair")
            & (turns[ROUND_KIND] == "final")
            & turns[PARSE_OK].astype(bool)
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


def win_rate_effect(
    rows: pd.DataFrame,
    category: str,
    identity: str,
    judge: str | None,
    *,
    confidence: float,
    seed: int,
    n_boot: int,
) -> Effect:
    """``identity``'s share of decided pairs it took part in, tested against 50%."""
    mine = rows.loc[(rows[FIRST_IDENTITY] == identity) | (rows[SECOND_IDENTITY] == identity)]
    decided = mine[WINNER_POSITION].notna().to_numpy()
    identity_first = (mine[FIRST_IDENTITY] == identity).to_numpy()
    won = decided & ((mine[WINNER_POSITION] == 0.0).to_numpy() == identity_first)
    effect_id = f"pair:{category}:win_rate:{identity}-vs-50%:{_who(judge)}"
    share = _share_against_half(
        won, decided, mine[BASE_ID].to_numpy(), effect_id, seed, confidence, n_boot
    )
    n, interval = share.n, share.interval
    return Effect(
        id=effect_id,
        family=WIN_RATE_FAMILY,
        protocol="pair",
        category=category,
        metric="win_rate",
        judge=judge,
        contrast=f"{identity} vs 50%",
        identity=identity,
        versus=None,
        estimate=share.estimate,
        ci_low=interval.low,
        ci_high=interval.high,
        confidence=confidence,
        scale="win rate - 0.5",
        cohen_h=share.cohen_h,
        p_value=share.p_value,
        n=n,
        n_clusters=int(mine.loc[decided, BASE_ID].nunique()),
        test="exact binomial",
        method=(
            f"{identity}'s wins / decided pairs it appeared in, from {_source(judge)} (ties "
            f"left out; {len(mine) - n} of {len(mine)}); exact two-sided binomial test against "
            f"0.5 (scipy binomtest); Cohen's h against 0.5; {interval.describe(confidence)}"
        ),
    )


@dataclass(frozen=True)
class _ShareAgainstHalf:
    n: int
    estimate: float | None
    interval: Interval
    cohen_h: float | None
    p_value: float | None


def _share_against_half(
    hits: np.ndarray,
    counted: np.ndarray,
    clusters: np.ndarray,
    effect_id: str,
    seed: int,
    confidence: float,
    n_boot: int,
) -> _ShareAgainstHalf:
    """The share of counted outcomes that are hits, against 50%: one computation for the win
    rate and the label-swap test, so both read their estimate, exact binomial p, Cohen's h and
    cluster-bootstrap interval the same way."""
    k, n = int(hits.sum()), int(counted.sum())
    interval = bootstrap_ratio(
        hits.astype(float),
        counted.astype(float),
        clusters,
        seed=seed_for(seed, effect_id),
        confidence=confidence,
        n_boot=n_boot,
        transform=0.5,
    )
    share = k / n if n else None
    return _ShareAgainstHalf(
        n=n,
        estimate=None if share is None else share - 0.5,
        interval=interval,
        cohen_h=cohen_h(share),
        p_value=float(binomtest(k, n, 0.5).pvalue) if n else None,
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
    seed: int,
    n_boot: int,
) -> Effect:
    """Exact McNemar test on label swaps: discordant swaps favouring each label, against 50%."""
    identity, versus = pair
    matched = label_swaps(rows, identity, versus)
    favour = (matched["change"] > 0).to_numpy()
    discordant = (matched["change"] != 0).to_numpy()
    effect_id = f"pair:{category}:win_rate:{identity}-{versus}:mcnemar:{_who(judge)}"
    share = _share_against_half(
        favour, discordant, matched[BASE_ID].to_numpy(), effect_id, seed, confidence, n_boot
    )
    n, interval = share.n, share.interval
    return Effect(
        id=effect_id,
        family=SWAP_FAMILY,
        protocol="pair",
        category=category,
        metric="win_rate",
        judge=judge,
        contrast=f"{identity} vs {versus} (label swaps)",
        identity=identity,
        versus=versus,
        estimate=share.estimate,
        ci_low=interval.low,
        ci_high=interval.high,
        confidence=confidence,
        scale="win rate - 0.5",
        cohen_h=share.cohen_h,
        p_value=share.p_value,
        n=len(matched),
        n_clusters=int(matched[BASE_ID].nunique()),
        test="mcnemar exact",
        method=(
            f"{_source(judge)} on {len(matched)} label swaps (same scenario, answers, order, "
            "replicate, treatment and signal; front label swapped); a swap is discordant when "
            f"the front answer fared better under one label ({n} were); estimate = share of "
            f"discordant swaps favouring {identity} - 0.5; exact McNemar test (two-sided "
            f"binomial on the discordant swaps); {interval.describe(confidence)}"
        ),
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
    counts = decided.groupby([BASE_ID, FIRST_IDENTITY, WINNER_POSITION]).size()
    tables: dict[str, np.ndarray] = {}
    for base in sorted({str(b) for b in decided[BASE_ID]}):
        table = np.array(
            [
                [float(counts.get((base, front, won), 0)) for won in (0.0, 1.0)]
                for front in (identity, versus)
            ]
        )
        if table[0].sum() > 0 and table[1].sum() > 0:
            tables[base] = table
    return tables


def cmh_effect(
    rows: pd.DataFrame, category: str, pair: tuple[str, str], judge: str | None, confidence: float
) -> Effect:
    """Cochran-Mantel-Haenszel test and Mantel-Haenszel log odds ratio over base scenarios."""
    identity, versus = pair
    tables = stratified_tables(rows, identity, versus)
    estimate = low = high = p_value = None
    n = int(sum(t.sum() for t in tables.values()))
    # A stratum where the front answer always won (or always lost) makes the pooled odds ratio
    # 0 or infinite; that is reported as a missing estimate, not as a numpy warning.
    if tables:
        with np.errstate(divide="ignore", invalid="ignore"):
            stratified = StratifiedTable(list(tables.values()))
            p_value = float_or_none(stratified.test_null_odds(correction=False).pvalue)
            ratio = float(stratified.oddsratio_pooled)
            if 0.0 < ratio < math.inf:
                estimate = math.log(ratio)
                low, high = (
                    float_or_none(v)
                    for v in stratified.logodds_pooled_confint(alpha=1.0 - confidence)
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
        n=n,
        n_clusters=len(tables),
        test="cmh",
        method=(
            f"{_source(judge)}, decided pairs; one 2x2 table per base scenario (front label "
            f"{identity} or {versus} x front answer won or lost); Cochran-Mantel-Haenszel test "
            "without continuity correction and Mantel-Haenszel pooled log odds ratio with the "
            "Robins-Breslow-Greenland interval (statsmodels StratifiedTable); scenarios with "
            "one arrangement only left out"
        ),
    )


def pair_verdict_effects(
    outcomes: pd.DataFrame,
    *,
    confidence: float = 0.95,
    seed: int = 0,
    n_boot: int = DEFAULT_BOOTSTRAP,
) -> list[Effect]:
    """Win rates against 50%, label-swap and CMH contrasts per category, label pair and judge.

    With two identities in a category, only the first's win rate is tested: the second's is its
    mirror image with the same p-value.
    """
    effects: list[Effect] = []
    for category in sorted({str(c) for c in outcomes[CATEGORY].unique()}):
        in_category = outcomes.loc[outcomes[CATEGORY] == category]
        labels = sorted(
            {str(v) for v in pd.concat([in_category[FIRST_IDENTITY], in_category[SECOND_IDENTITY]])}
        )
        tested = labels[:1] if len(labels) == 2 else labels
        for judge in _judges(in_category):
            rows = _of_judge(in_category, judge)
            if rows.empty:
                continue
            for identity in tested:
                effects.append(
                    win_rate_effect(
                        rows,
                        category,
                        identity,
                        judge,
                        confidence=confidence,
                        seed=seed,
                        n_boot=n_boot,
                    )
                )
            for pair in itertools.combinations(labels, 2):
                effects.append(
                    swap_effect(
                        rows, category, pair, judge, confidence=confidence, seed=seed, n_boot=n_boot
                    )
                )
                effects.append(cmh_effect(rows, category, pair, judge, confidence))
    return [e for e in effects if e.n > 0]
