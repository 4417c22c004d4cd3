"""The terminal after ``run`` and ``report``: a short answer first, in 80 columns, the wide
tables only with ``--tables``; and the run's progress line (calls/s, waits, failures, cost, ETA).

The 80-column check runs the installed CLI in a pseudo-terminal 80 columns wide (what a user
sees), once for both outputs, on one small mock run made for the module.
"""

from __future__ import annotations

import fcntl
import io
import os
import pty
import re
import struct
import sys
import termios
import traceback
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import Cli, read_json
from helpers.report_samples import bias_profile_rows, full_results
from rich.console import Console

from fairpanel.cli import app
from fairpanel.cli._answer import print_answer, run_answer
from fairpanel.cli._live import pulse_line, run_progress
from fairpanel.cli._tables import render_tables
from fairpanel.judging.engine import RunPulse, _pulse

EXPERIMENT = """\
name: terminal
seed: 4
protocols: [single]
models:
  biased:
    id: mock/judge
    mock:
      score_shift: {female: {creativity: 3.0, accuracy: 3.0, efficiency: 3.0, reliability: 3.0}}
prices:
  mock/judge: {input: 3.0, output: 15.0}
responder:
  model: mock/responder
panel:
  judges: [domain_expert, creativity_reviewer]
  model: biased
  discussion_rounds: 0
scenarios:
  bases:
    - classroom-behaviour-plan
    - construction-site-safety
    - emergency-triage
    - fitness-coaching
    - portfolio-advice
  derived_per_base: 1
identities:
  categories: [gender]
arms: {placebo: false, same_label: false}
concurrency: 8
"""

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
_BOX = re.compile("[│┃─━┌┏└┗┐┓┘┛├┡┤┩┼╇]")


def _in_terminal(args: list[str], columns: int = 80) -> str:
    """``fairpanel *args`` with stdout and stderr on a pseudo-terminal ``columns`` wide (and
        COLUMNS set so); what it printed. Forked from this process, which imported fairpanel
        already, instead of a fresh interpreter that would spend seconds importing it again (rich
    chose its colours at that import, so the text comes without styles; the width it reads on
    every print)."""
    pid, leader = pty.fork()
    if pid == 0:  # the child: its stdin, stdout and stderr are the terminal
        code = 1
        fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        os.environ.update(COLUMNS=str(columns), LINES="24", TERM="xterm")
        os.environ.pop("NO_COLOR", None)
        # The terminal, not pytest's capture, is what the command must print to.
        with (
            open(1, "w", encoding="utf-8", closefd=False) as sys.stdout,
            open(2, "w", encoding="utf-8", closefd=False) as sys.stderr,
        ):
            try:
                app(args=args, prog_name="fairpanel", standalone_mode=False)
                code = 0
            except BaseException:
                traceback.print_exc()
        os._exit(code)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    text = b"".join(chunks).decode("utf-8")
    assert os.waitpid(pid, 0)[1] == 0, text
    return _ANSI.sub("", text).replace("\r", "")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The module's mock run, made with ``run --tables``: its folder and what it printed."""
    root = tmp_path_factory.mktemp("terminal")
    (root / "experiment.yaml").write_text(EXPERIMENT, encoding="utf-8")
    result = Cli()("run", str(root / "experiment.yaml"), "--out", str(root / "run"), "--tables")
    assert result.exit_code == 0, result.output
    return root / "run", str(result.output)


@pytest.fixture(scope="module")
def printed(run_dir: tuple[Path, str]) -> tuple[str, str]:
    """``fairpanel report RUN`` in an 80-column terminal, and ``run --tables``'s output."""
    answer = _in_terminal(["report", str(run_dir[0])])
    return answer, run_dir[1]


def _squeezed(text: str) -> str:
    return "".join(text.split())


def test_the_answer_fits_80_columns_with_no_table(printed: tuple[str, str]) -> None:
    answer, _ = printed
    assert answer.strip()
    assert max(len(line) for line in answer.splitlines()) <= 80
    assert not _BOX.search(answer), "the default output draws a table"


def test_the_answer_gives_the_verdict_effects_position_failures_cost_and_report(
    printed: tuple[str, str], run_dir: tuple[Path, str]
) -> None:
    answer, folder = printed[0], run_dir[0]
    results, summary = read_json(folder / "results.json"), read_json(folder / "summary.json")
    assert _squeezed(results["headline"]["verdict"]) in _squeezed(answer)
    assert results["headline"]["identity_effect"] is True  # the planted bias is called ...
    called = [e for e in results["effects"] if e["id"] in results["headline"]["detected"]]
    line = next(line for line in answer.splitlines() if line.lstrip().startswith("* "))
    assert f"{called[0]['identity']} vs {called[0]['versus']}" in line  # ... and starred
    assert f"+{called[0]['estimate']:.2f} pts [+{called[0]['ci_low']:.2f}," in line
    assert "Position bias" in answer or not results["position_bias"]
    failed = f"{summary['trials_failed']} of {summary['trials_total']} trials failed"
    assert failed in answer
    assert f"${summary['cost']['total_usd']:,.4f}" in answer and summary["cost"]["total_usd"] > 0
    assert _squeezed(str(folder / "report.html")) in _squeezed(answer)
    assert _squeezed(f"Transcripts: fairpanel view {folder}") in _squeezed(answer)


def test_tables_print_the_full_tables(printed: tuple[str, str]) -> None:
    answer, tables = printed
    for title in ("Headline", "Identity effects", "Mean scores", "Pair win rates"):
        assert title in tables and title not in answer
    assert _BOX.search(tables)


