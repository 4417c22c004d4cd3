"""Reading a run's transcripts in the browser, at any size: what serves them, and which
trials a self-contained page may hold.

``ViewServer`` serves one run folder on loopback behind a random token; its page asks for a
page of trials, a filter's counts, one trial or a search, each an indexed query on a side file
built beside the store on the first view (``view-index.sqlite``: the trials' filter fields and
outcomes, and a full-text index of the texts built on the first search). It imports neither
the analysis nor the report, so it starts as fast as SQLite opens. ``trials_for_one_page``
decides what ``fairpanel view --out`` may embed. docs/transcripts.md describes both.
"""

from fairpanel.viewer._index import FLIPPED, INDEX_FILE, MOVED, PARSE, ensure_index
from fairpanel.viewer._one_page import (
    ONE_PAGE_TRIALS,
    TooBigForOnePageError,
    trials_for_one_page,
)
from fairpanel.viewer._queries import FILTERS, OUTCOMES, PAGE_SIZE, SELECTS, Reader
from fairpanel.viewer._search import SearchIndex, fts5_available, phrase
from fairpanel.viewer._server import (
    CSP,
    NotViewableError,
    ViewServer,
    is_loopback_peer,
    serve_run,
)

__all__ = [
    "CSP",
    "FILTERS",
    "FLIPPED",
    "INDEX_FILE",
    "MOVED",
    "ONE_PAGE_TRIALS",
    "OUTCOMES",
    "PAGE_SIZE",
    "PARSE",
    "SELECTS",
    "NotViewableError",
    "Reader",
    "SearchIndex",
    "TooBigForOnePageError",
    "ViewServer",
    "ensure_index",
    "fts5_available",
    "is_loopback_peer",
    "phrase",
    "serve_run",
    "trials_for_one_page",
]
