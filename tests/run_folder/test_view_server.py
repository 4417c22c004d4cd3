"""``fairpanel view``'s server: loopback only and behind its token, its pages, counts and
searches equal to SQL written independently over the store, hostile texts inert in its JSON and
in Chromium, and a path that loads neither pandas nor AutoGen."""

from __future__ import annotations

import html
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli
from helpers.chromium import chromium_or_skip, dump_url
from helpers.view_runs import HOSTILE, VIEW_EXPERIMENT, hostile_run

import fairpanel.viewer._queries as queries
from fairpanel.judging import STORE_FILE, Store, read_transcripts
from fairpanel.report._transcripts_data import transcript_payload
from fairpanel.viewer import (
    INDEX_FILE,
    OUTCOMES,
    Reader,
    SearchIndex,
    ViewServer,
    ensure_index,
    is_loopback_peer,
    serve_run,
)

EXPERIMENT = VIEW_EXPERIMENT
HOSTILE_TURN = "\"'><img src=x onerror=\"document.title='pwned'\"></script><script>x()</script>"


@pytest.fixture(scope="module")
def server(run_dir: Path) -> Iterator[ViewServer]:
    found = serve_run(run_dir)
    found.serve_in_thread()
    yield found
    found.shutdown()
    found.server_close()


def _get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, dict(reply.headers), reply.read()
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), refused.read()


def _api(server: ViewServer, route: str, **query: str) -> Any:
    status, _, body = _get(server.url + route + "?" + urllib.parse.urlencode(query))
    assert status == 200, body
    return json.loads(body)


def test_only_the_token_opens_anything(server: ViewServer) -> None:
    origin = server.url.removesuffix(f"{server.token}/")
    wrong = "x" * len(server.token)
    for path in ("", "api/options", f"{wrong}/", f"{wrong}/api/page", "favicon.ico",
                 f"{server.token}", f"{server.token[:-1]}/api/page"):  # fmt: skip
        status, headers, _ = _get(origin + path)
        assert status == 403, path
        assert headers["X-Content-Type-Options"] == "nosniff"
    assert _get(server.url)[0] == 200
    for path in ("../", "..%2f..%2fetc/passwd", "static/", "viewer.js/..", "api/"):
        assert _get(server.url + path)[0] == 404, path
    post = urllib.request.Request(server.url + "api/page", data=b"x", method="POST")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(post, timeout=30)
    assert refused.value.code == 405


def test_it_listens_on_loopback_and_refuses_other_peers(server: ViewServer) -> None:
    assert server.socket.getsockname()[0] == "127.0.0.1"
    assert server.url.startswith("http://127.0.0.1:")
    for peer in ("127.0.0.1", "127.8.0.3", "::1", "::ffff:127.0.0.1"):
        assert is_loopback_peer(peer), peer
        assert server.verify_request(None, (peer, 5000))
    for peer in ("10.0.0.2", "192.168.1.7", "0.0.0.0", "::ffff:10.0.0.1", "fe80::1", "host", ""):
        assert not is_loopback_peer(peer), peer
        assert not server.verify_request(None, (peer, 5000))


def _independent(store: Path, filters: dict[str, str], outcomes: dict[str, int]) -> list[str]:
    """The keys ``filters`` select, in key order, by SQL over the store itself (the outcome
    bits from the offline page's reader, which decides them in numpy)."""
    where, params = ["1"], []
    for name in ("category", "arm", "treatment", "protocol"):
        if name in filters:
            where.append(f"json_extract(spec, '$.{name}') = ?")
            params.append(filters[name])
    if "identity" in filters:
        where.append(
            "(json_extract(spec, '$.identities[0]') = ? "
            "OR json_extract(spec, '$.identities[1]') = ?)"
        )
        params += [filters["identity"]] * 2
    if "judge" in filters:
        where.append("EXISTS (SELECT 1 FROM turns WHERE trial_key = key AND judge = ?)")
        params.append(filters["judge"])
    if "status" in filters:
        where.append("status = ?")
        params.append(filters["status"])
    with sqlite3.connect(store) as db:
        keys = [
            k
            for (k,) in db.execute(
                f"SELECT key FROM trials WHERE {' AND '.join(where)} ORDER BY key", params
            )
        ]
    if "outcome" in filters:
        keys = [k for k in keys if outcomes[k] & OUTCOMES[filters["outcome"]]]
    return keys


@pytest.fixture(scope="module")
def outcomes(run_dir: Path) -> dict[str, int]:
    store = Store(run_dir / STORE_FILE)
    try:
        columns = read_transcripts(store)
    finally:
        store.close()
    return dict(zip(columns.key, transcript_payload(columns)["t"]["out"], strict=True))


