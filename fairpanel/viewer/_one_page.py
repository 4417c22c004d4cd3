"""Which trials a self-contained page (``fairpanel view --out``) may hold.

A page embeds its trials and filters them in the browser, which is quick for a few thousand
trials and unworkable for a hundred thousand (tens of megabytes parsed before the first
trial shows). So a page holds a whole small run, or the trials a filter selects (with their
twins, which the page shows beside them), and no more than ``ONE_PAGE_TRIALS``: past that the
served viewer, which reads a page of trials at a time, is the way.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from fairpanel.viewer._index import ensure_index, read_only
from fairpanel.viewer._queries import FILTERS, Reader
from fairpanel.viewer._search import SearchIndex

__all__ = ["ONE_PAGE_TRIALS", "TooBigForOnePageError", "trials_for_one_page"]

ONE_PAGE_TRIALS = 20_000


class TooBigForOnePageError(ValueError):
    """The trials asked for would not make a page a browser opens quickly."""


def trials_for_one_page(
    run_dir: Path, store_path: Path, filters: Mapping[str, str] | None = None
) -> list[str] | None:
    """The keys of the trials ``filters`` select and their twins (None: every trial of a run
    small enough for one page). Raises ``TooBigForOnePageError`` past ``ONE_PAGE_TRIALS``."""
    unknown = set(filters or {}) - set(FILTERS)
    if unknown:
        raise ValueError(f"unknown transcript filters: {sorted(unknown)}")
    chosen = {k: v for k, v in (filters or {}).items() if v and k != "page"}
    if not chosen:
        with read_only(store_path) as store:
            trials = int(store.execute("SELECT count(*) FROM trials").fetchone()[0])
        if trials > ONE_PAGE_TRIALS:
            raise TooBigForOnePageError(_advice(trials))
        return None
    index = ensure_index(run_dir, store_path)
    reader = Reader(index, store_path, SearchIndex(index, store_path))
    sql, params = reader.where(chosen)
    rows = (
        reader.db()
        .execute(
            f"SELECT key, (SELECT key FROM trial t WHERE t.n = trial.labelTwin), "
            f"(SELECT key FROM trial t WHERE t.n = trial.orderTwin) FROM trial WHERE {sql}",
            params,
        )
        .fetchall()
    )
    reader.db().close()
    keys = sorted({key for row in rows for key in row if key is not None})
    if len(keys) > ONE_PAGE_TRIALS:
        raise TooBigForOnePageError(_advice(len(keys)))
    return keys


def _advice(trials: int) -> str:
    return (
        f"{trials:,} trials are too many for one page (at most {ONE_PAGE_TRIALS:,}): run "
        "`fairpanel view RUN_DIR` without --out to browse them through the local viewer, or "
        "choose fewer with --only (e.g. --only 'category=gender&identity=female')"
    )
