"""Batch mode's dispatcher against the loopback batch APIs with the run's real store: rounds
go out together, failed items are retried up to the bound, batches are stored before anyone
waits on them, and a run killed mid-poll resumes polling without sending anything again."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.fakes import BatchPlan, FakeAnthropicBatchServer, FakeOpenAIBatchServer

from fairpanel.agents import (
    BatchCollector,
    BatchDispatcher,
    BatchSettings,
    CachingCaller,
    Message,
    ModelCallError,
    ModelRegistry,
    ModelReply,
    ModelRequest,
    ModelSpec,
)
from fairpanel.judging.store import Store

Fake = FakeOpenAIBatchServer | FakeAnthropicBatchServer
FAST = BatchSettings(poll_s=0.01, max_poll_s=0.02, flush_s=0.05, max_item_retries=1)


def _echo(body: dict[str, Any]) -> str:
    last = body["messages"][-1]["content"]
    return "echo: " + (last if isinstance(last, str) else last[0]["text"])


@pytest.fixture(params=["openai", "anthropic"])
def server(request: pytest.FixtureRequest) -> Iterator[Fake]:
    kind = FakeOpenAIBatchServer if request.param == "openai" else FakeAnthropicBatchServer
    with kind(_echo) as fake:
        yield fake


def _spec(server: Fake) -> ModelSpec:
    model = "openai/gpt-4o-mini" if isinstance(server, FakeOpenAIBatchServer) else "anthropic/c"
    return ModelSpec(id=model, base_url=server.base_url, execution="batch")


class Run:
    """One invocation: a store, a registry, a dispatcher and the caller trials use."""

    def __init__(self, registry: ModelRegistry, store: Store, server: Fake, files: Path) -> None:
        spec = _spec(server)
        self.store = store
        self.api = registry.batch_api(spec)
        self.dispatcher = BatchDispatcher(
            self.api,
            store.batches,
            store,
            scope=spec.id,
            settings=FAST,
            files=files,
        )
        self.dispatcher.resume()
        self.client = BatchCollector(self.dispatcher, model_id=spec.id, endpoint="e")
        self.caller = CachingCaller(store)

    async def ask(self, text: str) -> ModelReply:
        request = ModelRequest(
            model=self.client.model_id,
            endpoint="e",
            messages=(Message(role="user", content=text),),
        )
        return await self.caller.call(self.client, request, "judge")


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-batch")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-batch")


@pytest.fixture
async def run(server: Fake, tmp_path: Path) -> AsyncIterator[Run]:
    store = Store(tmp_path / "fairpanel.sqlite")
    async with ModelRegistry() as registry:
        current = Run(registry, store, server, tmp_path / "batches")
        yield current
        await current.dispatcher.aclose()
    store.close()


async def _trial(run: Run, index: int, rounds: int = 3) -> list[str]:
    """A debate's shape: each round's request waits for the previous answer."""
    said = []
    for round_index in range(rounds):
        reply = await run.ask(f"trial {index} round {round_index}")
        said.append(reply.text)
    return said


async def test_each_round_of_every_trial_goes_out_as_one_batch(run: Run, server: Fake) -> None:
    said = await asyncio.gather(*(_trial(run, i) for i in range(5)))
    assert said[2] == [f"echo: trial 2 round {r}" for r in range(3)]
    assert len(server.book.created) == 3
    for round_index, batch_id in enumerate(server.book.created):
        texts = [_echo(body) for body in server.book.batches[batch_id].requests.values()]
        assert sorted(texts) == sorted(f"echo: trial {i} round {round_index}" for i in range(5))
    with sqlite3.connect(run.store.path) as db:
        rows = db.execute("SELECT role, batch_id FROM calls").fetchall()
        states = db.execute("SELECT state, closed FROM batches").fetchall()
    assert len(rows) == 15 and {role for role, _ in rows} == {"judge"}
    assert {batch for _, batch in rows} == set(server.book.created)
    assert len(states) == 3 and all(closed == 1 for _, closed in states)
    files = sorted((run.store.path.parent / "batches").glob("*.jsonl"))
    assert len(files) == 3 and all(len(f.read_text().splitlines()) == 5 for f in files)


async def test_a_round_larger_than_the_provider_takes_is_split(run: Run, server: Fake) -> None:
    run.api.max_requests = 2  # type: ignore[misc]
    await asyncio.gather(*(run.ask(f"item {i}") for i in range(5)))
    assert sorted(len(server.book.batches[b].requests) for b in server.book.created) == [1, 2, 2]
    server.book.created.clear()
    run.api.max_requests = 100  # type: ignore[misc]
    line = len(run.api.wire_line("k" * 64, _request_of(run, "item 0")))
    run.api.max_bytes = 2 * line + 10  # type: ignore[misc]
    await asyncio.gather(*(run.ask(f"item {i}") for i in range(5, 10)))
    assert sorted(len(server.book.batches[b].requests) for b in server.book.created) == [1, 2, 2]


def _request_of(run: Run, text: str) -> ModelRequest:
    return ModelRequest(
        model=run.client.model_id, endpoint="e", messages=(Message(role="user", content=text),)
    )


async def test_a_stored_answer_is_never_batched(run: Run, server: Fake) -> None:
    first = await run.ask("once")
    again = await run.ask("once")
    assert again.text == first.text and again.from_cache
    assert len(server.book.created) == 1


async def test_failed_items_go_into_the_next_batch_up_to_the_bound(run: Run, server: Fake) -> None:
    server.book.plans += [
        BatchPlan(item_error=lambda cid: "flaky"),
        BatchPlan(item_error=lambda cid: "flaky"),
    ]
    with pytest.raises(ModelCallError, match=r"failed 2x: .*flaky"):
        await run.ask("doomed")
    assert len(server.book.created) == 2  # the first try and one retry (max_item_retries=1)
    server.book.plans.append(BatchPlan(polls=1, end="expired", processed=1))
    answers = await asyncio.gather(run.ask("a"), run.ask("b"))
    assert [a.text for a in answers] == ["echo: a", "echo: b"]
    expired_batch, retry_batch = server.book.created[2:]
    assert len(server.book.batches[expired_batch].requests) == 2
    assert len(server.book.batches[retry_batch].requests) == 1  # only what did not run


async def test_killed_mid_poll_resumes_polling_and_sends_nothing_again(
    server: Fake, tmp_path: Path
) -> None:
    server.book.plans.append(BatchPlan(polls=10_000))  # in progress until the plan changes
    path = tmp_path / "fairpanel.sqlite"
    store = Store(path)
    async with ModelRegistry() as registry:
        first = Run(registry, store, server, tmp_path / "batches")
        trials = asyncio.gather(*(_trial(first, i, rounds=2) for i in range(3)))
        for _ in range(500):  # until accepted and polled a few times
            if len(first.dispatcher.stats.states) >= 3:
                break
            await asyncio.sleep(0.01)
        trials.cancel()  # the process dies: nothing is cleaned up
        await first.dispatcher.aclose()
    store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM calls").fetchone()[0] == 0
        assert db.execute("SELECT state, closed FROM batches").fetchall() == [("in_progress", 0)]
    (only,) = server.book.created
    server.book.batches[only].plan = BatchPlan(polls=0)  # it finishes while nobody polls

    store = Store(path)
    async with ModelRegistry() as registry:
        second = Run(registry, store, server, tmp_path / "batches")
        said = await asyncio.gather(*(_trial(second, i, rounds=2) for i in range(3)))
        await second.dispatcher.aclose()
    store.close()
    assert said[1] == ["echo: trial 1 round 0", "echo: trial 1 round 1"]
    assert second.dispatcher.stats.resumed == 1
    first_round = server.book.batches[only].requests
    assert len(first_round) == 3 and len(server.book.created) == 2  # round 2 only, once
    assert len(server.book.submitted_items) == len(set(server.book.submitted_items)) == 6


async def test_a_batch_accepted_but_not_recorded_is_found_not_sent_again(
    server: Fake, tmp_path: Path
) -> None:
    """Killed between the provider's acceptance and the store's write of its id."""
    store = Store(tmp_path / "fairpanel.sqlite")
    async with ModelRegistry() as registry:
        first = Run(registry, store, server, tmp_path / "b")
        request = ModelRequest(
            model=first.client.model_id, endpoint="e", messages=(Message(role="user", content="x"),)
        )
        items = {request.key(): (request, "judge")}
        store.batches.record_batch("local-1", first.client.model_id, items)
        api = registry.batch_api(_spec(server))
        await api.submit([api.wire_line(request.key(), request)], "local-1")
        second = Run(registry, store, server, tmp_path / "b")
        reply = await second.ask("x")
        await second.dispatcher.aclose()
        await first.dispatcher.aclose()
    store.close()
    assert reply.text == "echo: x"
    assert len(server.book.created) == 1
