"""The providers' batch clients against loopback fakes of the OpenAI Batch API and Anthropic
Message Batches: upload and create, status until ended, results read back per item,
including per-item errors, expiry, cancellation and a batch that fails as a whole, and a
batch whose id was never recorded found again by what was stored before sending."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from helpers.fakes import BatchPlan, FakeAnthropicBatchServer, FakeOpenAIBatchServer

from fairpanel.agents import (
    BatchApi,
    BatchIntent,
    FindVerdict,
    Message,
    ModelCallError,
    ModelRegistry,
    ModelRequest,
    ModelSpec,
    Sampling,
)

DAY = timedelta(days=1)
SCHEMA = {
    "name": "verdict",
    "schema": {
        "type": "object",
        "properties": {"score": {"type": "integer"}},
        "required": ["score"],
    },
}


def _request(index: int, *, schema: bool = False) -> ModelRequest:
    return ModelRequest(
        model="x",
        endpoint="e",
        messages=(
            Message(role="system", content="You judge answers."),
            Message(role="user", content=f"Rate answer number {index}."),
        ),
        sampling=Sampling(temperature=0.0, max_tokens=50),
        response_schema=SCHEMA if schema else None,
    )


def _reply(body: dict[str, Any]) -> str:
    """The score is the number in the last message, so every item's answer is its own."""
    messages = body["messages"]
    last = messages[-1]["content"]
    text = last if isinstance(last, str) else last[0]["text"]
    return json.dumps({"score": int(text.rsplit(" ", 1)[1].rstrip("."))})


@pytest.fixture(params=["openai", "anthropic"])
def server(
    request: pytest.FixtureRequest,
) -> Iterator[FakeOpenAIBatchServer | FakeAnthropicBatchServer]:
    kind = FakeOpenAIBatchServer if request.param == "openai" else FakeAnthropicBatchServer
    with kind(_reply) as fake:
        yield fake


@pytest.fixture
async def api(
    server: FakeOpenAIBatchServer | FakeAnthropicBatchServer, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[BatchApi]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-batch")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-batch")
    model = "openai/gpt-4o-mini" if isinstance(server, FakeOpenAIBatchServer) else "anthropic/c"
    async with ModelRegistry() as registry:
        yield registry.batch_api(ModelSpec(id=model, base_url=server.base_url, execution="batch"))


async def _run(api: BatchApi, requests: dict[str, ModelRequest]) -> tuple[list[str], Any]:
    batch_id = await api.submit([api.wire_line(k, r) for k, r in requests.items()], "local-1")
    states = []
    while True:
        status = await api.status(batch_id)
        states.append(status.state)
        if status.ended:
            return states, (status, await api.results(batch_id, requests))


async def test_a_completed_batch_answers_every_item_under_its_key(api: BatchApi) -> None:
    requests = {r.key(): r for r in (_request(i, schema=True) for i in range(3))}
    states, (status, results) = await _run(api, requests)
    assert states[-1] in ("completed", "ended") and len(states) == 1
    assert set(results) == set(requests)
    for index, key in enumerate(requests):
        reply = results[key].reply
        assert reply is not None and json.loads(reply.text) == {"score": index}
        assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0
    assert status.failed is None


async def test_status_stays_in_progress_until_the_plan_ends(
    api: BatchApi, server: FakeOpenAIBatchServer | FakeAnthropicBatchServer
) -> None:
    server.book.plans.append(BatchPlan(polls=2))
    states, _ = await _run(api, {r.key(): r for r in [_request(1)]})
    assert states[:2] == ["in_progress", "in_progress"] and len(states) == 3


async def test_per_item_errors_come_back_beside_the_answers(
    api: BatchApi, server: FakeOpenAIBatchServer | FakeAnthropicBatchServer
) -> None:
    requests = {r.key(): r for r in (_request(i) for i in range(3))}
    bad = list(requests)[1]
    server.book.plans.append(BatchPlan(item_error=lambda cid: "boom" if cid == bad else None))
    _, (_, results) = await _run(api, requests)
    assert results[bad].reply is None and "boom" in str(results[bad].error)
    assert results[bad].retryable
    assert all(results[k].reply is not None for k in requests if k != bad)


@pytest.mark.parametrize("end", ["expired", "cancelled"])
async def test_an_expired_or_cancelled_batch_returns_what_it_finished(
    api: BatchApi, server: FakeOpenAIBatchServer | FakeAnthropicBatchServer, end: str
) -> None:
    requests = {r.key(): r for r in (_request(i) for i in range(3))}
    server.book.plans.append(BatchPlan(polls=1, end=end, processed=1))  # type: ignore[arg-type]
    _, (_, results) = await _run(api, requests)
    first, *rest = requests
    assert results[first].reply is not None
    for key in rest:
        outcome = results.get(key)
        assert outcome is None or (outcome.reply is None and outcome.error), outcome
    word = "expired" if end == "expired" else "cancel"
    assert any(word in str(results[k].error) for k in rest if k in results)


async def test_a_batch_failing_as_a_whole_answers_nothing(
    api: BatchApi, server: FakeOpenAIBatchServer | FakeAnthropicBatchServer
) -> None:
    requests = {r.key(): r for r in [_request(1)]}
    server.book.plans.append(BatchPlan(end="failed"))
    if isinstance(server, FakeAnthropicBatchServer):  # refused at creation, not retryable
        with pytest.raises(ModelCallError) as refused:
            await _run(api, requests)
        assert not refused.value.retryable and refused.value.status == 400
        return
    _, (status, results) = await _run(api, requests)
    assert status.state == "failed" and status.failed and results == {}


async def test_lines_are_openai_batch_jsonl_keyed_by_the_request_key(api: BatchApi) -> None:
    request = _request(4, schema=True)
    line = json.loads(api.openai_line(request.key(), request))
    assert line["custom_id"] == request.key() and len(request.key()) == 64
    assert (line["method"], line["url"]) == ("POST", "/v1/chat/completions")
    assert line["body"]["messages"][-1] == {"role": "user", "content": "Rate answer number 4."}
    assert line["body"]["temperature"] == 0.0


async def test_a_batch_whose_id_was_never_recorded_is_found_by_its_intent(
    api: BatchApi, server: FakeOpenAIBatchServer | FakeAnthropicBatchServer
) -> None:
    request, other = _request(1), _request(2)
    now = datetime.now(UTC)
    intent = BatchIntent.of("run-local-7", frozenset({request.key()}), now)
    batch_id = await api.submit([api.wire_line(request.key(), request)], "run-local-7")
    running = await api.find(intent)
    if isinstance(server, FakeOpenAIBatchServer):  # its metadata names it at once
        assert running == FindVerdict(found=batch_id)
    else:  # same count, in the window: may be it, not confirmed until its results exist
        assert running == FindVerdict(waiting=(batch_id,))
    assert (await api.status(batch_id)).ended
    assert await api.find(intent) == FindVerdict(found=batch_id)
    elsewhere = BatchIntent.of("run-local-8", frozenset({other.key()}), now)
    assert (await api.find(elsewhere)).none  # other custom_ids (or metadata): not it
    assert (await api.find(intent.model_copy(update={"known": {batch_id}}))).none
    assert (await api.find(BatchIntent.of("run-local-7", intent.keys, now - DAY))).none
    two = BatchIntent.of("run-local-7", frozenset({request.key(), other.key()}), now)
    assert (await api.find(two)).none  # another count


def test_batch_execution_is_refused_for_providers_without_a_batch_api() -> None:
    with pytest.raises(ValueError, match="no batch API"):
        ModelSpec(id="mock/judge", execution="batch")
