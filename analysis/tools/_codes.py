"""Integer codes for grouping keys, so the analyses of a million-turn run group with numpy.

The report's frames carry their text columns as categoricals (one category per trial for the
trial key), and a pandas groupby or merge over such columns re-codes every category on every
call. The codes are already there: this module hands them out in the order a sorted pandas
groupby would visit the groups (category order for categoricals, sorted values otherwise), so
an analysis rewritten on codes sees its groups in the same order and sums in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

Codes = npt.NDArray[np.int64]

_LIMIT = 2**62
"""A combined key stays below this; past it the key so far is renumbered densely first."""
_TABLE_FACTOR, _TABLE_SLACK = 8, 1024
"""Keys ranging up to this many times the rows (plus the slack) are ranked by a table."""


def _small_integer_codes(column: pd.Series) -> tuple[Codes, int] | None:
    """An integer column's values ranked among its distinct values (what a sorted factorize
    numbers them) by ``dense_codes``'s table over their range, when the range is small
    (rounds, positions, replicates): a pass over the rows instead of hashing each."""
    if column.dtype.kind not in "iu" or len(column) == 0:
        return None
    values = column.to_numpy()
    low, high = int(values.min()), int(values.max())
    if high - low >= _TABLE_FACTOR * len(values) + _TABLE_SLACK:
        return None
    return dense_codes(np.asarray(values - low if low else values, dtype=np.int64))


def sort_codes(column: pd.Series, rows: npt.NDArray[np.intp] | None = None) -> tuple[Codes, int]:
    """The column's codes (``-1`` where missing) and how many codes there are, numbered in the
    order a sorted groupby orders the values: a categorical keeps its category order. With
    ``rows``, the codes of those rows (numbered over the whole column)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy()  # the categorical's own narrow integers
        n = len(column.cat.categories)
    elif (small := _small_integer_codes(column)) is not None:
        codes, n = small
    else:
        codes, uniques = pd.factorize(column, sort=True)
        n = len(uniques)
    if rows is not None:
        codes = codes[rows]
    return np.asarray(codes, dtype=np.int64), n


def combined_codes(
    frame: pd.DataFrame,
    columns: Sequence[str],
    *,
    missing_matches: bool = False,
    rows: npt.NDArray[np.intp] | None = None,
) -> tuple[Codes, int]:
    """One integer per row for the tuple of ``columns`` (``-1`` when any of them is missing),
    ordered as the tuples sort in a groupby over those columns, and the size of the key space
    (codes need not be dense). With ``missing_matches`` a missing value is a value of its own
    (sorted last), as a merge pairs missing keys with missing keys. With ``rows``, the codes of
    those rows alone (numbered over the whole column)."""
    length = len(frame) if rows is None else len(rows)
    key = np.zeros(length, dtype=np.int64)
    size = 1
    missing = np.zeros(length, dtype=bool)
    for column in columns:
        codes, n = sort_codes(frame[column], rows)
        if missing_matches:
            codes = np.where(codes < 0, n, codes)
            n += 1
        missing |= codes < 0
        if size * max(n, 1) >= _LIMIT:
            # Renumber the key so far densely (np.unique keeps its order), then go on.
            uniques, key = np.unique(key, return_inverse=True)
            size = len(uniques)
        key = key * max(n, 1) + np.maximum(codes, 0)
        size *= max(n, 1)
    key[missing] = -1
    return key, size


def dense_codes(key: Codes) -> tuple[Codes, int]:
    """Renumber non-negative keys 0..k-1 in key order (``-1`` stays ``-1``); returns the codes and
    k. Linear in the rows when the key space is small enough for a table, else a sort."""
    valid = key >= 0
    out = np.full(key.shape, -1, dtype=np.int64)
    if not valid.any():
        return out, 0
    present = key[valid]
    top = int(present.max()) + 1
    if top <= _TABLE_FACTOR * len(present) + _TABLE_SLACK:
        seen = np.zeros(top, dtype=bool)
        seen[present] = True
        if seen.all():  # every key in the range occurs: each is its own rank
            out[valid] = present
            return out, top
        rank = np.cumsum(seen) - 1
        out[valid] = rank[present]
        return out, int(seen.sum())
    uniques, inverse = np.unique(present, return_inverse=True)
    out[valid] = inverse
    return out, len(uniques)


def text_codes(column: pd.Series, *, missing: bool = False) -> tuple[Codes, list[str]] | None:
    """The column's values as codes numbered in the sorted order of their text (``str`` of
    each value; values with the same text share a code), and those texts; ``None`` when a value
    is missing (``astype(str)`` treats missing values differently by dtype; the caller keeps
    its pandas formulation then), unless ``missing`` allows them (coded ``-1``: a groupby on
    the raw column drops them). Only the distinct values are turned into text and sorted."""
    if not missing and bool(column.isna().any()):
        return None
    codes, uniques = pd.factorize(column)
    texts = np.asarray(uniques, dtype=object).astype(str)
    names, rank = np.unique(texts, return_inverse=True)
    coded = np.where(codes >= 0, rank[np.maximum(codes, 0)] if rank.size else -1, -1)
    return coded.astype(np.int64), [str(name) for name in names]


def group_numbers(
    columns: Sequence[tuple[Codes, list[str]]],
) -> tuple[Codes, list[tuple[str, ...]]]:
    """Rows numbered by the tuple of their texts, 0..k-1 in sorted tuple order (as a sorted
    groupby over the text columns numbers its groups), and the k tuples found."""
    key = np.zeros(len(columns[0][0]) if columns else 0, dtype=np.int64)
    for codes, names in columns:
        key = key * max(len(names), 1) + codes
    dense, k = dense_codes(key)
    found: list[tuple[str, ...]] = [()] * k
    firsts = np.zeros(k, dtype=np.int64)
    firsts[dense] = np.arange(dense.size)  # some row of each group
    for number, row in enumerate(firsts.tolist()):
        found[number] = tuple(names[codes[row]] for codes, names in columns)
    return dense, found
