"""A ``fairpanel run`` killed at the worst moment of batch mode: the provider has accepted a
batch, the store has not yet written its id. The fake server registers the batch and SIGKILLs
the run before its reply leaves. Run again, the run must find that batch (OpenAI by its
metadata, Anthropic by its size, time and results' ``custom_id``s), collect it, and send
none of its items again: afterwards every batch the provider holds is in the store under its
id, every request key was submitted exactly once, and the stored trials and turns are those
of an uninterrupted run."""

from __future__ import annotations

import os
import signal
import sqlite3
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import pytest
from helpers.fakes import FakeAnthropicBatchServer, FakeOpenAIBatchServer
from helpers.fakes._batch_core import FakeBatch
from helpers.judges import SECRET, anthropic_judge_like, openai_judge_like
from helpers.run_process import start_run
from test_batch_run import _experiment

pytestmark = pytest.mark.timeout(300)

KILL_AT = 3
"""The third batch: every trial's first judge (the two response steps came before)."""

Fake = FakeOpenAIBatchServer | FakeAnthropicBatchServer


def _server(provider: str) -> Fake:
    if provider == "openai":
        return FakeOpenAIBatchServer(openai_judge_like, api_key=SECRET)
    return FakeAnthropicBatchServer(anthropic_judge_like, api_key=SECRET)


def _config(provider: str, base_url: str, path: Path) -> Path:
    text = _experiment("batch", base_url)
    if provider == "anthropic":
        text = text.replace("openai-compatible/judge", "anthropic/judge")
    path.write_text(text, encoding="utf-8")
    return path


def _start(config: Path, out: Path, log: Path) -> BaseProcess:
    argv = ["run", str(config), "--out", str(out), "--no-report"]
    return start_run(argv, {"FAIRPANEL_TEST_KEY": SECRET}, log)


def _finish(process: BaseProcess, log: Path) -> None:
    process.join(120)
    assert process.exitcode == 0, log.read_text(encoding="utf-8", errors="replace")[-3000:]


def _rows(db_path: Path, query: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db_path) as db:
        return db.execute(query).fetchall()


def _outcome(db_path: Path) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    trials = _rows(db_path, "SELECT key, status, consensus FROM trials ORDER BY key")
    turns = _rows(
        db_path,
        "SELECT trial_key, round, judge, raw_text FROM turns "
        "ORDER BY trial_key, round, judge, raw_text",
    )
    return trials, turns


def _killer(process: list[BaseProcess]) -> Callable[[FakeBatch], None]:
    """The fake's hook: at the ``KILL_AT``-th creation, SIGKILL the run before the creation's
    reply is sent. Linux starts a fatal signal's group exit before kill(2) returns, so the run
    executes nothing more (it never reads the reply)."""
    created = 0

    def on_create(_: FakeBatch) -> None:
        nonlocal created
        created += 1
        if created == KILL_AT:
            assert process[0].pid is not None
            os.kill(process[0].pid, signal.SIGKILL)

    return on_create


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_killed_between_acceptance_and_record_nothing_is_lost_or_paid_twice(
    tmp_path: Path, provider: str
) -> None:
    log = tmp_path / "runs.log"
    out = tmp_path / "run"
    db_path = out / "fairpanel.sqlite"
    with _server(provider) as server:
        config = _config(provider, server.base_url, tmp_path / "experiment.yaml")
        process: list[BaseProcess] = []
        server.book.on_create = _killer(process)
        process.append(_start(config, out, log))
        process[0].join(120)
        assert process[0].exitcode == -signal.SIGKILL, log.read_text(errors="replace")[-3000:]
        server.book.on_create = None
        assert len(server.book.created) == KILL_AT
        accepted = server.book.created[-1]
        recorded = {id_ for (id_,) in _rows(db_path, "SELECT provider_batch_id FROM batches")}
        assert accepted not in recorded and None in recorded  # stored before, id never written

        _finish(_start(config, out, log), log)

        held = set(server.book.batches)
        known = _rows(db_path, "SELECT provider_batch_id FROM batches")
        assert held == {batch_id for (batch_id,) in known}  # no batch unknown to the store
        items = server.book.submitted_items
        assert len(items) == len(set(items))  # no item sent twice
        (state,) = _rows(
            db_path, f"SELECT state FROM batches WHERE provider_batch_id = '{accepted}'"
        )
        assert state[0] in {"ended", "completed"}
        (calls,) = _rows(db_path, "SELECT COUNT(*) FROM calls")
        assert calls == (len(items),)

        _finish(_start(config, tmp_path / "reference", log), log)  # same endpoint, same keys
    reference = _outcome(tmp_path / "reference" / "fairpanel.sqlite")
    assert reference[0] and reference[1]
    assert _outcome(db_path) == reference
