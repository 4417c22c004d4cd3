"""The transcripts page (``transcripts.html``): every trial of a run, filterable, one page of
trials drawn at a time from data embedded in the page.

The page is one offline file. Its data is a JSON document (``_transcripts_data``) in a
``<script type="application/json">`` element, escaped so that no text of the run can close that
element; the page's own script and style are allowed by their SHA-256 in a Content-Security-
Policy that allows nothing else (no inline event handlers, no remote or local loads), and the
script only ever shows run texts through ``textContent``. The judges' raw texts, the bulk of a
large run and mostly distinct, are embedded gzipped (base64, which needs no escaping) and
inflated by the browser's ``DecompressionStream`` after the first page of trials is drawn.

Filters live in the URL hash so a report can link to the trials behind a number
(``_transcripts_link`` writes those links; docs/transcripts.md defines the format).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json

from markupsafe import Markup

from fairpanel.report._html import environment
from fairpanel.report._transcripts_data import TranscriptSource, embed_json, transcript_payload

__all__ = ["transcripts_page"]


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def transcripts_page(
    source: TranscriptSource, run_name: str, report_link: str | None = None
) -> str:
    """The page's HTML for the trials of ``source``."""
    env = environment()
    loader = env.loader
    assert loader is not None
    script = loader.get_source(env, "transcripts.js")[0]
    style = loader.get_source(env, "transcripts.css")[0]
    csp = (
        f"default-src 'none'; script-src {_sha256(script)}; style-src {_sha256(style)}; "
        "img-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'"
    )
    payload = transcript_payload(source)
    raw = payload.pop("r")
    return env.get_template("transcripts.html.j2").render(
        run_name=run_name,
        report_link=report_link,
        n_trials=len(source.key),
        n_turns=len(source.turn_trial),
        csp=csp,
        style=Markup(style),
        script=Markup(script),
        data=Markup(embed_json(payload)),
        raw=base64.b64encode(gzip.compress(json.dumps(raw).encode(), mtime=0)).decode(),
    )
