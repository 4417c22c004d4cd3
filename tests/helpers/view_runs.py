"""The run folders the transcript viewer's tests read: a small mock run with every outcome
kind (label flips, debate moves, parse failures), and a run whose answers are hostile HTML."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Cli

from helpers.runs import mock_run

__all__ = ["HOSTILE", "HOSTILE_EXPERIMENT", "VIEW_EXPERIMENT", "hostile_run"]

# Planted: a label shift (verdicts flip when the labels swap), a first-position preference,
# answers that often fail to parse even after the re-asks, and a discussion round to move in.
VIEW_EXPERIMENT = """\
name: view-outcomes
seed: 3
protocols: [single, pair]
models:
  judge:
    id: mock/judge
    mock:
      score_shift: {female: {creativity: 3.0, accuracy: 2.0}}
      first_position_bias: 0.3
      malformed_rate: 0.5
responder:
  model: mock/responder
panel:
  judges: [domain_expert, creativity_reviewer, clarity_editor]
  model: judge
  discussion_rounds: 1
scenarios:
  bases: [fitness-coaching, nursing-care-plan]
  derived_per_base: 1
identities:
  categories: [gender]
arms: {placebo: false, same_label: false}
"""

HOSTILE = (
    "</script><img src=x onerror=\"document.title='pwned'\">",
    "<script>document.title='pwned'</script>",
)
HOSTILE_EXPERIMENT = """\
name: view-hostile
responses_from: {source}
protocols: [pair]
responder:
  model: mock/responder
panel:
  judges: [domain_expert]
  model: mock/judge
  discussion_rounds: 0
scenarios:
  bases: [fitness-coaching]
  derived_per_base: 1
identities:
  categories: [gender]
arms: {{placebo: false, same_label: false}}
"""


def hostile_run(root: Path) -> Path:
    """A pair run whose two answers are ``HOSTILE`` (frozen responses, so the responder's
    texts are exactly those)."""
    source = root / "responses.jsonl"
    lines = [
        {"scenario_id": "fitness-coaching/01", "index": i + 1, "text": text,
         "responder_model": "mock/responder"}
        for i, text in enumerate(HOSTILE)
    ]  # fmt: skip
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return mock_run(Cli(), root, HOSTILE_EXPERIMENT.format(source=source)).out
