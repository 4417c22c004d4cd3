"""The manipulation arms' statistics: one panel's bias profile.

Every main-arm trial has a twin in which one candidate (the one holding response index 1) is
manipulated (padded, given a fabricated citation, a confident register, a "most reviewers
preferred it" line, ...) and nothing else changes; the same-text control's twin changes nothing
and is judged afresh. So the difference between a twin and its main trial holds content, labels,
position and panel fixed, and only the manipulation (and the judges' own noise) moves it.

A judge whose reaction to a manipulation varies from scenario to scenario around zero is not
biased by it, so, as for every test in this package (``tools._cluster``), the paired differences are
averaged within their base scenario and the base means, each weighing the same, are what is
tested. The interval and p-value come from one cluster bootstrap over those base means (the
expanded percentile interval and its matching p, ``tools._resample``), so they agree and do not
assume the base means are normal: pair differences are win shares in steps of 0.5. The
manipulations of one panel, both protocols and the control included, are one family under
Holm; the identity family stays primary and is not touched.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
import pandas as pd

from fairpanel.analysis.results import BiasProfileRow
from fairpanel.analysis.tools import (
    DEFAULT_BOOTSTRAP,
    MIN_BASES,
    cluster_draws,
    expanded_interval,
    expanded_p_value,
    holm,
    seed_for,
    too_few_bases,
)

__all__ = ["MANIPULATION_COLUMNS", "bias_profile"]

MANIPULATION_COLUMNS = [
    "pair_key",
    "manipulation",
    "kind",
    "control",
    "protocol",
    "panel",
    "base_id",
    "scenario_id",
    "arm",
    "score",
    "won",
]
"""One row per ok trial: a manipulated twin (``arm == "manipulation"``) and its untouched main
trial (``arm == "main"``) share ``pair_key`` (the main trial's key) and ``manipulation`` (the
main row is repeated once per manipulation it is paired with). ``score``: the panel
consensus's mean over the four metrics of the manipulated candidate (NaN when absent);
``won``: in pair trials 1.0 when the consensus winner is the manipulated candidate, 0.0 when
it is the other, 0.5 on a tie or no winner; NaN in single trials."""

PROTOCOL_ORDER = ("single", "pair")
TEST = "paired cluster bootstrap (base scenarios)"
NO_DIFFERENCE = "no detectable difference"
NOT_TESTED = "not tested"
_MEASURES = {
    "single": ("score", "score points (0-10, mean of the four metrics)", "score"),
    "pair": ("won", "win share of the manipulated candidate (-1..1)", "win share"),
}
"""protocol -> (frame column compared, ``scale`` of the row, ``measure`` of the row)."""

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class _Estimate:
    """One (manipulation, protocol) row before the family's adjustment."""

    manipulation: str
    kind: str
    control: bool
    protocol: str
    estimate: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    n_pairs: int = 0
    n_bases: int = 0
    n_boot: int = 0
    reason: str | None = None


