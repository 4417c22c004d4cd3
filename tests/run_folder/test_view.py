"""``fairpanel view``: the transcripts page of a small mock run with every outcome kind (label
flips, debate moves, parse failures), read back from the store, filtered in Chromium through
the URL hash, reached from an effect's link in report.html, and shown a hostile responder's
answers as text that runs nothing."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
import webbrowser
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli
from helpers.chromium import chromium_or_skip, dump_dom, screenshot
from helpers.view_runs import HOSTILE, VIEW_EXPERIMENT, hostile_run

from fairpanel.judging import STORE_FILE, Store, export_frame, read_transcripts
from fairpanel.report._transcripts_data import FLIPPED, MOVED, PARSE, transcript_payload

EXPERIMENT = VIEW_EXPERIMENT
ARTICLE = re.compile(r'<article class="trial" data-key="([0-9a-f]+)" data-out="(\d+)"')


@pytest.fixture(scope="module")
def page(run_dir: Path) -> Path:
    result = Cli()("view", str(run_dir), "--no-open", "--out", str(run_dir / "transcripts.html"))
    assert result.exit_code == 0, result.output
    return run_dir / "transcripts.html"


@pytest.fixture(scope="module")
def payload(run_dir: Path) -> dict[str, Any]:
    store = Store(run_dir / STORE_FILE)
    try:
        return transcript_payload(read_transcripts(store))
    finally:
        store.close()


def _expected(payload: dict[str, Any], **want: str) -> set[str]:
    """The keys of the trials a filter selects, decided from the data (not the page)."""
    s, t, u = payload["s"], payload["t"], payload["u"]
    text = lambda i: "" if i < 0 else s[i]  # noqa: E731
    bits = {"flipped": FLIPPED, "moved": MOVED, "parse": PARSE}
    keys = set()
    for i, key in enumerate(t["key"]):
        judges = {text(u["judge"][j]) for j in range(t["t0"][i], t["t0"][i + 1])}
        ok = all(
            (
                text(t["category"][i]) == want.get("category", text(t["category"][i])),
                "identity" not in want
                or want["identity"] in (text(t["identA"][i]), text(t["identB"][i])),
                text(t["protocol"][i]) == want.get("protocol", text(t["protocol"][i])),
                text(t["arm"][i]) == want.get("arm", text(t["arm"][i])),
                "judge" not in want or want["judge"] in judges,
                "outcome" not in want or t["out"][i] & bits[want["outcome"]],
            )
        )
        if ok:
            keys.add(text(key))
    return keys


def test_the_reader_gives_every_turn_the_export_has(run_dir: Path) -> None:
    store = Store(run_dir / STORE_FILE)
    try:
        columns, export = read_transcripts(store), export_frame(store)
        responses = {text for *_, text in store.responses()}
    finally:
        store.close()
    assert len(columns.turn_trial) == len(export)
    assert sorted(columns.turn_raw) == sorted(export["raw_text"])
    assert sorted(filter(None, columns.turn_parse_error)) == sorted(export["parse_error"].dropna())
    assert sorted(filter(None, columns.turn_reason)) == sorted(export["reason"].dropna())
    assert int((~columns.turn_parsed).sum()) == int((~export["parse_ok"]).sum()) > 0
    assert {text for pair in columns.candidates for text in pair} == responses
    assert all("trainer" in task or "nurse" in task for task in columns.task)


def test_view_writes_the_page_and_opens_it_unless_told_not_to(
    cli: Cli, run_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    monkeypatch.setattr(webbrowser, "open", lambda url, *a, **k: opened.append(url) or True)
    assert cli("view", str(run_dir), "--no-open", "--out", str(tmp_path / "a.html")).exit_code == 0
    assert opened == []
    result = cli("view", str(run_dir), "--out", str(tmp_path / "b.html"))
    assert result.exit_code == 0 and opened == [(tmp_path / "b.html").resolve().as_uri()]
    assert "Wrote 12 trials" in result.output
    bad = cli("view", str(tmp_path), "--no-open")
    assert bad.exit_code == 2 and "not a run folder" in bad.output
    Store(tmp_path / STORE_FILE).close()
    empty = cli("view", str(tmp_path), "--no-open")
    assert empty.exit_code == 2 and "no judge-panel trials" in empty.output


def test_the_run_has_every_outcome_kind(payload: dict[str, Any]) -> None:
    outcomes = payload["t"]["out"]
    for bit in (FLIPPED, MOVED, PARSE):
        assert any(o & bit for o in outcomes), bit
    assert any(o == 0 for o in outcomes)


# A probe run after the page's own script: it sets each hash in turn and records the trials
# drawn. The page's policy allows scripts by hash, so the probe's hash is added to it.
PROBE = """(async () => {
  const out = {};
  for (const h of %s) {
    await new Promise((done) => {
      window.addEventListener("hashchange", () => setTimeout(done, 0), { once: true });
      location.hash = h;
    });
    while (document.body.dataset.rendered !== "yes") await new Promise((r) => setTimeout(r, 10));
    out[h] = { keys: [...document.querySelectorAll("article.trial")].map((a) => a.dataset.key),
      matches: Number(document.getElementById("count").dataset.matches),
      selected: [...document.querySelectorAll("#filters select, #filters input")]
        .map((f) => f.value) };
  }
  const outcome = document.querySelector('#filters select[name="outcome"]');
  outcome.value = "parse";
  await new Promise((done) => {
    window.addEventListener("hashchange", () => setTimeout(done, 0), { once: true });
    outcome.dispatchEvent(new Event("change", { bubbles: true }));
  });
  const count = document.getElementById("count");
  out.form = { hash: location.hash, matches: Number(count.dataset.matches) };
  const pre = document.createElement("pre");
  pre.id = "probe-results";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();"""

FILTERS: dict[str, dict[str, str]] = {
    "category=gender": {"category": "gender"},
    "identity=female&protocol=pair": {"identity": "female", "protocol": "pair"},
    "protocol=single": {"protocol": "single"},
    "arm=main&judge=clarity_editor": {"arm": "main", "judge": "clarity_editor"},
    "outcome=flipped": {"outcome": "flipped"},
    "outcome=moved": {"outcome": "moved"},
    "outcome=parse": {"outcome": "parse"},
    "arm=placebo": {"arm": "placebo"},
}


def test_each_filter_in_the_hash_draws_exactly_its_trials(
    page: Path, payload: dict[str, Any], tmp_path: Path
) -> None:
    binary = chromium_or_skip()
    hashes = [
        *FILTERS,
        "q=orthopaedic",
        "q=QUITE+highly",
        "treatment=none&outcome=flipped&identity=male",
    ]
    probe = PROBE % json.dumps(hashes)
    digest = base64.b64encode(hashlib.sha256(probe.encode()).digest()).decode()
    text = page.read_text(encoding="utf-8")
    text = text.replace("script-src ", f"script-src 'sha256-{digest}' ", 1)
    probed = tmp_path / "probed.html"
    probed.write_text(text.replace("</body>", f"<script>{probe}</script></body>"), "utf-8")
    dom = dump_dom(binary, probed, tmp_path)
    found = re.search(r'<pre id="probe-results">(.*?)</pre>', dom, re.DOTALL)
    assert found, dom[-2000:]
    results = json.loads(html.unescape(found.group(1)))
    for hash_, want in FILTERS.items():
        expected = _expected(payload, **want)
        assert set(results[hash_]["keys"]) == expected, hash_
        assert results[hash_]["matches"] == len(expected)
    assert results["arm=placebo"]["keys"] == []
    assert 0 < len(results["outcome=flipped"]["keys"]) < len(payload["t"]["key"])
    assert "flipped" in results["treatment=none&outcome=flipped&identity=male"]["selected"]
    # choosing an outcome in the form writes the hash, keeping the other filters
    assert results["form"]["hash"] == "#identity=male&treatment=none&outcome=parse"
    assert results["form"]["matches"] == len(_expected(payload, identity="male", outcome="parse"))
    # a phrase only the unparseable answers' raw texts hold (searched once they are inflated)
    t, u, r = payload["t"], payload["u"], payload["r"]
    malformed = {
        payload["s"][t["key"][i]]
        for i in range(len(t["key"]))
        if any("quite highly" in r[u["raw"][j]] for j in range(t["t0"][i], t["t0"][i + 1]))
    }
    assert set(results["q=QUITE+highly"]["keys"]) == malformed != set()
    # the word is in the nursing scenario's task and answers only
    assert 0 < len(results["q=orthopaedic"]["keys"]) < len(payload["t"]["key"])


def test_an_effect_link_in_the_report_opens_its_trials(
    run_dir: Path, page: Path, payload: dict[str, Any], tmp_path: Path
) -> None:
    binary = chromium_or_skip()
    report = (run_dir / "report.html").read_text(encoding="utf-8")
    effects = report[report.index('id="effects"') :]
    href = html.unescape(re.search(r'class="evidence" href="([^"]+)"', effects).group(1))
    target, _, fragment = href.partition("#")
    assert target == "transcripts.html" and "category=gender" in fragment
    want = dict(pair.split("=", 1) for pair in fragment.split("&"))
    want.pop("treatment", None)
    dom = dump_dom(binary, run_dir / target, tmp_path, fragment)
    keys = {key for key, _ in ARTICLE.findall(dom)}
    assert keys == _expected(payload, **want) != set()
    shot = screenshot(binary, page, tmp_path / "view.png", tmp_path, height=1400)
    assert shot.stat().st_size > 30_000


@pytest.fixture(scope="module")
def hostile_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = hostile_run(tmp_path_factory.mktemp("hostile"))
    page = run / "transcripts.html"
    result = Cli()("view", str(run), "--no-open", "--out", str(page))
    assert result.exit_code == 0, result.output
    return page


def test_a_hostile_answer_shows_as_text_and_runs_nothing(
    hostile_page: Path, tmp_path: Path
) -> None:
    binary = chromium_or_skip()
    dom = dump_dom(binary, hostile_page, tmp_path)
    assert 'data-rendered="yes"' in dom
    assert "<title>fairpanel transcripts · run</title>" in dom
    assert "pwned</title>" not in dom
    assert "<img" not in dom
    body = dom[dom.index('<div id="trials">') : dom.index('<script type="application/json"')]
    assert "<script" not in body
    assert dom.count("<script") == 4  # the data, the raw texts, the page script, the probe
    shown = [html.unescape(t) for t in re.findall(r'<pre class="text">(.*?)</pre>', body, re.S)]
    assert set(shown) == set(HOSTILE)
    assert re.search(r"<td>A \d+/\d+/\d+/\d+ · B \d+/\d+/\d+/\d+</td>", body)
    assert "label-swapped twin" in body and "changed: labels" in body
    raw = re.findall(r'<pre class="raw" data-raw="\d+">(.*?)</pre>', body, re.DOTALL)
    assert raw and all(html.unescape(text).startswith("{") for text in raw)  # inflated