FILTERS = [
    {},
    {"category": "gender"},
    {"identity": "female", "protocol": "pair"},
    {"protocol": "single"},
    {"arm": "main", "judge": "clarity_editor"},
    {"outcome": "flipped"},
    {"outcome": "moved"},
    {"outcome": "parse"},
    {"outcome": "parse", "identity": "male"},
    {"status": "ok", "treatment": "none"},
    {"arm": "placebo"},
]


def test_pages_and_counts_equal_sql_over_the_store(
    server: ViewServer, run_dir: Path, outcomes: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queries, "PAGE_SIZE", 5)
    store = run_dir / STORE_FILE
    assert any(outcomes.values()) and (run_dir / INDEX_FILE).is_file()
    for filters in FILTERS:
        expected = _independent(store, filters, outcomes)
        first = _api(server, "api/page", **filters)
        assert first["matches"] == len(expected) and first["total"] == len(outcomes), filters
        pages = [
            _api(server, "api/page", **filters, page=str(p)) for p in range(1, first["pages"] + 1)
        ]
        shown = [t["fullKey"] for page in pages for t in page["trials"]]
        assert shown == expected, filters
        assert all(t["out"] == outcomes[t["fullKey"]] for t in first["trials"])
        counts = _api(server, "api/counts", **filters)
        assert counts["matches"] == len(expected)
        for name, values in counts["by"].items():
            for value, count in values.items():
                chosen = {k: v for k, v in filters.items() if k != name} | {name: value}
                assert count == len(_independent(store, chosen, outcomes)), (filters, name, value)
    assert 0 < len(_independent(store, {"outcome": "flipped"}, outcomes)) < len(outcomes)


def _search_sql(store: Path, word: str) -> list[str]:
    """Trials whose turn texts, answers, task or labels hold ``word``, by SQL over the store."""
    sql = """
    SELECT key FROM trials t WHERE
      EXISTS (SELECT 1 FROM turns u WHERE u.trial_key = t.key AND instr(lower(
        u.raw_text || ' ' || coalesce(json_extract(u.parsed, '$.reason'), '') || ' ' ||
        coalesce(u.parse_error, '')), :q))
      OR EXISTS (SELECT 1 FROM responses r, json_each(t.spec, '$.response_indices') j
        WHERE r.scenario_id = json_extract(t.spec, '$.scenario_id') AND r.response_index = j.value
        AND r.model = json_extract(t.spec, '$.responder_model') AND instr(lower(r.text), :q))
      OR EXISTS (SELECT 1 FROM responses r JOIN calls c ON c.key = r.call_key
        WHERE r.scenario_id = json_extract(t.spec, '$.scenario_id')
        AND instr(lower(json_extract(c.request, '$.messages[#-1].content')), :q))
      OR instr(lower(t.key || ' ' || json_extract(t.spec, '$.identities') || ' ' ||
        coalesce(json_extract(t.spec, '$.authors'), '') || ' ' ||
        json_extract(t.spec, '$.scenario_id')), :q)
    ORDER BY key"""
    with sqlite3.connect(store) as db:
        return [k for (k,) in db.execute(sql, {"q": word.lower()})]


@pytest.mark.parametrize("fts5", [True, False])
def test_search_finds_what_sql_over_the_store_finds(
    server: ViewServer, run_dir: Path, fts5: bool
) -> None:
    store = run_dir / STORE_FILE
    reader = Reader(run_dir / INDEX_FILE, store, SearchIndex(run_dir / INDEX_FILE, store, fts5))
    everything = _api(server, "api/page")["total"]
    for word in ("orthopaedic", "quite highly", "female", "Fitness"):
        expected = _search_sql(store, word)
        assert expected, word
        found = [reader.trial(n)["fullKey"] for n in reader.search.trials(reader.db(), word)]
        assert sorted(found) == expected, word
        if fts5:
            reply = _api(server, "api/search", q=word)
            assert reply["matches"] == len(expected) and reply["keys"] == expected[:50]
    assert len(_search_sql(store, "orthopaedic")) < everything
    assert reader.search.trials(reader.db(), "no such word anywhere") == []


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewServer]:
    run = hostile_run(tmp_path_factory.mktemp("hostile-served"))
    with sqlite3.connect(run / STORE_FILE) as db:
        db.execute("UPDATE turns SET raw_text = ? WHERE rowid = (SELECT min(rowid) FROM turns)",
                   (HOSTILE_TURN,))  # fmt: skip
    found = serve_run(run)
    found.serve_in_thread()
    yield found
    found.shutdown()
    found.server_close()


