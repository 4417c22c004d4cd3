"""Shared fixtures: experiment files written on the fly, an in-process CLI runner, and a
module's mock run."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.runs import mock_run
from typer.testing import CliRunner

from fairpanel.cli import app

WriteExperiment = Callable[..., Path]


@pytest.fixture
def write_experiment(tmp_path: Path) -> WriteExperiment:
    """Write a YAML experiment into tmp_path and return its path."""

    def write(text: str, name: str = "experiment.yaml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


class Cli:
    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str) -> Any:
        return self.runner.invoke(app, list(args), catch_exceptions=False)


@pytest.fixture
def cli() -> Cli:
    return Cli()


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def run_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run folder of the test module's ``EXPERIMENT`` (YAML text), run once on the mock
    provider and shared by the module's tests, which only read it."""
    experiment = request.module.EXPERIMENT
    root = tmp_path_factory.mktemp(request.module.__name__.rpartition(".")[2])
    return mock_run(Cli(), root, experiment).out
