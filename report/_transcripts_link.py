"""Links into the transcripts page (``transcripts.html``, written by ``fairpanel view``).

The page keeps its filters in the URL hash, so a link selects the trials behind a number:
``transcripts.html#category=gender&identity=female&outcome=flipped&q=nurse``. The keys are
``TRANSCRIPT_FILTERS``; values are URL-encoded (``application/x-www-form-urlencoded``, as
``URLSearchParams`` reads them) and an absent key selects everything. docs/transcripts.md says
what each key selects; this module is the one place links are written.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

__all__ = ["TRANSCRIPTS_FILE", "TRANSCRIPT_FILTERS", "transcripts_link"]

TRANSCRIPTS_FILE = "transcripts.html"
TRANSCRIPT_FILTERS = (
    "category", "identity", "arm", "treatment", "panel", "judge", "protocol", "outcome", "q",
    "trial", "page",
)  # fmt: skip
"""The hash keys the page reads, in the order links write them."""


def transcripts_link(page: str = TRANSCRIPTS_FILE, **filters: Any) -> str:
    """A link to the transcripts page filtered by ``filters`` (keys of ``TRANSCRIPT_FILTERS``;
    None and empty values are left out)."""
    unknown = set(filters) - set(TRANSCRIPT_FILTERS)
    if unknown:
        raise ValueError(f"unknown transcript filters: {sorted(unknown)}")
    chosen = [(k, str(filters[k])) for k in TRANSCRIPT_FILTERS if filters.get(k) not in (None, "")]
    return f"{page}#{urlencode(chosen)}" if chosen else page
