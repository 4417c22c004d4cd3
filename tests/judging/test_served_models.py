"""Which judge answered: the served model and fingerprint of every call, stored and summarised.

The providers run against the loopback servers speaking OpenAI's and Anthropic's wire formats,
here made to report a dated snapshot as the model that answered and a fingerprint (or a version
header) the test controls.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, WriteExperiment, read_json
from helpers.experiments import panel_experiment
from helpers.fakes import FakeAnthropicServer, FakeOpenAIServer, ReplyFn
from helpers.fakes._http import Reply, Request
from helpers.judges import SECRET
from helpers.judges import openai_judge_like as judge_like

from fairpanel.agents import (
    CachingCaller,
    EndpointLimits,
    Message,
    MockBias,
    MockClient,
    ModelRegistry,
    ModelReply,
    ModelRequest,
    ModelSpec,
)
from fairpanel.judging import (
    STORE_FILE,
    STORE_SCHEMA_VERSION,
    Store,
    served_model_changes,
    served_models,
)

KEY_VARIABLE = "FAIRPANEL_TEST_KEY"
JUDGE = "openai-compatible/some-judge"
SNAPSHOT = "some-judge-2025-01-01"
NO_RETRIES = EndpointLimits(max_retries=0, max_rate_limit_wait_s=0.0)


class ServingOpenAIServer(FakeOpenAIServer):
    """Answers as the OpenAI fake does, but names ``served_model`` as the model that answered,
    gives the n-th reply (from 0) the fingerprint ``fingerprint_of(n)`` (None: no
    ``system_fingerprint`` at all) and adds ``extra_headers``; ``sent`` logs the fingerprints."""

    def __init__(
        self,
        reply: ReplyFn | None = None,
        *,
        served_model: str = SNAPSHOT,
        fingerprint_of: Callable[[int], str | None] = lambda _n: "fp_a",
        extra_headers: dict[str, str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(reply, **kwargs)
        self.served_model = served_model
        self.fingerprint_of = fingerprint_of
        self.extra_headers = extra_headers or {}
        self.sent: list[str | None] = []
        self._sent_lock = threading.Lock()

    def _success_reply(self, req: Request, text: str) -> Reply:
        reply = super()._success_reply(req, text)
        payload = json.loads(reply.body)
        with self._sent_lock:
            fingerprint = self.fingerprint_of(len(self.sent))
            self.sent.append(fingerprint)
        payload["model"] = self.served_model
        if fingerprint is None:
            del payload["system_fingerprint"]
        else:
            payload["system_fingerprint"] = fingerprint
        return Reply.json(reply.status, payload, {**reply.headers, **self.extra_headers})


class ServingAnthropicServer(FakeAnthropicServer):
    """The Anthropic fake naming a dated snapshot as the model that answered, with
    ``extra_headers`` on every reply."""

    def __init__(self, *, extra_headers: dict[str, str], **kwargs: Any) -> None:
        super().__init__(lambda _body: "Seven out of ten", **kwargs)
        self.extra_headers = extra_headers

    def _success_reply(self, req: Request, text: str) -> Reply:
        reply = super()._success_reply(req, text)
        payload = json.loads(reply.body)
        payload["model"] = "claude-haiku-4-5-20251001"
        return Reply.json(reply.status, payload, {**reply.headers, **self.extra_headers})


@pytest.fixture
def key_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_VARIABLE, SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)


def _request(model: str, text: str = "Judge the candidates.") -> ModelRequest:
    return ModelRequest(model=model, messages=(Message(role="user", content=text),))


async def _call_twice(spec: ModelSpec, store: Store) -> tuple[ModelReply, ModelReply]:
    """The same request twice through the caching caller: sent, then answered from ``store``."""
    caller = CachingCaller(store)
    async with ModelRegistry() as registry:
        client = await registry.client(spec)
        request = _request(client.model_id)
        return (
            await caller.call(client, request, "judge:first"),
            await caller.call(client, request, "judge:first"),
        )


@pytest.mark.usefixtures("key_in_env")
async def test_openai_served_model_and_fingerprint_are_stored_and_read_back(
    tmp_path: Path,
) -> None:
    path = tmp_path / STORE_FILE
    with ServingOpenAIServer(lambda _body: "Seven", api_key=SECRET) as server:
        spec = ModelSpec(
            id=JUDGE, base_url=server.base_url, api_key_env=KEY_VARIABLE, limits=NO_RETRIES
        )
        store = Store(path)
        try:
            sent, cached = await _call_twice(spec, store)
        finally:
            store.close()
    assert len(server.requests) == 1
    assert (sent.served_model, sent.fingerprint, sent.from_cache) == (SNAPSHOT, "fp_a", False)
    assert (cached.served_model, cached.fingerprint, cached.from_cache) == (SNAPSHOT, "fp_a", True)
    reopened = Store(path)
    try:
        stored = reopened.get_call(_request(JUDGE).key())
        served = served_models(reopened)
    finally:
        reopened.close()
    assert stored is not None and (stored.served_model, stored.fingerprint) == (SNAPSHOT, "fp_a")
    assert list(served) == [JUDGE]
    found = served[JUDGE]
    assert found.calls == 1
    assert [(v.value, v.calls) for v in found.names] == [(SNAPSHOT, 1)]
    assert [(v.value, v.calls) for v in found.fingerprints] == [("fp_a", 1)]
    assert served_model_changes(served) == []


@pytest.mark.usefixtures("key_in_env")
@pytest.mark.parametrize(
    ("fingerprint", "headers", "expected"),
    [
        ("fp_body", {"openai-version": "2020-10-01"}, "fp_body"),  # the body wins
        (None, {"openai-version": "2020-10-01"}, "openai-version: 2020-10-01"),
        (None, {"x-model-version": "7", "openai-version": "2020-10-01"}, "x-model-version: 7"),
        (None, {}, None),
    ],
)
async def test_openai_format_fingerprint_falls_back_to_a_version_header(
    fingerprint: str | None, headers: dict[str, str], expected: str | None
) -> None:
    with ServingOpenAIServer(
        lambda _body: "Seven",
        api_key=SECRET,
        fingerprint_of=lambda _n: fingerprint,
        extra_headers=headers,
    ) as server:
        spec = ModelSpec(
            id=JUDGE, base_url=server.base_url, api_key_env=KEY_VARIABLE, limits=NO_RETRIES
        )
        async with ModelRegistry() as registry:
            reply = await (await registry.client(spec)).complete(_request(JUDGE))
    assert (reply.served_model, reply.fingerprint) == (SNAPSHOT, expected)


@pytest.mark.usefixtures("key_in_env")
@pytest.mark.parametrize(
    ("headers", "expected"),
    [({}, None), ({"x-model-version": "2025-10-01"}, "x-model-version: 2025-10-01")],
)
async def test_anthropic_served_model_is_stored_and_a_version_header_is_its_fingerprint(
    tmp_path: Path, headers: dict[str, str], expected: str | None
) -> None:
    store = Store(tmp_path / STORE_FILE)
    try:
        with ServingAnthropicServer(extra_headers=headers, api_key=SECRET) as server:
            spec = ModelSpec(
                id="anthropic/claude-haiku-4-5", base_url=server.base_url, limits=NO_RETRIES
            )
            sent, cached = await _call_twice(spec, store)
        served = served_models(store)
    finally:
        store.close()
    assert sent.text == "Seven out of ten"
    for reply in (sent, cached):
        assert (reply.served_model, reply.fingerprint) == ("claude-haiku-4-5-20251001", expected)
    found = served["anthropic/claude-haiku-4-5"]
    assert [v.value for v in found.names] == ["claude-haiku-4-5-20251001"]
    assert found.unreported_fingerprints == (1 if expected is None else 0)


@pytest.mark.usefixtures("key_in_env")
def test_a_fingerprint_changing_mid_run_is_named_in_the_manifest(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    judge = {"id": JUDGE, "api_key_env": KEY_VARIABLE, "structured_output": True}
    with ServingOpenAIServer(
        judge_like, api_key=SECRET, fingerprint_of=lambda n: "fp_a" if n < 8 else "fp_b"
    ) as server:
        judge["base_url"] = server.base_url
        experiment = panel_experiment("served", judge, arms={"placebo": False, "same_label": False})
        path = write_experiment(experiment)
        out = tmp_path / "run"
        result = cli("run", str(path), "--out", str(out))
        assert result.exit_code == 0, result.output
        first = read_json(out / "manifest.json")
        # A second invocation answers every call from the store and still records them all.
        assert cli("run", str(path), "--out", str(out)).exit_code == 0
    calls = len(server.sent)
    counts = {fp: server.sent.count(fp) for fp in ("fp_a", "fp_b")}
    assert counts["fp_a"] == 8 and counts["fp_b"] == calls - 8 > 0
    manifest = read_json(out / "manifest.json")
    assert manifest["served"] == first["served"]
    served = manifest["served"][JUDGE]
    assert served["calls"] == calls
    assert [(n["value"], n["calls"]) for n in served["names"]] == [(SNAPSHOT, calls)]
    assert sorted((f["value"], f["calls"]) for f in served["fingerprints"]) == sorted(
        counts.items()
    )
    [sentence] = manifest["served_changes"]
    assert sentence.startswith(f"{JUDGE}: the server reported 2 fingerprints during the run (")
    assert f"fp_a {counts['fp_a']} calls" in sentence
    assert f"fp_b {counts['fp_b']} calls" in sentence


def _put(store: Store, text: str, served: str | None, fingerprint: str | None) -> None:
    request = _request("mock/judge", text)
    reply = ModelReply(text="ok", served_model=served, fingerprint=fingerprint)
    store.put_call(request.key(), request, reply, "judge:first")


def test_served_values_keep_first_seen_order_and_unreported_calls_are_no_change(
    tmp_path: Path,
) -> None:
    store = Store(tmp_path / STORE_FILE)
    try:
        _put(store, "one", "judge-v2", "fp_z")
        _put(store, "two", None, None)
        _put(store, "three", "judge-v1", "fp_z")
        _put(store, "four", "judge-v2", "fp_z")
        served = served_models(store)
    finally:
        store.close()
    found = served["mock/judge"]
    assert found.calls == 4
    assert [(v.value, v.calls) for v in found.names] == [("judge-v2", 2), ("judge-v1", 1)]
    assert [(v.value, v.calls) for v in found.fingerprints] == [("fp_z", 3)]
    assert (found.unreported_names, found.unreported_fingerprints) == (1, 1)
    assert found.names[0].first_seen <= found.names[0].last_seen
    assert served_model_changes(served) == [
        "mock/judge: the server reported 2 model names during the run "
        "(judge-v2 2 calls, judge-v1 1 call)"
    ]


_VERSION_2_TABLES = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE calls (
    key TEXT PRIMARY KEY, model TEXT NOT NULL, endpoint TEXT NOT NULL, role TEXT NOT NULL,
    request TEXT NOT NULL, reply TEXT NOT NULL, finish_reason TEXT,
    prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL,
    cached_tokens INTEGER NOT NULL, latency_s REAL NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE study_items (
    key TEXT PRIMARY KEY, study TEXT NOT NULL, spec TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')), error TEXT, result TEXT,
    call_keys TEXT NOT NULL, created_at TEXT NOT NULL
);
INSERT INTO meta VALUES ('schema_version', '2');
"""


