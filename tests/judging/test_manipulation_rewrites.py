"""Manipulations a model writes: made once per scenario through the call cache, checked before
any judge sees them, refused with the reason when they drop content, and a second responder
model's answer for the self-preference arm."""

from __future__ import annotations

import json

import pytest
from conftest import Cli, read_json
from helpers.runs import Run, mock_run

from fairpanel.judging.manipulation import content_overlap, find_manipulation

EXPERIMENT = """\
name: rewrites
seed: 3
protocols: [single]
models:
  writer:
    id: mock/writer
    mock: {responder_style: 2}
responder:
  model: mock/responder
panels:
  own:
    judges: [domain_expert, clarity_editor]
    model: mock/responder
    discussion_rounds: 0
  other:
    judges: [domain_expert, clarity_editor]
    model: writer
    discussion_rounds: 0
scenarios:
  bases: [fitness-coaching, nursing-care-plan]
  derived_per_base: 1
identities:
  categories: [gender]
arms:
  placebo: false
  same_label: false
  manipulations:
    - {kind: verbosity, ratio: 2, by: responder}
    - {kind: assertiveness, tone: hedging, by: responder}
    - {kind: verbosity, ratio: 1.2, by: responder}
    - {kind: self_preference, model: writer}
concurrency: 8
"""
SCENARIOS = 2


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return mock_run(Cli(), tmp_path_factory.mktemp("rewrites"), EXPERIMENT)


def _trials(run: Run) -> list[tuple[dict[str, object], str, str | None]]:
    rows = run.rows("SELECT spec, status, error FROM trials")
    return [(json.loads(spec), status, error) for spec, status, error in rows]


def test_each_rewrite_is_one_call_per_scenario_shared_by_panels_labels_and_orders(
    finished: Run,
) -> None:
    calls = finished.rows("SELECT json_extract(request, '$.model'), COUNT(*) FROM calls "
                          "WHERE role = 'responder' GROUP BY 1")  # fmt: skip
    # Two responses, two paddings and the register rewrite per scenario by the responder; one
    # fresh answer per scenario by the second model.
    # A killed run does not repeat them either: tests/judging/test_resume.py.
    assert dict(calls) == {"mock/responder": 5 * SCENARIOS, "mock/writer": SCENARIOS}


def test_judges_see_the_written_text_and_a_refused_rewrite_fails_its_trials(
    finished: Run,
) -> None:
    by_label: dict[str, set[str]] = {}
    for spec, status, error in _trials(finished):
        manipulation = spec["manipulation"]
        label = manipulation["label"] if isinstance(manipulation, dict) else "untouched"
        by_label.setdefault(str(label), set()).add(status if error is None else error)
    assert by_label["verbosity-2x-rewritten"] == {"ok"}
    assert by_label["answer-by-writer"] == by_label["assertiveness-hedging-rewritten"] == {"ok"}
    # The mock restates whole answers, so it cannot pad to 1.2x: refused, never judged.
    assert by_label["verbosity-1.2x-rewritten"] == {
        "manipulation refused: verbosity-1.2x-rewritten: the rewrite is 1.00x the original's "
        "words (asked for 1.2x)"
    }
    shown = [
        json.loads(request)["messages"][0]["content"]
        for (request,) in finished.rows(
            "SELECT c.request FROM calls c JOIN turns t ON t.call_keys LIKE '%' || c.key || '%' "
            "JOIN trials r ON r.key = t.trial_key "
            "WHERE json_extract(r.spec, '$.manipulation.kind') = 'verbosity'"
        )
    ]
    assert shown and all("In other words:" in context for context in shown)
    writer = finished.rows(
        "SELECT c.request FROM calls c JOIN turns t ON t.call_keys LIKE '%' || c.key || '%' "
        "JOIN trials r ON r.key = t.trial_key "
        "WHERE json_extract(r.spec, '$.manipulation.kind') = 'self_preference' LIMIT 1"
    )
    written = finished.rows(
        "SELECT reply FROM calls WHERE json_extract(request, '$.model') = 'mock/writer'"
    )
    context = json.loads(writer[0][0])["messages"][0]["content"]
    assert any(text.strip() in context for (text,) in written)
    assert not finished.rows(
        "SELECT 1 FROM turns t JOIN trials r ON r.key = t.trial_key WHERE r.status = 'failed'"
    )


def test_rewrite_checks_measure_length_and_content() -> None:
    original = "Step 1: Assess the wound. Step 2: Record the dressing change and inform the team."
    assert content_overlap(original, original + " Truly.") == 1.0
    # step, assess, wound, record, dressing, change, inform, team: two kept
    assert content_overlap(original, "Step 1: Check the wound.") == pytest.approx(2 / 8)
    padding = find_manipulation("verbosity")
    assert padding.check is not None
    ratio_two = padding.params.model_validate({"ratio": 2, "by": "responder"})
    assert padding.check(ratio_two, original, f"{original} {original}") is None
    assert "1.00x" in str(padding.check(ratio_two, original, original))
    assert "4.00x" in str(padding.check(ratio_two, original, " ".join([original] * 4)))
    register = find_manipulation("assertiveness")
    assert register.check is not None
    hedged = register.params.model_validate({"tone": "hedging", "by": "responder"})
    assert register.check(hedged, original, f"Perhaps {original}") is None
    same_length = "Step 1: Do it. Step 2: Note the wound and the time, then tell the others."
    assert "keeps 25% of the original's content words" in str(
        register.check(hedged, original, same_length)
    )
    assert "0.40x" in str(register.check(hedged, original, "Step 1: Do the wound now."))


def test_the_run_reports_self_preference_between_the_two_panels(finished: Run) -> None:
    rows = read_json(finished.out / "results.json")["self_preference"]
    assert [(r["manipulation"], r["own_panel"], r["responder_panel"]) for r in rows] == [
        ("answer-by-writer", "other", "own")
    ]
    assert (rows[0]["own_model"], rows[0]["responder_model"]) == ("mock/writer", "mock/responder")
    assert rows[0]["reason"].startswith("2 base scenarios: too few")
    page = (finished.out / "report.html").read_text(encoding="utf-8")
    assert 'id="self-preference-table"' in page and "not tested: 2 base scenarios" in page
