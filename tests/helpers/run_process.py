"""Start ``fairpanel run`` in a real child process that a test can SIGKILL, cheaply.

A fresh interpreter spends ~5 s importing fairpanel's dependencies, which would make a loop
of twenty kills take minutes. Children are forked from a multiprocessing fork server that
imported fairpanel once, so each starts in milliseconds, and runs the same CLI entry point
(``fairpanel.cli.app``) as the installed command. The fork server has no other threads,
so forking it is safe even while the test process runs fake servers in threads.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Mapping, Sequence
from multiprocessing.process import BaseProcess
from pathlib import Path

_CONTEXT = multiprocessing.get_context("forkserver")
# The package faces load their modules on first use, so the modules a run uses are named: the
# command, the runner (engine, AutoGen, the clients) and the report written after it.
_CONTEXT.set_forkserver_preload(
    [
        "fairpanel.cli._run",
        "fairpanel.run_folder._run",
        "fairpanel.run_folder._report",
        "fairpanel.judging.store._frames",
        "run_process",
    ]
)


def _run_cli(argv: Sequence[str], env: Mapping[str, str], log_path: str) -> None:
    os.environ.update(env)
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    from fairpanel.cli import app

    app(args=list(argv), prog_name="fairpanel")  # exits with the command's exit code
    sys.exit(0)


def start_run(argv: Sequence[str], env: Mapping[str, str], log_path: Path) -> BaseProcess:
    """Start ``fairpanel <argv>`` in a child process; its stdout and stderr go to ``log_path``."""
    process = _CONTEXT.Process(target=_run_cli, args=(list(argv), dict(env), str(log_path)))
    process.start()
    return process


def _hammer_store(db_path: str, turns_per_trial: int) -> None:
    """Write trials (each with many turns) and calls into a store as fast as possible, forever."""
    from fairpanel.agents import Message, ModelReply, ModelRequest, Usage
    from fairpanel.judging import Store, TrialRecord, TurnRecord

    store = Store(Path(db_path))
    index = len(store.finished_keys())
    while True:
        index += 1
        turns = [
            TurnRecord(
                round=turn,
                round_kind="first",
                judge=f"judge-{turn}",
                speaker_index=0,
                judge_model="mock/judge",
                raw_text=f"answer {index}.{turn} " * 200,
                parsed={"reason": "r", "creativity": 5},
                parse_error=None,
                attempts=1,
                usage=Usage(prompt_tokens=10, completion_tokens=5),
                latency_s=0.0,
                call_keys=[f"{index}.{turn}"],
            )
            for turn in range(turns_per_trial)
        ]
        record = TrialRecord(
            key=f"trial-{index:08d}",
            protocol="single",
            spec={"index": index},
            status="ok",
            error=None,
            consensus={"scores": {}},
            turns=turns,
        )
        store.put_trial(record)
        request = ModelRequest(
            model="mock/judge", messages=(Message(role="user", content=str(index)),)
        )
        store.put_call(request.key(), request, ModelReply(text="x" * 4000), "judge:first")


def start_store_hammer(db_path: Path, turns_per_trial: int) -> BaseProcess:
    """Start a child that writes into the store at ``db_path`` until it is killed."""
    process = _CONTEXT.Process(target=_hammer_store, args=(str(db_path), turns_per_trial))
    process.start()
    return process