def test_a_version_2_store_migrates_in_place_and_reads_none(tmp_path: Path) -> None:
    """A calls table as fairpanel wrote it before it recorded what the server ran."""
    path = tmp_path / STORE_FILE
    old = _request("openai/gpt-4o-mini", "before the upgrade")
    with sqlite3.connect(path) as db:
        db.executescript(_VERSION_2_TABLES)
        db.execute(
            "INSERT INTO calls VALUES (?, ?, '', 'judge:first', ?, 'Seven', 'stop', 3, 1, 0, "
            "0.5, '2024-01-01T00:00:00+00:00')",
            (old.key(), old.model, old.model_dump_json()),
        )
    db.close()
    store = Store(path)
    try:
        stored = store.get_call(old.key())
        assert stored is not None and stored.text == "Seven" and stored.usage.prompt_tokens == 3
        assert (stored.served_model, stored.fingerprint, stored.replica) == (None, None, None)
        new = _request("openai/gpt-4o-mini", "after the upgrade")
        reply = ModelReply(text="Eight", served_model="gpt-4o-mini-2024-07-18", fingerprint="fp_a")
        store.put_call(new.key(), new, reply, "judge:first")
        fresh = store.get_call(new.key())
        served = served_models(store)
    finally:
        store.close()
    assert fresh is not None and (fresh.served_model, fresh.fingerprint) == (
        "gpt-4o-mini-2024-07-18",
        "fp_a",
    )
    found = served["openai/gpt-4o-mini"]
    assert (found.calls, found.unreported_names, found.unreported_fingerprints) == (2, 1, 1)
    assert served_model_changes(served) == []  # a call stored before the upgrade is no change
    with sqlite3.connect(path) as db:
        version = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        columns = [row[1] for row in db.execute("PRAGMA table_info(calls)")]
    db.close()
    assert version == (str(STORE_SCHEMA_VERSION),) and STORE_SCHEMA_VERSION == 7
    assert columns[-4:] == ["served_model", "fingerprint", "batch_id", "replica"]


async def test_the_mock_reports_its_id_and_a_fingerprint_of_its_planted_bias() -> None:
    plain = MockClient(ModelSpec(id="mock/plain"))
    twin = MockClient(ModelSpec(id="mock/twin", mock=MockBias()))
    biased = MockClient(ModelSpec(id="mock/biased", mock=MockBias(first_position_bias=0.3)))
    replies = [await client.complete(_request("x")) for client in (plain, twin, biased)]
    assert [r.served_model for r in replies] == ["mock/plain", "mock/twin", "mock/biased"]
    assert all(r.fingerprint and r.fingerprint.startswith("mock-") for r in replies)
    assert replies[0].fingerprint == replies[1].fingerprint != replies[2].fingerprint
