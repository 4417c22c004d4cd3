"""Stored records as the DataFrames the analysis package reads.

``scores`` has one row per (judge turn, candidate, metric) of every parsed turn; ``verdicts``
one row per finished pair trial (the panel's consensus); ``turns`` one row per judge turn,
parsed or not, for failure rates (with the trial's labels and the judge's own pair verdict);
``consensus`` one row per (finished trial, candidate, metric) with the panel's combined score.
Candidate ids are mapped back to identity labels here. ``replicate`` and the response order are
carried on every frame so analyses can pair the same response under two labels.
``scores`` and ``turns`` keep the turns of failed trials (failure rates need them) and say so
in ``trial_status`` ("ok" or "failed"): ``verdicts`` and ``consensus`` come from finished trials
only, so a per-judge analysis meant to sit beside the panel's keeps ``trial_status == "ok"``.

A unit counts once: two trials whose judges were sent exactly the same requests (the responder
wrote the same text twice, so two arrangements of a pair are one prompt, answered once from
the cache) are one observation, not two. ``turns`` carries each turn's request keys
(``call_keys``) and ``load_frames`` keeps only the first such trial in trial-key order.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd

from fairpanel.judging.store._frame_columns import frame_columns
from fairpanel.judging.store._store import Store
from fairpanel.judging.store._turn_read import duplicate_trials_of

__all__ = [
    "CONSENSUS_FRAME_COLUMNS",
    "SCORE_FRAME_COLUMNS",
    "TURN_FRAME_COLUMNS",
    "VERDICT_FRAME_COLUMNS",
    "RunFrames",
    "duplicate_trials_of",
    "load_frames",
]

CANDIDATES = ("A", "B")


class RunFrames:
    def __init__(
        self,
        scores: pd.DataFrame,
        verdicts: pd.DataFrame,
        turns: pd.DataFrame,
        consensus: pd.DataFrame | None = None,
        *,
        duplicate_trials: Sequence[str] = (),
    ) -> None:
        self.scores = scores
        self.verdicts = verdicts
        self.turns = turns
        self.consensus = (
            pd.DataFrame(columns=CONSENSUS_FRAME_COLUMNS) if consensus is None else consensus
        )
        self.duplicate_trials: tuple[str, ...] = tuple(duplicate_trials)
        """Keys of the trials dropped as repeats of an earlier trial (whole run, every arm)."""

    def deduplicated(self) -> RunFrames:
        """These frames with every repeated trial (see ``duplicate_trials_of``) removed from all
        four frames and its key added to ``duplicate_trials``. Needs the ``call_keys`` column
        of ``turns``; frames without it are returned as they are."""
        if "call_keys" not in self.turns.columns:
            return self
        if not self._requests_shared():
            return self
        keys: dict[str, set[str]] = {}
        # Two panels asked the same thing (identical panels) are two panels' observations,
        # so requests repeat a trial only within one panel.
        panels = self.turns["panel"] if "panel" in self.turns.columns else [""] * len(self.turns)
        for trial_key, panel, call_keys in zip(
            self.turns["trial_key"], panels, self.turns["call_keys"], strict=True
        ):
            found = keys.setdefault(str(trial_key), set())
            if isinstance(call_keys, (tuple, list)):
                found.update(f"{panel}\0{key}" for key in call_keys)
        dropped = set(duplicate_trials_of(keys))
        if not dropped:
            return self

        def keep(frame: pd.DataFrame) -> pd.DataFrame:
            return frame[~frame["trial_key"].isin(dropped)].reset_index(drop=True)

        return RunFrames(
            keep(self.scores),
            keep(self.verdicts),
            keep(self.turns),
            keep(self.consensus),
            duplicate_trials=(*self.duplicate_trials, *sorted(dropped)),
        )

    def _requests_shared(self) -> bool:
        """Whether any request key belongs to two trials of one panel: without that no trial
        can repeat another, and the per-turn sets of ``deduplicated`` are not needed (one
        vectorised pass instead of a Python set per trial on a large run)."""
        turns = self.turns
        call_keys = turns["call_keys"].to_numpy(dtype=object)
        lengths = np.fromiter(
            (len(keys) if isinstance(keys, (tuple, list)) else 0 for keys in call_keys),
            dtype=np.int64,
            count=len(call_keys),
        )
        owners = np.repeat(np.arange(len(call_keys)), lengths)
        flat = np.fromiter(
            itertools.chain.from_iterable(
                keys for keys in call_keys if isinstance(keys, (tuple, list))
            ),
            dtype=object,
            count=int(lengths.sum()),
        )
        panels = turns["panel"] if "panel" in turns.columns else pd.Series([""] * len(turns))
        pairs = pd.DataFrame(
            {
                "trial": pd.factorize(turns["trial_key"])[0][owners],
                "panel": pd.factorize(panels)[0][owners],
                "key": pd.factorize(flat)[0],
            }
        ).drop_duplicates()
        return bool(pairs.duplicated(["panel", "key"]).any())

    def where(self, **design: str) -> RunFrames:
        """The rows of one arm, treatment or signal, e.g. ``frames.where(arm="main")``."""

        def keep(frame: pd.DataFrame) -> pd.DataFrame:
            mask = np.ones(len(frame), dtype=bool)
            for column, value in design.items():
                mask &= _equals(frame[column], value)
            return _take_rows(frame, np.flatnonzero(mask))

        return RunFrames(
            keep(self.scores),
            keep(self.verdicts),
            keep(self.turns),
            keep(self.consensus),
            duplicate_trials=self.duplicate_trials,
        )

    def values(self, column: str) -> list[str]:
        """The distinct values of a design column, in first-seen order (scores, then verdicts,
        then turns)."""
        found: dict[str, None] = {}
        for frame in (self.scores, self.verdicts, self.turns):
            found.update(dict.fromkeys(_first_seen(frame[column])))
        return list(found)


def _take_rows(frame: pd.DataFrame, rows: npt.NDArray[np.intp]) -> pd.DataFrame:
    """``frame.take(rows).reset_index(drop=True)``, column by column: a numpy column is
    gathered by numpy, a categorical rebuilt from its gathered codes (they index the same
    categories, so they are not checked again); a million-row frame is copied in a third of
    the time pandas' block take needs."""
    columns: dict[str, object] = {}
    for name in frame.columns:
        column = frame[name]
        if isinstance(column.dtype, pd.CategoricalDtype):
            codes = column.cat.codes.to_numpy()[rows]
            columns[name] = pd.Categorical.from_codes(codes, dtype=column.dtype, validate=False)
        elif isinstance(column.dtype, np.dtype):
            columns[name] = column.to_numpy()[rows]
        else:
            columns[name] = column.array.take(rows)
    if len(columns) != len(frame.columns):  # repeated column names: pandas' own take
        return frame.take(rows).reset_index(drop=True)
    taken = pd.DataFrame(columns, index=pd.RangeIndex(len(rows)), copy=False)
    taken.attrs = copy.deepcopy(frame.attrs)  # as pandas' take carries them
    return taken


