"""A batch the provider accepted but whose id the store never got (the run died in between),
looked for by a resumed dispatcher with the run's real store: only batches created in the
window it can have been accepted in are read, a batch that might be it is waited for, one is
taken only once its ``custom_id``s (Anthropic) or its metadata (OpenAI) say it is ours, and
the items are sent again only once no batch can be it."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from helpers.fakes import BatchPlan, FakeAnthropicBatchServer, FakeOpenAIBatchServer
from helpers.fakes._batch_core import FakeBatch
from test_batch_dispatch import Fake, Run, _echo, _spec

from fairpanel.agents import BatchApi, Message, ModelRegistry, ModelRequest, _batch_api, _batching
from fairpanel.agents.providers import _anthropic_batch, _openai_batch
from fairpanel.judging.store import Store

LOCAL_ID = "local-1"
TWO_DAYS_S = 2 * 86400.0


@pytest.fixture(params=["openai", "anthropic"])
def server(request: pytest.FixtureRequest) -> Iterator[Fake]:
    kind = FakeOpenAIBatchServer if request.param == "openai" else FakeAnthropicBatchServer
    with kind(_echo) as fake:
        yield fake


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-batch")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-batch")


class Lost:
    """A store holding one batch recorded before sending and never given its provider id."""

    def __init__(self, registry: ModelRegistry, store: Store, server: Fake, tmp: Path) -> None:
        self.registry, self.store, self.server, self.tmp = registry, store, server, tmp
        self.api: BatchApi = registry.batch_api(_spec(server))
        self.request = self.of("x")
        store.batches.record_batch(LOCAL_ID, _spec(server).id, {self.key: (self.request, "j")})

    @property
    def key(self) -> str:
        return self.request.key()

    def of(self, text: str) -> ModelRequest:
        model = _spec(self.server).id
        return ModelRequest(
            model=model, endpoint="e", messages=(Message(role="user", content=text),)
        )

    async def submit(self, request: ModelRequest, local_id: str) -> str:
        """A batch accepted by the provider (as the killed run's submission was)."""
        return await self.api.submit([self.api.wire_line(request.key(), request)], local_id)

    async def resume(self) -> tuple[Run, str]:
        """A new run: resumes the open batch and asks for the lost item again."""
        run = Run(self.registry, self.store, self.server, self.tmp / "batches")
        reply = await run.ask("x")
        await run.dispatcher.aclose()
        return run, reply.text

    def batch_row(self) -> tuple[str | None, str, int]:
        with sqlite3.connect(self.store.path) as db:
            return db.execute(
                "SELECT provider_batch_id, state, closed FROM batches WHERE id = ?", (LOCAL_ID,)
            ).fetchone()


@pytest.fixture
async def lost(server: Fake, tmp_path: Path) -> AsyncIterator[Lost]:
    store = Store(tmp_path / "fairpanel.sqlite")
    async with ModelRegistry() as registry:
        yield Lost(registry, store, server, tmp_path)
    store.close()


async def test_an_unrelated_batch_of_the_same_size_is_not_taken(lost: Lost, server: Fake) -> None:
    """Someone else's batch, created in the window with as many requests and still running:
    Message Batches can only rule it out by its results, so the items wait for it to end and
    are sent again only then; the Batch API rules it out at once by its metadata."""
    server.book.plans.append(BatchPlan(polls=4))
    unrelated = await lost.submit(lost.of("someone else's"), "another-run")
    ended_when_sent_again: list[bool] = []
    server.book.on_create = lambda _: ended_when_sent_again.append(
        server.book.batches[unrelated].ended
    )
    run, text = await lost.resume()
    assert text == "echo: x"
    unrelated_first, sent_again = server.book.created
    assert unrelated_first == unrelated
    assert list(server.book.batches[sent_again].requests) == [lost.key]
    assert lost.batch_row() == (None, "lost", 1)
    with sqlite3.connect(lost.store.path) as db:
        assert db.execute("SELECT batch_id FROM calls").fetchall() == [(sent_again,)]
    if isinstance(server, FakeAnthropicBatchServer):
        assert ended_when_sent_again == [True]
        assert "unconfirmed" in run.dispatcher.stats.states
    else:
        assert ended_when_sent_again == [False]
        assert "unconfirmed" not in run.dispatcher.stats.states


async def test_our_batch_still_running_is_waited_for_not_sent_again(
    lost: Lost, server: Fake
) -> None:
    server.book.plans.append(BatchPlan(polls=5))
    ours = await lost.submit(lost.request, LOCAL_ID)
    run, text = await lost.resume()
    assert text == "echo: x"
    assert server.book.created == [ours]  # nothing sent again
    assert lost.batch_row() == (ours, "ended" if ours.startswith("msgbatch") else "completed", 1)
    assert run.dispatcher.stats.submitted == 0
    if isinstance(server, FakeAnthropicBatchServer):
        assert "unconfirmed" in run.dispatcher.stats.states


async def test_two_candidates_each_confirmed_and_ours_taken(lost: Lost, server: Fake) -> None:
    """Ours and an unrelated one of the same size, both ended: only ours is taken."""
    ours = await lost.submit(lost.request, LOCAL_ID)
    unrelated = await lost.submit(lost.of("unrelated"), "another-run")
    for batch_id in (ours, unrelated):
        assert (await lost.api.status(batch_id)).ended
    _, text = await lost.resume()
    assert text == "echo: x" and server.book.created == [ours, unrelated]
    assert lost.batch_row()[0] == ours


def _history(server: Fake, count: int, created_at: float, size: int) -> None:
    for index in range(count):
        requests = {f"old-{index}-{n}": {"messages": []} for n in range(size)}
        batch = FakeBatch(f"hist_{created_at:.0f}_{index:05d}", requests, BatchPlan(), created_at)
        server.book.history(batch)


async def test_paging_stops_at_the_window_start(lost: Lost, server: Fake) -> None:
    """1,000 batches older than the window and 250 in it (of another size): the lost batch
    was never accepted, so the client must read the window to the end to say so, and then
    stop; the whole history would be 13 pages of 100."""
    _history(server, 1000, time.time() - TWO_DAYS_S, size=1)
    _history(server, 250, time.time() - 60, size=2)
    _, text = await lost.resume()
    assert text == "echo: x"
    assert server.book.list_pages == 3  # 100 + 100 + (50 in the window, then an old one)
    assert lost.batch_row() == (None, "lost", 1)
    assert len(server.book.created) == 1  # sent again, once


@pytest.mark.timeout(60)
async def test_a_submission_cut_off_at_its_deadline_is_looked_for_not_sent_again(
    server: Fake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The provider accepts a batch but answers after the client gave up: the dispatcher
    waits the clock-skew margin, then finds that batch and takes its answers."""
    for module in (_batch_api, _anthropic_batch, _openai_batch):
        monkeypatch.setattr(module, "SUBMIT_DEADLINE_S", 0.3)
    for module in (_batch_api, _batching):
        monkeypatch.setattr(module, "CLOCK_SKEW_S", 1.0)
    server.book.on_create = lambda _: time.sleep(1.0)  # registered, the reply held back
    store = Store(tmp_path / "fairpanel.sqlite")
    async with ModelRegistry() as registry:
        run = Run(registry, store, server, tmp_path / "batches")
        reply = await run.ask("late")
        await run.dispatcher.aclose()
    assert reply.text == "echo: late"
    (only,) = server.book.created  # accepted once, never sent again
    with sqlite3.connect(store.path) as db:
        assert db.execute("SELECT provider_batch_id FROM batches").fetchall() == [(only,)]
    assert run.dispatcher.stats.submitted == 0  # no reply was ever received for it
    store.close()


@pytest.mark.timeout(60)
async def test_a_creation_whose_reply_is_lost_is_looked_for_not_sent_again(
    server: Fake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The provider accepts a batch and the connection drops before its reply: the SDK must
    not retry the creation, and the dispatcher finds that batch instead of sending it again."""
    for module in (_batch_api, _batching):
        monkeypatch.setattr(module, "CLOCK_SKEW_S", 1.0)
    server.book.drop_create_replies = 1
    store = Store(tmp_path / "fairpanel.sqlite")
    async with ModelRegistry() as registry:
        run = Run(registry, store, server, tmp_path / "batches")
        reply = await run.ask("dropped")
        await run.dispatcher.aclose()
    assert reply.text == "echo: dropped"
    (only,) = server.book.created  # accepted once, never created again
    with sqlite3.connect(store.path) as db:
        assert db.execute("SELECT provider_batch_id FROM batches").fetchall() == [(only,)]
    store.close()
