"""Column names, input validation and JSON helpers shared by every analysis function.

The judging package writes three frames (scores, verdicts, turns). Their column names live here
and nowhere else, so that a rename in the storage format is a one-line change and so that every
public function fails the same way (a ``ValueError`` naming the missing column) instead of with a
``KeyError`` from deep inside a groupby.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

# --- column names -------------------------------------------------------------------------------
TRIAL_KEY = "trial_key"
PROTOCOL = "protocol"
BASE_ID = "base_id"
SCENARIO_ID = "scenario_id"
CATEGORY = "category"
IDENTITY = "identity"
POSITION = "position"
RESPONSE_INDEX = "response_index"
JUDGE = "judge"
JUDGE_MODEL = "judge_model"
ROUND = "round"
ROUND_KIND = "round_kind"
METRIC = "metric"
SCORE = "score"

FIRST_IDENTITY = "first_identity"
SECOND_IDENTITY = "second_identity"
FIRST_RESPONSE_INDEX = "first_response_index"
WINNER_POSITION = "winner_position"
WINNER_IDENTITY = "winner_identity"

PARSE_OK = "parse_ok"

# --- vocabularies -------------------------------------------------------------------------------
METRICS: tuple[str, ...] = ("creativity", "accuracy", "efficiency", "reliability")
PROTOCOLS: tuple[str, ...] = ("single", "pair")
ROUND_KINDS: tuple[str, ...] = ("first", "discussion", "final")
SCORE_MIN = 0.0
SCORE_MAX = 10.0
OVERALL = "overall"

SCORE_COLUMNS: tuple[str, ...] = (
    TRIAL_KEY,
    PROTOCOL,
    BASE_ID,
    SCENARIO_ID,
    CATEGORY,
    IDENTITY,
    POSITION,
    RESPONSE_INDEX,
    JUDGE,
    JUDGE_MODEL,
    ROUND,
    ROUND_KIND,
    METRIC,
    SCORE,
)
VERDICT_COLUMNS: tuple[str, ...] = (
    TRIAL_KEY,
    BASE_ID,
    SCENARIO_ID,
    CATEGORY,
    FIRST_IDENTITY,
    SECOND_IDENTITY,
    FIRST_RESPONSE_INDEX,
    WINNER_POSITION,
    WINNER_IDENTITY,
)
TURN_COLUMNS: tuple[str, ...] = (TRIAL_KEY, PROTOCOL, CATEGORY, JUDGE, ROUND_KIND, PARSE_OK)


def require_columns(frame: pd.DataFrame, required: Iterable[str], name: str) -> pd.DataFrame:
    """Return ``frame`` if it has every required column, else raise ``ValueError`` naming them.

    A frame with no rows *and* no columns (what ``pd.DataFrame([])`` gives for a run that stored
    nothing) is accepted and returned as an empty frame with the required columns, because "no
    data yet" is a legitimate state that the report must handle, not a schema error.
    """
    wanted = list(required)
    if frame.shape == (0, 0):
        return pd.DataFrame({col: pd.Series([], dtype=object) for col in wanted})
    missing = [col for col in wanted if col not in frame.columns]
    if missing:
        raise ValueError(
            f"{name} frame is missing required column(s): {', '.join(missing)}; "
            f"expected columns: {', '.join(wanted)}"
        )
    return frame


def check_choice(value: str, allowed: tuple[str, ...], what: str) -> str:
    """Reject typos in protocol/round/metric arguments; a typo would silently select no rows."""
    if value not in allowed:
        raise ValueError(f"unknown {what} {value!r}; expected one of {', '.join(allowed)}")
    return value


def validate_scores(scores: pd.DataFrame) -> pd.DataFrame:
    """Check the scores frame's columns and values; return it with ``score`` as float.

    Out-of-range or missing scores and unknown metric names mean the judging package broke its
    contract; averaging them would produce plausible-looking but wrong numbers, so we refuse.
    """
    frame = require_columns(scores, SCORE_COLUMNS, "scores")
    if frame.empty:
        return frame
    unknown = _unknown_metrics(frame[METRIC])
    if unknown:
        raise ValueError(
            f"scores frame has unknown metric(s) {unknown}; expected {', '.join(METRICS)}"
        )
    column = frame[SCORE]
    floats = column.dtype == np.float64
    values = column if floats else pd.to_numeric(column, errors="coerce").astype(float)
    array = values.to_numpy()
    # Two reductions settle the usual case (NaN makes both comparisons false); the mask of
    # bad rows is built only when there is one to report.
    in_range = bool(array.min() >= SCORE_MIN) and bool(array.max() <= SCORE_MAX)
    bad = np.zeros(0, dtype=bool) if in_range else ~((array >= SCORE_MIN) & (array <= SCORE_MAX))
    if not in_range and bool(bad.any()):
        example = frame.loc[bad, SCORE].iloc[0]
        raise ValueError(
            f"scores frame column {SCORE!r} has {int(bad.sum())} value(s) that are missing or "
            f"outside {SCORE_MIN:g}..{SCORE_MAX:g} (e.g. {example!r})"
        )
    # Copy-on-write (pandas 3): the shallow copy shares the columns until one of the two
    # frames writes, so a million-row frame is not copied on every validation. Scores that
    # are floats already keep their column (every analysis validates the same frames again).
    out = frame.copy(deep=False)
    if not floats:
        out[SCORE] = values
    return out


def _unknown_metrics(column: pd.Series) -> list[str]:
    """The metric names (as text, ``nan`` for a missing one) outside ``METRICS``, sorted. A
    categorical whose categories are all known metrics and whose rows all have one holds none:
    one pass over its narrow codes instead of collecting its distinct values."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy()
        known = {str(name) for name in column.cat.categories} <= set(METRICS)
        if known and (codes.size == 0 or int(codes.min()) >= 0):
            return []
    return sorted(_distinct_texts(column) - set(METRICS))


