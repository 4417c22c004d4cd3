"""The arms of a run analysed several parts at once, on threads or on forked processes, give
the very results they give one part after another."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, cast

import pytest

from fairpanel.analysis import ArmResults
from fairpanel.judging import RunFrames
from fairpanel.run_folder._panel_results import analyze_subsets
from fairpanel.run_folder._part_pool import run_parts
from tests.helpers.panel_data import PanelSpec, panel_frames


def _as_json(results: dict[str, ArmResults]) -> str:
    return json.dumps({name: result.to_json() for name, result in results.items()})


@pytest.fixture(scope="module")
def subsets() -> dict[str, RunFrames]:
    specs = {
        "fair": PanelSpec(),
        "shifted": PanelSpec(shift=0.8, label=0.5),
        "noisy": PanelSpec(noise=2.0, fail_rate=0.1),
        "positional": PanelSpec(position=1.0),
    }
    return cast(dict[str, RunFrames], panel_frames(11, specs))


@pytest.fixture(scope="module")
def serial(subsets: dict[str, RunFrames]) -> dict[str, ArmResults]:
    return analyze_subsets(subsets, workers=1)


@pytest.mark.parametrize("processes", [False, True], ids=["threads", "processes"])
def test_parts_run_at_once_equal_the_serial_analyses_subset_by_subset(
    subsets: dict[str, RunFrames], serial: dict[str, ArmResults], processes: bool
) -> None:
    together = analyze_subsets(subsets, workers=3, processes=processes)
    assert list(together) == list(subsets)
    assert _as_json(together) == _as_json(serial)
    # The subsets differ, so a mix-up of which result belongs to which subset would show.
    assert len({json.dumps(result.to_json()) for result in serial.values()}) == len(subsets)


def _where_it_ran() -> dict[str, Any]:

    return {"pid": os.getpid()}


@pytest.mark.skipif(sys.platform != "linux", reason="forked workers only on Linux")
def test_large_subsets_run_in_forked_workers_and_small_ones_here() -> None:
    parts = {"arm": {"one": _where_it_ran, "two": _where_it_ran}}
    forked = run_parts(parts, sizes={"arm": 10**7}, workers=2)
    threaded = run_parts(parts, sizes={"arm": 10}, workers=2)
    assert {block["pid"] for block in forked["arm"]}.isdisjoint({os.getpid()})
    assert {block["pid"] for block in threaded["arm"]} == {os.getpid()}


def _fails() -> dict[str, Any]:
    raise ValueError("a part that fails")


@pytest.mark.parametrize("processes", [False, True], ids=["threads", "processes"])
def test_a_failing_part_fails_the_analysis_with_its_own_error(processes: bool) -> None:
    parts = {"arm": {"fine": lambda: {"x": 1}, "broken": _fails}}
    with pytest.raises(ValueError, match="a part that fails"):
        run_parts(parts, sizes={"arm": 1}, workers=2, processes=processes)


def _slow_part() -> dict[str, Any]:
    time.sleep(0.5)
    return {"done_at": time.monotonic()}


@pytest.mark.parametrize("processes", [False, True], ids=["threads", "processes"])
def test_the_callers_own_work_runs_while_the_parts_do(processes: bool) -> None:
    """``alongside`` runs here, once, before the parts are waited for, not after them."""
    calls: list[float] = []
    parts = {"arm": {"one": _slow_part, "two": _slow_part}}
    done = run_parts(
        parts, sizes={"arm": 1}, workers=2, processes=processes,
        alongside=lambda: calls.append(time.monotonic()),
    )  # fmt: skip
    assert len(calls) == 1
    assert calls[0] < min(block["done_at"] for block in done["arm"])
