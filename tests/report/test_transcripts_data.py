"""The transcripts page's data: escaping that keeps it inside its script element, twins and
outcomes decided from hand-built columns, and the links the report writes into the page."""

from __future__ import annotations

import base64
import gzip
import html
import json
import math
import re
from typing import Any

import numpy as np
import pytest

from fairpanel.judging import TranscriptColumns
from fairpanel.report import embed_json, transcripts_link, transcripts_page
from fairpanel.report._transcripts_data import FLIPPED, MOVED, PARSE, transcript_payload

HOSTILE = '</script><img src=x onerror="alert(1)"><!-- &amp; \u2028\u2029 <script>x</script>'
NAN = math.nan
IDENTITIES = [("female", "male"), ("male", "female"), ("male", "female"), ("female",)]


def test_embedded_json_cannot_close_its_script_and_reads_back_unchanged() -> None:
    value = {"s": [HOSTILE, "plain"], "n": [1, -1]}
    text = embed_json(value)
    assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}
    assert "\\u003c/script\\u003e" in text
    assert json.loads(text) == value


def _scores(verdict: float, a: float, b: float) -> list[float]:
    """A pair turn's packed numbers: the verdict position, no single scores, then A's and B's
    four metrics (one value each, for brevity)."""
    return [verdict, NAN, NAN, NAN, NAN, *[a] * 4, *[b] * 4]


def _columns() -> TranscriptColumns:
    """Three pair trials on one unit (0 and 1 label-swapped twins with different winners, 2
    the order-swapped twin of 0), and one single trial with a failed parse."""
    trial: dict[str, Any] = {
        "key": ["k0", "k1", "k2", "k3"],
        "protocol": ["pair", "pair", "pair", "single"],
        "status": ["ok"] * 4,
        "error": [None] * 4,
        "panel": [None] * 4,
        "arm": ["main"] * 4,
        "treatment": ["none"] * 4,
        "signal": ["explicit"] * 4,
        "label_position": ["tag"] * 4,
        "category": ["gender"] * 4,
        "base_id": ["b"] * 4,
        "scenario_id": ["b/01"] * 4,
        "replicate": [0] * 4,
        "identities": IDENTITIES,
        "authors": [tuple(f"a {i}" for i in ids) for ids in IDENTITIES],
        "response_indices": [(1, 2), (1, 2), (2, 1), (1,)],
        "task": ["the task"] * 4,
        "candidates": [(HOSTILE, "two"), (HOSTILE, "two"), ("two", HOSTILE), (HOSTILE,)],
        "consensus_winner": ["A", "B", "B", None],
        "consensus_scores": [{"A": {"creativity": 7.0}}, None, None, None],
    }
    turns = [
        # trial, round, kind, judge, verdict-and-scores, parsed
        (0, 0, "first", "j1", _scores(1, 5, 6), True),
        (0, 1, "final", "j1", _scores(0, 6, 5), True),  # j1 changed its verdict: moved
        (1, 0, "first", "j1", _scores(1, 5, 6), True),
        (1, 1, "final", "j1", _scores(1, 4, 7), True),  # same verdict, other scores
        (2, 0, "first", "j1", _scores(1, 5, 6), True),
        (3, 0, "first", "j1", [NAN] * 13, False),
    ]
    return TranscriptColumns(
        **trial,
        turn_trial=np.array([t[0] for t in turns]),
        turn_round=np.array([t[1] for t in turns]),
        turn_round_kind=[t[2] for t in turns],
        turn_judge=[t[3] for t in turns],
        turn_raw=["raw " + HOSTILE] * len(turns),
        turn_reason=["a reason"] * 5 + [None],
        turn_parsed=np.array([t[5] for t in turns]),
        turn_parse_error=[None] * 5 + ["no JSON object found"],
        turn_attempts=np.array([1, 1, 1, 1, 1, 3]),
        turn_scores=np.array([t[4] for t in turns], dtype=float),
    )


def test_payload_finds_twins_and_outcomes_and_stores_each_text_once() -> None:
    payload = transcript_payload(_columns())
    trials, strings = payload["t"], payload["s"]
    assert trials["labelTwin"] == [1, 0, -1, -1]
    assert trials["orderTwin"] == [2, -1, 0, -1]
    assert trials["out"] == [FLIPPED | MOVED, FLIPPED, 0, PARSE]
    assert trials["t0"] == [0, 2, 4, 5, 6]
    assert strings.count(HOSTILE) == 1
    assert {strings[i] for i in trials["candA"]} == {HOSTILE, "two"}
    assert payload["r"] == ["raw " + HOSTILE] and payload["u"]["raw"] == [0] * 6
    assert payload["u"]["verdict"] == [1, 0, 1, 1, 1, -1]
    assert payload["u"]["scores"][:8] == [5, 5, 5, 5, 6, 6, 6, 6]
    assert payload["u"]["scores"][-8:] == [-1] * 8
    assert strings[payload["u"]["perr"][5]] == "no JSON object found"


def test_the_page_embeds_hostile_text_inertly_under_a_strict_policy() -> None:
    page = transcripts_page(_columns(), "run <b>name</b>")
    assert HOSTILE not in page and "<img" not in page
    assert page.count("</script>") == 3  # the data, the raw texts and the page script
    data = re.search(r'id="transcripts-data">(.*?)</script>', page, re.DOTALL)
    assert data is not None and HOSTILE in json.loads(data.group(1))["s"]
    packed = re.search(r'id="transcripts-raw">([A-Za-z0-9+/=]+)</script>', page)
    assert packed is not None
    assert json.loads(gzip.decompress(base64.b64decode(packed.group(1)))) == ["raw " + HOSTILE]
    policy = re.search(r'Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    rules = html.unescape(policy.group(1))
    assert "default-src 'none'" in rules and "script-src 'sha256-" in rules
    assert "unsafe-inline" not in rules
    assert "run &lt;b&gt;name&lt;/b&gt;" in page


def test_links_write_the_hash_format_and_refuse_unknown_keys() -> None:
    assert transcripts_link() == "transcripts.html"
    link = transcripts_link(identity="non-binary person", category="gender", judge=None)
    assert link == "transcripts.html#category=gender&identity=non-binary+person"
    with pytest.raises(ValueError, match="unknown transcript filters"):
        transcripts_link(colour="red")
