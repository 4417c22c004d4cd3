"""Bradley-Terry abilities of the identities of a category, with a position term.

One model for all of a category's pair verdicts: the log-odds that the front answer wins is
``position + ability[front label] - ability[back label]``. Where pairwise win rates answer "did
a beat b", the abilities put every label of a category on one scale and separate the label from
the position, which a raw win rate mixes whenever the design is not perfectly balanced.
Abilities sum to zero (only differences are identified). Ties are left out. Fit by maximum
likelihood (Newton-Raphson on the binomial counts of each (front, back) label pair, checked
against statsmodels Logit in the tests); intervals by resampling base scenarios and refitting.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
from scipy.special import expit, log_expit

from fairpanel.analysis._frames import (
    BASE_ID,
    CATEGORY,
    FIRST_IDENTITY,
    SECOND_IDENTITY,
    WINNER_POSITION,
)
from fairpanel.analysis.tools import seed_for

DEFAULT_BT_BOOTSTRAP = 400
# A coefficient beyond this many log-odds means the likelihood has no maximum (one label or
# position wins every comparison it is in): the estimate is reported as missing, not as huge.
_DIVERGED = 12.0
_MAX_STEPS = 100

FloatArray = npt.NDArray[np.float64]


def design_matrix(first: pd.Series, second: pd.Series, identities: list[str]) -> FloatArray:
    """Columns: position (all ones), then identities[1:] (+1 front, -1 back; identities[0] is
    the reference at zero)."""
    index = {label: i for i, label in enumerate(identities)}
    x = np.zeros((len(first), len(identities)))
    x[:, 0] = 1.0
    for row, (a, b) in enumerate(zip(first, second, strict=True)):
        if index[a] > 0:
            x[row, index[a]] += 1.0
        if index[b] > 0:
            x[row, index[b]] -= 1.0
    return x


def fit_logistic(x: FloatArray, wins: FloatArray, losses: FloatArray) -> FloatArray | None:
    """Maximum-likelihood logistic coefficients for binomial counts per design row, or ``None``
    when the maximum does not exist (separation, a label never seen) or is not reached.

    Newton-Raphson with step halving on the concave log-likelihood: the design has a handful
    of distinct rows, so each step is a tiny linear solve and a bootstrap of hundreds of refits
    costs milliseconds.
    """
    if np.linalg.matrix_rank(x[(wins + losses) > 0]) < x.shape[1]:
        return None

    def loglik(beta: FloatArray) -> float:
        eta = x @ beta
        return float(np.sum(wins * log_expit(eta) + losses * log_expit(-eta)))

    beta = np.zeros(x.shape[1])
    current = loglik(beta)
    for _ in range(_MAX_STEPS):
        p = expit(x @ beta)
        total = wins + losses
        gradient = x.T @ (wins - total * p)
        information = (x * (total * p * (1.0 - p))[:, None]).T @ x
        try:
            step = np.linalg.solve(information, gradient)
        except np.linalg.LinAlgError:
            return None
        size = 1.0
        while size > 1e-8:
            trial = beta + size * step
            value = loglik(trial)
            if value >= current - 1e-12:
                break
            size /= 2.0
        beta, current = trial, value
        if np.max(np.abs(size * step)) < 1e-9:
            break
        if np.max(np.abs(beta)) > _DIVERGED:
            return None
    else:
        return None
    return beta


def _aggregate(
    rows: pd.DataFrame, identities: list[str]
) -> tuple[FloatArray, FloatArray, FloatArray, npt.NDArray[np.str_]]:
    """Distinct (front, back) design rows, and per base scenario the wins and losses of each."""
    grouped = (
        rows.astype({FIRST_IDENTITY: str, SECOND_IDENTITY: str, BASE_ID: str})
        .groupby([FIRST_IDENTITY, SECOND_IDENTITY, BASE_ID])["front_won"]
        .agg(["sum", "count"])
        .reset_index()
    )
    fronts = grouped[FIRST_IDENTITY].tolist()
    backs = grouped[SECOND_IDENTITY].tolist()
    bases = grouped[BASE_ID].tolist()
    pairs = sorted(set(zip(fronts, backs, strict=True)))
    clusters = np.array(sorted(set(bases)))
    x = design_matrix(
        pd.Series([a for a, _ in pairs]), pd.Series([b for _, b in pairs]), identities
    )
    wins = np.zeros((clusters.size, len(pairs)))
    losses = np.zeros_like(wins)
    row_of = {pair: i for i, pair in enumerate(pairs)}
    cluster_of = {c: i for i, c in enumerate(clusters)}
    for a, b, c, won, count in zip(
        fronts, backs, bases, grouped["sum"], grouped["count"], strict=True
    ):
        i, j = cluster_of[c], row_of[(a, b)]
        wins[i, j] += won
        losses[i, j] += count - won
    return x, wins, losses, clusters


def _centred(beta: FloatArray) -> tuple[float, FloatArray]:
    """(position, abilities summing to zero) from (position, reference-coded abilities)."""
    abilities = np.concatenate([[0.0], beta[1:]])
    return float(beta[0]), abilities - abilities.mean()


def bradley_terry(
    verdicts: pd.DataFrame,
    *,
    confidence: float = 0.95,
    seed: int = 0,
    n_boot: int = DEFAULT_BT_BOOTSTRAP,
) -> list[dict[str, Any]]:
    """One fit per category with at least two labels among its decided, mixed-label verdicts."""
    position = pd.to_numeric(verdicts[WINNER_POSITION]).astype(float)
    decided = verdicts.loc[
        position.notna() & (verdicts[FIRST_IDENTITY] != verdicts[SECOND_IDENTITY])
    ].assign(front_won=(position == 0.0).astype(float))
    results: list[dict[str, Any]] = []
    for category, rows in decided.groupby(CATEGORY, sort=True):
        identities = sorted(
            {str(v) for v in pd.concat([rows[FIRST_IDENTITY], rows[SECOND_IDENTITY]])}
        )
        if len(identities) < 2:
            continue
        x, wins, losses, clusters = _aggregate(rows, identities)
        beta = fit_logistic(x, wins.sum(axis=0), losses.sum(axis=0))
        rng = np.random.default_rng(seed_for(seed, "bradley-terry", category))
        draws: list[FloatArray] = []
        for _ in range(n_boot if beta is not None else 0):
            # Whole base scenarios are drawn (rows when there is only one scenario).
            if clusters.size >= 2:
                picked = rng.integers(0, clusters.size, size=clusters.size)
                refit = fit_logistic(x, wins[picked].sum(axis=0), losses[picked].sum(axis=0))
            else:
                refit = _row_resample_fit(x, wins[0], losses[0], rng)
            if refit is not None:
                pos, abilities = _centred(refit)
                draws.append(np.concatenate([[pos], abilities]))
        tail = (1.0 - confidence) / 2.0
        bounds = (
            np.quantile(np.vstack(draws), [tail, 1.0 - tail], axis=0)
            if draws
            else np.full((2, len(identities) + 1), np.nan)
        )
        pos, abilities = _centred(beta) if beta is not None else (None, None)  # type: ignore[assignment]
        results.append(
            {
                "category": str(category),
                "abilities": [
                    {
                        "identity": label,
                        "estimate": None if abilities is None else float(abilities[i]),
                        "ci_low": _finite(bounds[0, i + 1]),
                        "ci_high": _finite(bounds[1, i + 1]),
                    }
                    for i, label in enumerate(identities)
                ],
                "position": {
                    "estimate": pos,
                    "ci_low": _finite(bounds[0, 0]),
                    "ci_high": _finite(bounds[1, 0]),
                },
                "confidence": confidence,
                "n": len(rows),
                "n_clusters": int(clusters.size),
                "n_boot": len(draws),
                "method": (
                    "Bradley-Terry logistic model of decided consensus verdicts, logit P(front "
                    "answer wins) = position + ability[front label] - ability[back label], "
                    "abilities sum to zero (log-odds units; marginal over the answers, so "
                    "differences in answer quality shrink them toward zero), fit by maximum "
                    "likelihood "
                    "(Newton-Raphson on binomial counts); "
                    f"{confidence:.0%} percentile interval from {len(draws)} of {n_boot} "
                    "refits on resampled base scenarios (rows when there are fewer than two; "
                    "resamples with no finite maximum "
                    "left out)" + ("" if beta is not None else "; no finite maximum on these data")
                ),
            }
        )
    return results


def _row_resample_fit(
    x: FloatArray, wins: FloatArray, losses: FloatArray, rng: np.random.Generator
) -> FloatArray | None:
    """Refit on a resample of individual verdicts (multinomial over the observed outcomes)."""
    counts = np.concatenate([wins, losses])
    total = int(counts.sum())
    drawn = rng.multinomial(total, counts / total).astype(float)
    return fit_logistic(x, drawn[: wins.size], drawn[wins.size :])


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None