def _printed(renderables: Any, answer: bool) -> str:
    """What an 80-column console prints of the answer's lines or of the tables."""
    console = Console(file=io.StringIO(), width=80, force_terminal=False)
    if answer:
        print_answer(console, renderables)
    else:
        for table in renderables:
            console.print(table)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    return str(output)


def test_the_bias_profile_in_the_answer_and_the_tables() -> None:
    """One panel: the count of manipulations that move it and the called one with its
    estimate and interval, in 80 columns and no table; --tables: every row with its call.
    Two panels: a count per panel, and a called same-text control is said to misfire."""
    results = full_results()
    answer = _printed(run_answer(results, None, run_dir=Path("run"), report_file=None), True)
    assert max(len(line) for line in answer.splitlines()) <= 80
    assert not _BOX.search(answer)
    lines = answer.splitlines()
    at = lines.index("Bias profile  1 of 3 manipulations move the panel (bandwagon not tested)")
    assert lines[at + 1] == "  * verbosity-2x (single)  +0.84 pts [+0.41, +1.27]  p=0.0060"
    assert not lines[at + 2].startswith("  *")  # the one called row only
    assert "authority" not in answer and "misfired" not in answer

    tables = _printed(render_tables(results), False)
    profile = tables[tables.index("Bias profile: manipulated minus untouched twin") :]
    rows = {line.split("│")[1].strip(): line for line in profile.splitlines() if "│" in line}
    assert "+0.84 pts" in rows["verbosity-2x"] and "+0.41, +1.27" in rows["verbosity-2x"]
    assert rows["verbosity-2x"].rstrip(" │").endswith("called")
    assert "-8pp, +20pp" in rows["authority"] and "not called" in rows["authority"]
    assert "not tested" in rows["bandwagon"] and "same-text" in rows

    misfired = [{**row, "called": bool(row.get("control"))} for row in bias_profile_rows()]
    results["panels"] = {"gpt": full_results(), "haiku": {"bias_profile": misfired}}
    answer = _printed(run_answer(results, None, run_dir=Path("run"), report_file=None), True)
    assert max(len(line) for line in answer.splitlines()) <= 80
    flat = " ".join(answer.split())
    assert "Bias profile per panel; * = called (Holm)" in flat
    assert "gpt: 1 of 3 manipulations move the panel (bandwagon not tested) * verbosity-2x" in flat
    assert "haiku: 0 of 3 manipulations move the panel (bandwagon not tested); the " in flat
    assert "same-text control was called: the rule itself misfired" in flat
    tables = _printed(render_tables(results), False)
    profile = tables[tables.index("Bias profile: manipulated minus untouched twin") :]
    assert profile.count("misfired") == 1  # the haiku control row, its cell wrapped
    assert profile.count("haiku") == 4 and profile.count("gpt") == 4


class _Stats(SimpleNamespace):
    pass


def test_the_progress_line_reads_the_engine_counters(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fake run: four trials saved, one failed, 429s and waits on an endpoint, calls made,
    tokens priced; the meter's pulses and the line the terminal draws from the last one."""
    clock = SimpleNamespace(now=100.0)
    monkeypatch.setattr(_pulse, "time", SimpleNamespace(monotonic=lambda: clock.now))
    ledger = SimpleNamespace(calls_made=0, calls_cached=2)
    endpoint = _Stats(rate_limited=3, waits=4, quota_waits=1, wait_s=2.5)
    usage = SimpleNamespace(prompt_tokens=1_000_000, completion_tokens=0, cached_tokens=0)
    store = SimpleNamespace(
        tokens_by_role_and_model=lambda batched: {} if batched else {("judge", "m"): usage}
    )
    session: Any = SimpleNamespace(
        caller=SimpleNamespace(ledger=ledger),
        registry=SimpleNamespace(endpoint_stats=lambda: {"e": endpoint}),
        store=store,
    )
    console = Console(file=io.StringIO(), width=80, force_terminal=False)
    prices: Any = {"m": SimpleNamespace(input=2.0, output=0.0, cached_input=None)}
    saved: list[str] = []
    with run_progress(console) as hook:
        save = _pulse.metered(
            saved.append, hook, session, prices, unit="trials", total=4, interval=0.0
        )
        for status in ("ok", "failed", "ok", "ok"):
            clock.now += 2.0
            ledger.calls_made += 10
            save(SimpleNamespace(status=status, error=None))  # type: ignore[arg-type]
            hook("trials", len(saved), 4)
            if len(saved) == 2:
                assert hook.last is not None and hook.last.eta_s == pytest.approx(4.0)
    assert len(saved) == 4
    last = hook.last
    assert last == RunPulse(
        unit="trials",
        done=4,
        total=4,
        failed=1,
        calls_made=40,
        calls_cached=2,
        rate_limited=3,
        waits=5,
        wait_s=2.5,
        cost_usd=2.0,
        elapsed_s=8.0,
    )
    line = pulse_line(last)
    assert line == "5.0 calls/s | 429s 3, waits 5 (2.5 s) | 1 failed | $2.0000 | ETA 0:00:00"
    assert line in console.file.getvalue()  # type: ignore[attr-defined]
    assert len(line) <= 80
    early = pulse_line(RunPulse("trials", 0, 9, 0, 0, 0, 0, 0, 0.0, None, 0.0))
    assert early == "0.0 calls/s | 429s 0, waits 0 | 0 failed | unpriced | ETA -"
    # A plain (stage, done, total) hook gets no pulses: save is left as it was.
    assert _pulse.metered(saved.append, print, session, prices, unit="trials", total=4) == (
        saved.append
    )