def _checked(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with every contract column, or ``ValueError`` naming what is missing or
    malformed (a row the statistics would silently misread)."""
    missing = [name for name in MANIPULATION_COLUMNS if name not in frame.columns]
    if missing:
        raise ValueError(f"manipulation frame lacks column(s): {', '.join(missing)}")
    arms = {str(value) for value in frame["arm"].unique()}
    if not arms <= {"main", "manipulation"}:
        bad = sorted(arms - {"main", "manipulation"})
        raise ValueError(
            f"manipulation frame column 'arm' holds {bad}: expected main or manipulation"
        )
    protocols = {str(value) for value in frame["protocol"].unique()}
    if not protocols <= set(PROTOCOL_ORDER):
        bad = sorted(protocols - set(PROTOCOL_ORDER))
        raise ValueError(
            f"manipulation frame column 'protocol' holds {bad}: expected single or pair"
        )
    if not {value for value in frame["control"].unique()} <= {True, False}:
        raise ValueError("manipulation frame column 'control' must hold True or False")
    if frame["panel"].nunique() > 1:
        raise ValueError("manipulation frame holds several panels: split it by column 'panel'")
    return frame


def _codes(column: pd.Series, *, by_name: bool = False) -> tuple[npt.NDArray[np.intp], list[str]]:
    """Integer codes of a column (text, categorical or numbers alike: a value is named by its
    text) and the names they stand for, in first-appearance order or, ``by_name``, in sorted
    order of the names (how the package numbers base scenarios for its bootstraps, so a
    resample draws the same bases whatever order the rows came in)."""
    if isinstance(column.dtype, pd.CategoricalDtype):  # its codes, without reading the text
        codes, used = pd.factorize(column.cat.codes.to_numpy(), sort=False)
        texts = np.append(np.asarray(column.cat.categories, dtype=object), "nan")
        names = [str(value) for value in texts[used]]  # code -1 (missing) reads "nan"
    else:
        codes, uniques = pd.factorize(column, sort=False)
        names = [str(value) for value in np.asarray(uniques, dtype=object)]
    if len(set(names)) < len(names) or bool((np.asarray(codes) < 0).any()):
        # Two values with one text (1 and "1") are one name; a missing value is "nan".
        codes, uniques = pd.factorize(column.astype(str), sort=False)
        names = [str(value) for value in np.asarray(uniques, dtype=object)]
    codes = np.asarray(codes, dtype=np.intp)
    if by_name:
        order = np.argsort(np.array(names, dtype=str), kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return rank[codes], [names[i] for i in order]
    return codes, names


@dataclass(frozen=True, slots=True)
class _Cells:
    """The profile's rows, in order, and each one's base-scenario means of the paired
    differences and count of complete pairs."""

    rows: list[tuple[str, str]]
    kinds: dict[str, tuple[str, bool]]
    means: list[FloatArray]
    n_pairs: list[int]


def _paired_cells(frame: pd.DataFrame) -> _Cells:
    """Pair every twin with its main trial (same manipulation, protocol and pair key), take
    manipulated minus untouched (score in single trials, won in pair trials), and average the
    differences within each base scenario, per (manipulation, protocol).

    Rows: manipulations in first-appearance order, controls last (a manipulation's first row
    gives its kind and control flag), single before pair. A side given twice counts as its
    mean; a pair that lacks a side or whose value is NaN on either side (a score absent) is
    not complete and counts nowhere. Integer codes and bincounts throughout: a simulated
    calibration runs this thousands of times."""
    label, labels = _codes(frame["manipulation"])
    protocol = (frame["protocol"] == "pair").to_numpy(dtype=np.intp)
    key, _ = _codes(frame["pair_key"])
    base, _ = _codes(frame["base_id"], by_name=True)
    at = np.unique(label, return_index=True)[1]
    kind, control = frame["kind"].take(at).tolist(), frame["control"].take(at).tolist()
    kinds = {labels[i]: (str(kind[i]), bool(control[i])) for i in range(len(labels))}
    order = sorted(range(len(labels)), key=lambda i: (bool(control[i]), int(at[i])))
    cell = label * 2 + protocol
    present = np.bincount(cell, minlength=len(labels) * 2) > 0
    cells = [i * 2 + p for i in order for p in (0, 1) if present[i * 2 + p]]
    rows = [(labels[c // 2], PROTOCOL_ORDER[c % 2]) for c in cells]

    value = np.where(protocol == 0, frame["score"].to_numpy(float), frame["won"].to_numpy(float))
    pair_ids, first, pair = np.unique(
        cell.astype(np.int64) * (int(key.max()) + 1) + key, return_index=True, return_inverse=True
    )
    n = pair_ids.size
    twin = (frame["arm"] == "manipulation").to_numpy(dtype=bool)
    known = ~np.isnan(value)
    sides = []
    for side in (twin, ~twin):
        use = side & known
        total = np.bincount(pair[use], weights=value[use], minlength=n)
        count = np.bincount(pair[use], minlength=n)
        sides.append(np.where(count > 0, total / np.maximum(count, 1), np.nan))
    difference = sides[0] - sides[1]
    complete = ~np.isnan(difference)
    pair_cell, pair_base = cell[first][complete], base[first][complete]
    difference = difference[complete]

    means, counts = [], []
    for c in cells:
        mine = pair_cell == c
        _, by_base = np.unique(pair_base[mine], return_inverse=True)
        total = np.bincount(by_base, weights=difference[mine])
        means.append(total / np.bincount(by_base) if total.size else np.empty(0))
        counts.append(int(mine.sum()))
    return _Cells(rows, kinds, means, counts)


def _estimate(
    key: tuple[str, str], means: FloatArray, n_pairs: int, *, kind: str, control: bool,
    confidence: float, seed: int, n_boot: int,
) -> _Estimate:  # fmt: skip
    manipulation, protocol = key
    k = int(means.size)
    named = _Estimate(manipulation, kind, control, protocol)
    if k == 0:
        return replace(named, reason="no complete pairs")
    estimate = float(means.mean())
    if k < MIN_BASES:
        return replace(
            named, estimate=estimate, n_pairs=n_pairs, n_bases=k, reason=too_few_bases(k)
        )
    rng = np.random.default_rng(seed_for(seed, "bias_profile", manipulation, protocol))
    replicates = cluster_draws(k, n_boot, rng) @ means / k
    interval = expanded_interval(replicates, confidence, k)
    return replace(
        named, estimate=estimate, ci_low=interval.low, ci_high=interval.high,
        p_value=expanded_p_value(replicates, k), n_pairs=n_pairs, n_bases=k, n_boot=n_boot,
    )  # fmt: skip


def _verdict(row: _Estimate, called: bool) -> str:
    if row.p_value is None:
        return f"{NOT_TESTED}: {row.reason}"
    if not called:
        return NO_DIFFERENCE
    return f"{row.manipulation} {'favoured' if (row.estimate or 0.0) > 0 else 'disfavoured'}"


def _method(row: _Estimate, confidence: float, tested: int) -> str:
    column, scale, _ = _MEASURES[row.protocol]
    paired = (
        f"per main trial, the manipulated twin minus the untouched trial ({column}: {scale}); "
        f"averaged within each of {row.n_bases} base scenarios, each base weighing the same"
    )
    if row.p_value is None:
        return f"{paired}; no interval or p-value ({row.reason})"
    return (
        f"{paired}; {row.n_boot} resamples of the base scenarios' means (one bootstrap gives "
        f"both): {confidence:.0%} expanded percentile interval (tails at the normal quantile "
        "sqrt(B / (B - 1)) x the t quantile on B - 1 df, B bases) and the two-sided p against 0 "
        "read from the same resamples, so p < 1 - confidence when the interval leaves 0 out; "
        f"Holm over the panel's {tested} tested manipulation rows (controls included; the "
        "identity family is separate)"
    )


def bias_profile(
    frame: pd.DataFrame,
    *,
    alpha: float = 0.05,
    confidence: float = 0.95,
    seed: int = 0,
    n_boot: int = DEFAULT_BOOTSTRAP,
) -> list[BiasProfileRow]:
    """One panel's bias profile: a row per (manipulation, protocol) in ``frame``
    (``MANIPULATION_COLUMNS``; the caller splits by panel), non-control manipulations in
    first-appearance order, controls last, single before pair.

    Each row's seed comes from ``seed`` and the row's name (``seed_for``), so a row's interval
    does not change when manipulations are added and rows are resampled independently. Raises
    ``ValueError`` when a column is missing or holds a value the contract does not allow.
    """
    frame = _checked(frame)
    if frame.empty:
        return []
    cells = _paired_cells(frame)
    estimates = [
        _estimate(
            key, means, n_pairs, kind=cells.kinds[key[0]][0], control=cells.kinds[key[0]][1],
            confidence=confidence, seed=seed, n_boot=n_boot,
        )
        for key, means, n_pairs in zip(cells.rows, cells.means, cells.n_pairs, strict=True)
    ]  # fmt: skip
    tested = [i for i, row in enumerate(estimates) if row.p_value is not None]
    adjusted = dict(
        zip(
            tested, holm(np.array([estimates[i].p_value for i in tested], dtype=float)), strict=True
        )
    )
    profile = []
    for i, row in enumerate(estimates):
        p_holm = float(adjusted[i]) if i in adjusted else None
        called = p_holm is not None and p_holm < alpha
        _, scale, measure = _MEASURES[row.protocol]
        profile.append(
            BiasProfileRow(
                manipulation=row.manipulation,
                kind=row.kind,
                control=row.control,
                protocol=row.protocol,
                measure=measure,
                scale=scale,
                estimate=row.estimate,
                ci_low=row.ci_low,
                ci_high=row.ci_high,
                confidence=confidence,
                p_value=row.p_value,
                p_holm=p_holm,
                n_pairs=row.n_pairs,
                n_bases=row.n_bases,
                called=called,
                verdict=_verdict(row, called),
                test=TEST,
                method=_method(row, confidence, len(tested)),
            )
        )
    return profile