def test_json_replies_carry_hostile_text_escaped(hostile_server: ViewServer) -> None:
    status, headers, body = _get(hostile_server.url + "api/page")
    assert status == 200
    assert headers["Content-Type"].startswith("application/json")
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    assert b"<" not in body and b">" not in body and b"\\u003cscript\\u003e" in body
    trials = json.loads(body)["trials"]
    assert {t["candA"] for t in trials} | {t["candB"] for t in trials} == set(HOSTILE)
    assert HOSTILE_TURN in {u["raw"] for t in trials for u in t["turns"]}
    page_status, page_headers, page = _get(hostile_server.url)
    assert page_status == 200 and page_headers["Content-Type"].startswith("text/html")
    assert "unsafe-inline" not in page_headers["Content-Security-Policy"]
    assert b'<script src="viewer.js"></script>' in page and b"<script>" not in page


def test_chromium_shows_hostile_text_literally_and_runs_none(
    hostile_server: ViewServer, tmp_path: Path
) -> None:
    binary = chromium_or_skip()
    dom = dump_url(binary, hostile_server.url, tmp_path)
    assert 'data-rendered="yes"' in dom and 'data-counted="yes"' in dom
    assert "pwned" not in dom.split("<body", 1)[0]
    body = dom[dom.index('<div id="trials">') :]
    assert "<img" not in body and "<script" not in body.split('<script src="viewer.js">')[0]
    shown = {html.unescape(t) for t in re.findall(r'<pre class="text">(.*?)</pre>', body, re.S)}
    assert shown == set(HOSTILE)
    raw = {html.unescape(t) for t in re.findall(r'<pre class="raw">(.*?)</pre>', body, re.S)}
    assert HOSTILE_TURN in raw
    assert "label-swapped twin" in body and "changed: labels" in body


def test_chromium_draws_a_filtered_page_from_the_hash(
    server: ViewServer, run_dir: Path, outcomes: dict[str, int], tmp_path: Path
) -> None:
    binary = chromium_or_skip()
    dom = dump_url(binary, server.url + "#identity=male&outcome=parse", tmp_path)
    drawn = re.findall(r'<article class="trial" data-key="([0-9a-f]+)"', dom)
    expected = _independent(
        run_dir / STORE_FILE, {"identity": "male", "outcome": "parse"}, outcomes
    )
    assert drawn == [k[:16] for k in expected] != []
    assert re.search(r'<option value="male">male \(\d+\)</option>', dom)  # the counts arrived