def _distinct_texts(column: pd.Series) -> set[str]:
    """The distinct values of a column as text (``nan`` for a missing one); a categorical's
    from a count of its codes rather than hashing every row."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        n = len(column.cat.categories)
        held = np.zeros(n + 1, dtype=bool)
        held[column.cat.codes.to_numpy()] = True  # code -1 (missing) marks the last entry
        texts = {str(name) for name in column.cat.categories[held[:n]]}
        return texts | ({str(np.nan)} if held[n] else set())
    return {str(value) for value in column.unique()}


def select_scores(
    scores: pd.DataFrame,
    protocol: str,
    round_kind: str,
    columns: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Validate and keep the rows of one protocol and one round kind (and only ``columns``
    when given: a caller that reads a few columns of a million rows copies only those).

    Rounds are never pooled: a judge's first and final score on the same candidate are not
    independent observations, and mixing them would double-count every trial.
    """
    check_choice(protocol, PROTOCOLS, "protocol")
    check_choice(round_kind, ROUND_KINDS, "round_kind")
    frame = validate_scores(scores)
    mask = (frame[PROTOCOL] == protocol) & (frame[ROUND_KIND] == round_kind)
    if columns is not None:
        frame = frame.loc[:, list(columns)]
    return frame.loc[mask]


def float_or_none(value: Any) -> float | None:
    """Convert a numpy/pandas scalar to a JSON-safe float, mapping NaN/inf/NA to ``None``."""
    if value is None or value is pd.NA:
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def jsonable(value: Any) -> Any:
    """Recursively turn analysis output into plain JSON types (no numpy scalars, no NaN).

    ``json.dumps(..., allow_nan=False)`` must succeed on the report; this is the last line of
    defence in case a numpy scalar or NaN slipped through a result constructor.
    """
    if isinstance(value, Mapping):
        return {str(key): jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float_or_none(value)
    if value is None or value is pd.NA:
        return None
    if isinstance(value, str):
        return value
    return str(value)


def validate_frames(
    scores: pd.DataFrame, verdicts: pd.DataFrame, turns: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """An arm's three frames checked as every entry point checks them: the scores' columns and
    values (``validate_scores``), the verdicts' and turns' columns."""
    return (
        validate_scores(scores),
        require_columns(verdicts, VERDICT_COLUMNS, "verdicts"),
        require_columns(turns, TURN_COLUMNS, "turns"),
    )
