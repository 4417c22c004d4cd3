"""Replicas in an experiment file: mistakes fail at load with file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import WriteExperiment
from helpers.paths import EXAMPLES

from fairpanel import InputFileError
from fairpanel.judging import estimate, load_experiment

VALID = """\
name: replica-check
models:
  judge:
    id: openai-compatible/judge
    replicas:
      - base_url: http://127.0.0.1:8001/v1
      - base_url: http://127.0.0.1:8002/v1
panel:
  judges: [domain_expert, clarity_editor]
  model: judge
responder:
  model: mock/responder
scenarios:
  bases: [fitness-coaching]
  derived_per_base: 1
identities:
  categories: [gender]
"""
SECOND = "      - base_url: http://127.0.0.1:8002/v1\n"


def _problems(path: Path) -> str:
    with pytest.raises(InputFileError) as caught:
        load_experiment(path)
    return str(caught.value)


def test_valid_replicas_load(write_experiment: WriteExperiment) -> None:
    spec = load_experiment(write_experiment(VALID)).model_spec("judge")
    assert [one.base_url for one in spec.replica_specs()] == [
        "http://127.0.0.1:8001/v1",
        "http://127.0.0.1:8002/v1",
    ]


REPLICA = ":7: models.judge.replicas[1]"


@pytest.mark.parametrize(
    ("new", "where", "says"),
    [
        (SECOND.replace("base_url", "base_ur"), f"{REPLICA}.base_ur", "unknown"),
        ("      - {base_url: 'http://u:p@h:8002/v1'}\n", f"{REPLICA}.base_url", "credentials"),
        ("      - {limits: {max_in_flite: 4}}\n", f"{REPLICA}.limits.max_in_flite", "unknown"),
        ("", ":5: models.judge.replicas", "at least two"),
        (SECOND.replace("8002", "8001"), ":3: models.judge", "repeats"),
        ("      - {api_key_env: OTHER_KEY}\n", ":3: models.judge", "replica 2 needs a base_url"),
    ],
)
def test_replica_mistakes_name_file_line_and_field(
    write_experiment: WriteExperiment, new: str, where: str, says: str
) -> None:
    path = write_experiment(VALID.replace(SECOND, new))
    message = _problems(path)
    assert f"{path}{where}" in message and says in message, message


def test_a_list_of_base_urls_points_to_replicas(write_experiment: WriteExperiment) -> None:
    listed = "    replicas:\n      - base_url: http://127.0.0.1:8001/v1\n" + SECOND
    as_list = "    base_url: [http://127.0.0.1:8001/v1, http://127.0.0.1:8002/v1]\n"
    text = VALID.replace(listed, as_list)
    path = write_experiment(text)
    message = _problems(path)
    assert f"{path}:5: models.judge.base_url" in message and "replicas" in message, message


def test_in_process_models_take_no_replicas(write_experiment: WriteExperiment) -> None:
    path = write_experiment(VALID.replace("openai-compatible/judge", "mock/judge"))
    assert "take no replicas" in _problems(path)


def test_the_vllm_replicas_example_loads() -> None:
    config = load_experiment(EXAMPLES / "vllm-replicas.yaml")
    spec = config.model_spec("qwen")
    assert [one.base_url for one in spec.replica_specs()] == [
        "http://127.0.0.1:8001/v1",
        "http://127.0.0.1:8002/v1",
    ]


def _wall_seconds(write: WriteExperiment, replicas: str) -> float | None:
    text = VALID.replace(
        "    replicas:\n      - base_url: http://127.0.0.1:8001/v1\n" + SECOND, replicas
    ).replace("  model: mock/responder", "  model: judge")
    return estimate(load_experiment(write(text))).wall_seconds


def test_the_estimate_counts_every_replicas_limit(write_experiment: WriteExperiment) -> None:
    one = _wall_seconds(
        write_experiment,
        "    base_url: http://127.0.0.1:8001/v1\n    limits: {requests_per_minute: 60}\n",
    )
    limited = "        limits: {requests_per_minute: 60}\n"
    two = _wall_seconds(
        write_experiment,
        "    replicas:\n      - base_url: http://127.0.0.1:8001/v1\n" + limited + SECOND + limited,
    )
    assert one is not None and two is not None and two == pytest.approx(one / 2, abs=0.1)
    # A replica without a limit bounds nothing: the time depends on its latency.
    unlimited = _wall_seconds(
        write_experiment,
        "    replicas:\n      - base_url: http://127.0.0.1:8001/v1\n" + limited + SECOND,
    )
    assert unlimited is None