def test_serving_loads_neither_pandas_nor_autogen(run_dir: Path) -> None:
    script = f"""
import sys, json, urllib.request
from pathlib import Path
import fairpanel.cli._view
from fairpanel.viewer import serve_run
server = serve_run(Path({str(run_dir)!r}))
server.serve_in_thread()
for route in ("", "api/options", "api/page?q=orthopaedic", "api/counts?protocol=pair"):
    urllib.request.urlopen(server.url + route).read()
heavy = ("pandas", "scipy", "matplotlib", "autogen_core", "autogen_agentchat", "jinja2")
print(json.dumps([name for name in heavy if name in sys.modules]))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_command_serves_until_stopped(run_dir: Path) -> None:
    child = subprocess.Popen(
        [sys.executable, "-m", "fairpanel", "view", str(run_dir), "--no-open"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/[\w-]+/", line)
        assert url, line
        assert _get(url.group(0) + "api/options")[0] == 200
        assert _get(url.group(0).rsplit("/", 2)[0] + "/api/options")[0] == 403
    finally:
        child.terminate()
        child.wait(timeout=30)


def test_out_refuses_a_run_too_big_for_one_page_and_writes_a_subset(
    cli: Cli,
    run_dir: Path,
    outcomes: dict[str, int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("fairpanel.viewer._one_page.ONE_PAGE_TRIALS", 8)
    refused = cli("view", str(run_dir), "--no-open", "--out", str(tmp_path / "all.html"))
    assert refused.exit_code == 2 and "too many for one page" in refused.output
    assert "fairpanel view RUN_DIR" in refused.output and not (tmp_path / "all.html").exists()
    page = tmp_path / "flipped.html"
    wrote = cli("view", str(run_dir), "--no-open", "--out", str(page), "--only", "outcome=flipped")
    assert wrote.exit_code == 0, wrote.output
    data = re.search(
        r'id="transcripts-data">(.*?)</script>', page.read_text(encoding="utf-8"), re.S
    )
    assert data is not None
    payload = json.loads(data.group(1))
    keys = {payload["s"][i] for i in payload["t"]["key"]}
    flipped = {k[:16] for k, out in outcomes.items() if out & OUTCOMES["flipped"]}
    assert flipped <= keys and len(keys) < len(outcomes)
    t = payload["t"]
    chosen = {i for i, key in enumerate(t["key"]) if payload["s"][key] in flipped}
    twins = {t[side][i] for i in chosen for side in ("labelTwin", "orderTwin")}
    assert set(range(len(t["key"]))) == chosen | (twins - {-1})
    assert "Content-Security-Policy" in page.read_text(encoding="utf-8")
    nothing = cli("view", str(run_dir), "--no-open", "--out", str(page), "--only", "arm=placebo")
    assert nothing.exit_code == 2 and "no trial" in nothing.output
    served_only = cli("view", str(run_dir), "--no-open", "--only", "arm=main")
    assert served_only.exit_code == 2


def test_reads_go_through_connections_that_cannot_write(server: ViewServer) -> None:
    db = server.reader.db()
    for statement in ("DELETE FROM run.trials", "DELETE FROM trial", "CREATE TABLE x (y)"):
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            db.execute(statement)


def test_the_side_index_is_rebuilt_only_when_the_store_changed(
    run_dir: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "run"
    copy.mkdir()
    for name in (STORE_FILE, "summary.json"):
        shutil.copy(run_dir / name, copy / name)
    index = ensure_index(copy, copy / STORE_FILE)
    built = index.stat().st_ino, index.stat().st_mtime_ns
    assert ensure_index(copy, copy / STORE_FILE) == index
    assert (index.stat().st_ino, index.stat().st_mtime_ns) == built
    with sqlite3.connect(copy / STORE_FILE) as db:
        (gone,) = db.execute("SELECT max(key) FROM trials").fetchone()
        db.execute("DELETE FROM turns WHERE trial_key = ?", (gone,))
        db.execute("DELETE FROM trials WHERE key = ?", (gone,))
    ensure_index(copy, copy / STORE_FILE)
    with sqlite3.connect(index) as db:
        keys = [k for (k,) in db.execute("SELECT key FROM trial")]
    with sqlite3.connect(copy / STORE_FILE) as db:
        assert keys == [k for (k,) in db.execute("SELECT key FROM trials ORDER BY key")]
    assert gone not in keys


def test_a_store_without_trial_designs_indexes_alike(run_dir: Path, tmp_path: Path) -> None:
    """Trials stored before their design columns existed are read from their specs: the side
    index is the same, row for row, as the one read from the designs."""
    copies = {}
    for name in ("designs", "specs"):
        copy = copies[name] = tmp_path / name
        copy.mkdir()
        shutil.copy(run_dir / STORE_FILE, copy / STORE_FILE)
    with sqlite3.connect(copies["specs"] / STORE_FILE) as db:
        emptied = db.execute("UPDATE trials SET design = NULL WHERE rowid % 2 = 0").rowcount
    assert emptied > 0
    tables = []
    for copy in copies.values():
        with sqlite3.connect(ensure_index(copy, copy / STORE_FILE)) as db:
            tables.append(
                (
                    db.execute("SELECT * FROM trial ORDER BY n").fetchall(),
                    db.execute("SELECT * FROM trial_judge ORDER BY judge, n").fetchall(),
                )
            )
    assert tables[0] == tables[1]
    assert {row[5] for row in tables[0][0]} >= {"main"} and any(row[18] for row in tables[0][0])


def test_the_search_index_is_built_before_the_first_search(run_dir: Path, tmp_path: Path) -> None:
    """The command builds the search index in the background while pages are served; a
    search then reads the finished index and finds what SQL over the store finds."""
    copy = tmp_path / "run"
    copy.mkdir()
    for name in (STORE_FILE, "summary.json"):
        shutil.copy(run_dir / name, copy / name)
    served = serve_run(copy)
    served.serve_in_thread()
    try:
        table = served.reader.search.table
        with sqlite3.connect(copy / INDEX_FILE) as db:
            assert db.execute("SELECT 1 FROM meta WHERE key = ?", (table,)).fetchone() is None
        served.prepare_search().join(timeout=120)
        assert _api(served, "api/page")["trials"]
        with sqlite3.connect(copy / INDEX_FILE) as db:
            assert db.execute("SELECT 1 FROM meta WHERE key = ?", (table,)).fetchone()
        expected = _search_sql(copy / STORE_FILE, "orthopaedic")
        if served.reader.search.fts5:
            assert _api(served, "api/search", q="orthopaedic")["keys"] == expected[:50]
    finally:
        served.shutdown()
        served.server_close()
