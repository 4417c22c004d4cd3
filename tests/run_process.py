"""Start ``fairpanel run`` in a real child process that a test can SIGKILL, cheaply.

A fresh interpreter spends ~5 s importing fairpanel's dependencies, which would make a loop
of twenty kills take minutes. Children are forked from a multiprocessing fork server that
imported fairpanel once, so each starts in milliseconds, and runs the same CLI entry point
(``fairpanel.judging.app``) as the installed command. The fork server has no other threads,
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
_CONTEXT.set_forkserver_preload(["fairpanel.judging", "run_process"])


def _run_cli(argv: Sequence[str], env: Mapping[str, str], log_path: str) -> None:
    os.environ.update(env)
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    from fairpanel.judging import app

    app(args=list(argv), prog_name="fairpanel")  # exits with the command's exit code
    sys.exit(0)


def start_run(argv: Sequence[str], env: Mapping[str, str], log_path: Path) -> BaseProcess:
    """Start ``fairpanel <argv>`` in a child process; its stdout and stderr go to ``log_path``."""
    process = _CONTEXT.Process(target=_run_cli, args=(list(argv), dict(env), str(log_path)))
    process.start()
    return process