def _equals(column: pd.Series, value: str) -> npt.NDArray[np.bool_]:
    """``column == value`` as a numpy mask; on a categorical, a comparison of its codes with the
    value's code (no row is compared as text)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = column.cat.categories
        codes = column.cat.codes.to_numpy()
        matches = np.flatnonzero(categories == value)
        if matches.size == 0:
            return np.zeros(len(column), dtype=bool)
        return np.asarray(codes == matches[0], dtype=bool)
    return np.asarray((column == value).to_numpy(dtype=bool, na_value=False), dtype=bool)


def _first_seen(column: pd.Series) -> list[str]:
    """A column's distinct values as text in first-seen order; a categorical's from its codes
    (a missing value reads ``nan``, as ``str`` of pandas' missing marker does)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        names = [str(name) for name in column.cat.categories] + [str(np.nan)]
        codes = column.cat.codes.to_numpy()
        if len(names) > 64:  # many categories (trial keys): a hash pass
            return [names[code] for code in pd.unique(codes).tolist()]
        # A design column has a handful: which codes occur, then where each first occurs.
        held = np.zeros(len(names), dtype=bool)
        held[codes] = True  # code -1 (missing) marks the last entry
        present = np.flatnonzero(held)
        firsts = [int(np.argmax(codes == (c if c < len(names) - 1 else -1))) for c in present]
        return [names[present[i]] for i in np.argsort(firsts, kind="stable")]
    return [str(value) for value in pd.unique(column)]


def load_frames(store: Store, *, categorical: bool = False) -> RunFrames:
    """The store's trials as frames, each unit once: trials that repeat an earlier trial's
    judge requests byte for byte are dropped from every frame and listed in
    ``duplicate_trials`` (see ``RunFrames.deduplicated``), so no analysis counts them twice.

    The store is read in columns (see ``frame_columns``), not a record per turn. With
    ``categorical`` the text columns (design, labels, judges, rounds, metrics, trial keys) are
    pandas categoricals instead of strings: a byte or four a row instead of the text, which is
    what lets ``fairpanel report`` analyse a million turns in memory. Comparisons, ``isin``
    and groupings behave as on strings; string arithmetic (``a + b``) needs ``astype(str)``;
    the turns then have no ``call_keys`` (the repeats are already dropped).
    """
    scores, verdicts, turns, consensus, dropped = frame_columns(
        store,
        SCORE_FRAME_COLUMNS,
        VERDICT_FRAME_COLUMNS,
        TURN_FRAME_COLUMNS,
        CONSENSUS_FRAME_COLUMNS,
        categorical=categorical,
    )
    return RunFrames(scores, verdicts, turns, consensus, duplicate_trials=dropped)


_DESIGN_COLUMNS = ["arm", "treatment", "signal", "panel"]
SCORE_FRAME_COLUMNS = [
    "trial_key", *_DESIGN_COLUMNS, "protocol", "base_id", "scenario_id", "category",
    "identity", "position", "response_index", "judge", "judge_model", "round", "round_kind",
    "metric", "score", "replicate", "trial_status",
]  # fmt: skip
VERDICT_FRAME_COLUMNS = [
    "trial_key", *_DESIGN_COLUMNS, "base_id", "scenario_id", "category", "first_identity",
    "second_identity", "first_response_index", "winner_position", "winner_identity",
    "replicate", "second_response_index",
]  # fmt: skip
TURN_FRAME_COLUMNS = [
    "trial_key", *_DESIGN_COLUMNS, "protocol", "category", "judge", "judge_model", "round",
    "round_kind", "attempts", "parse_ok", "base_id", "scenario_id", "replicate",
    "first_identity", "second_identity", "first_response_index", "winner_position", "call_keys",
    "trial_status",
]  # fmt: skip
CONSENSUS_FRAME_COLUMNS = [
    "trial_key", *_DESIGN_COLUMNS, "protocol", "base_id", "scenario_id", "category",
    "identity", "position", "response_index", "replicate", "consensus_method", "metric", "score",
]  # fmt: skip
