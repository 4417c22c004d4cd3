"""The local llama.cpp server's thread count: one core left free unless the user says otherwise.

Resolution only; starting the server is in test_local_model.py (marked smollm)."""

from __future__ import annotations

import pytest

from fairpanel.agents import local_threads


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 1), (4, 3), (9, 8), (64, 8)])
def test_default_leaves_one_core_free_within_one_and_eight(cores: int, threads: int) -> None:
    assert local_threads({}, cores=cores) == threads


def test_the_environment_variable_overrides_the_default_either_way() -> None:
    assert local_threads({"FAIRPANEL_LOCAL_THREADS": "2"}, cores=2) == 2
    assert local_threads({"FAIRPANEL_LOCAL_THREADS": " 16 "}, cores=4) == 16
    assert local_threads({"FAIRPANEL_LOCAL_THREADS": ""}, cores=4) == 3  # empty = unset


@pytest.mark.parametrize("value", ["0", "-1", "two", "1.5"])
def test_a_value_that_is_not_a_whole_number_of_threads_is_refused(value: str) -> None:
    with pytest.raises(ValueError, match="FAIRPANEL_LOCAL_THREADS must be a whole number"):
        local_threads({"FAIRPANEL_LOCAL_THREADS": value}, cores=4)


def test_the_process_environment_is_read_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAIRPANEL_LOCAL_THREADS", "5")
    assert local_threads() == 5
    monkeypatch.delenv("FAIRPANEL_LOCAL_THREADS")
    assert 1 <= local_threads() <= 8
