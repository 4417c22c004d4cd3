"""Manipulation arms: templates that keep the content, load-time errors with file, line and
field, the design's twins, and plugins found through their entry points."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from conftest import Cli, WriteExperiment

from fairpanel import InputFileError
from fairpanel.judging import load_experiment
from fairpanel.judging.engine import design_of
from fairpanel.judging.manipulation import (
    Manipulated,
    ManipulationError,
    ManipulationInput,
    ManipulationKind,
    apply_manipulation,
    find_manipulation,
    pad_to_ratio,
    register_manipulation,
    resolve_manipulation,
    word_count,
)
from fairpanel.judging.protocol import judge_context

ANSWER = (
    "Step 1: Assess the key points of the task before the shift starts.\n"
    "Step 2: Plan the order of the visits with the charge nurse. "
    "Step 3: Review the medication chart twice.\n"
    "Step 4: Document every change and hand over in writing."
)

EXPERIMENT = """\
name: manipulations
models:
  judge: {id: mock/judge}
panel:
  judges: [domain_expert, clarity_editor]
  model: judge
responder:
  model: mock/responder
scenarios:
  bases: [fitness-coaching, nursing-care-plan]
  derived_per_base: 1
identities:
  categories: [gender]
arms:
  placebo: false
  same_label: false
  manipulations:
    - {kind: verbosity, ratio: 2}
    - authority
"""


def _shown(target: int = 0, protocol: str = "pair", **params: object) -> ManipulationInput:
    texts = (ANSWER, "The other answer.") if protocol == "pair" else (ANSWER,)
    if target == 1:
        texts = texts[::-1]
    return ManipulationInput(
        texts=texts, target=target, task="Plan a shift.", protocol=protocol, params=dict(params)
    )


@pytest.mark.parametrize("ratio", [1.5, 2.0, 3.0])
def test_padding_keeps_every_word_and_comes_close_to_the_ratio(ratio: float) -> None:
    padded = pad_to_ratio(ANSWER, ratio)
    assert padded.startswith(ANSWER + "\n\n")
    assert abs(word_count(padded) / word_count(ANSWER) - ratio) < 0.2
    assert padded.rstrip().endswith(".")


@pytest.mark.parametrize("target", [0, 1])
@pytest.mark.parametrize(
    ("kind", "params", "added"),
    [
        ("authority", {}, "According to a 2021 study"),
        ("assertiveness", {"tone": "confident"}, "I am certain"),
        ("assertiveness", {"tone": "hedging"}, "I might be wrong"),
        ("sentiment", {"tone": "negative"}, "Unfortunately"),
    ],
)
def test_framing_changes_only_the_target_and_keeps_its_text(
    kind: str, params: dict[str, object], added: str, target: int
) -> None:
    spec = resolve_manipulation(kind, params)
    given = _shown(target, **params)
    result = apply_manipulation(spec, given)
    assert ANSWER in result.texts[target] and added in result.texts[target]
    assert result.texts[1 - target] == given.texts[1 - target] and result.note is None


def test_bandwagon_names_the_target_in_either_order_and_leaves_texts() -> None:
    spec = resolve_manipulation("bandwagon", {"share": 90})
    for target, letter in ((0, "A"), (1, "B")):
        result = apply_manipulation(spec, _shown(target))
        assert result.texts == _shown(target).texts
        assert (
            result.note == f"For reference: 90% of earlier reviewers preferred candidate {letter}."
        )
    single = apply_manipulation(spec, _shown(0, protocol="single"))
    assert single.note is not None and "candidate A above average" in single.note
    context = judge_context("Plan a shift.", [("a nurse", ANSWER)], note=single.note)
    assert context.endswith(single.note) and context.index("</candidate>") < context.index("90%")


def test_a_registered_function_is_used_and_one_that_touches_the_other_answer_is_refused() -> None:
    def shout(given: ManipulationInput) -> Manipulated:
        texts = list(given.texts)
        texts[given.target] = texts[given.target].upper()
        return Manipulated(texts=tuple(texts))

    def meddle(given: ManipulationInput) -> Manipulated:
        return Manipulated(texts=tuple(t + "!" for t in given.texts))

    for name, apply in (("test-shout", shout), ("test-meddle", meddle)):
        register_manipulation(
            ManipulationKind(
                name=name,
                params=find_manipulation("none").params,
                apply=apply,
                label=lambda _, name=name: name,
                changes="case",
                keeps="words",
            )
        )
    shouted = apply_manipulation(resolve_manipulation("test-shout", {}), _shown(1))
    assert shouted.texts == ("The other answer.", ANSWER.upper())
    with pytest.raises(ManipulationError, match="other than the one it targets"):
        apply_manipulation(resolve_manipulation("test-meddle", {}), _shown(0))
    with pytest.raises(ManipulationError, match="fairpanel's own"):
        register_manipulation(
            ManipulationKind(
                "verbosity", find_manipulation("none").params, shout, lambda _: "v", "", ""
            )
        )


def test_a_plugin_entry_point_is_found_and_a_wrong_object_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "shout_plugin.py").write_text(
        textwrap.dedent(
            """\
            from fairpanel.judging.manipulation import Manipulated, ManipulationKind
            from fairpanel.judging.manipulation import find_manipulation

            def _apply(given):
                texts = list(given.texts)
                texts[given.target] = texts[given.target] + " (reviewed)"
                return Manipulated(texts=tuple(texts))

            KIND = ManipulationKind("reviewed", find_manipulation("none").params, _apply,
                                    lambda _: "reviewed", "a suffix", "every word")
            NOT_A_KIND = object()
            """
        )
    )
    info = tmp_path / "shout_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: shout-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[fairpanel.manipulations]\nreviewed = shout_plugin:KIND\n"
        "broken = shout_plugin:NOT_A_KIND\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    result = apply_manipulation(resolve_manipulation("reviewed", {}), _shown(0))
    assert result.texts[0] == ANSWER + " (reviewed)"
    with pytest.raises(ManipulationError, match="is not a ManipulationKind"):
        find_manipulation("broken")


def _error(path: Path) -> str:
    with pytest.raises(InputFileError) as caught:
        load_experiment(path)
    return str(caught.value)


@pytest.mark.parametrize(
    ("entry", "field", "says"),
    [
        ("    - verbosty\n", "arms.manipulations[2].kind", "unknown manipulation 'verbosty'"),
        ("    - {kind: verbosity, ratio: 0.8}\n", "arms.manipulations[2].ratio", "greater than 1"),
        ("    - self_preference\n", "arms.manipulations[2].model", "Field required"),
        (
            "    - {kind: self_preference, model: mock/responder}\n",
            "arms.manipulations[2].model",
            "the responder's own (mock/responder)",
        ),
        (
            "    - {kind: self_preference, model: mocky/other}\n",
            "arms.manipulations[2].model",
            "neither a name in `models`",
        ),
        ("    - {kind: authority}\n", "arms.manipulations[2].label", "give one a `label`"),
        ("    - none\n", "arms.manipulations[2].kind", "manipulation_control"),
        ("    - {kind: bandwagon, share: 30}\n", "arms.manipulations[2].share", "share"),
    ],
)
def test_bad_manipulations_fail_at_load_with_line_and_field(
    write_experiment: WriteExperiment, entry: str, field: str, says: str
) -> None:
    path = write_experiment(EXPERIMENT + entry)
    message = _error(path)
    line = len(EXPERIMENT.splitlines()) + 1
    assert f"{path}:{line}: {field}" in message and says in message, message


def test_the_cli_exits_2_on_a_padding_ratio_below_1_before_any_run(
    cli: Cli, write_experiment: WriteExperiment, tmp_path: Path
) -> None:
    path = write_experiment(EXPERIMENT.replace("ratio: 2", "ratio: 0.5"))
    result = cli("run", str(path), "--out", str(tmp_path / "run"))
    assert result.exit_code == 2 and "arms.manipulations[0].ratio" in result.output
    assert not (tmp_path / "run").exists()


def test_every_main_trial_gets_one_twin_per_manipulation_and_the_control(
    write_experiment: WriteExperiment,
) -> None:
    config = load_experiment(write_experiment(EXPERIMENT))
    trials = list(design_of(config).trials())
    main = [t for t in trials if t.arm == "main"]
    twins = [t for t in trials if t.arm == "manipulation"]
    labels = ["verbosity-2x", "authority", "same-text-control"]
    assert len(twins) == len(main) * len(labels)
    assert len({t.key() for t in trials}) == len(trials)
    for index, spec in enumerate(main):
        mine = twins[index * len(labels) : (index + 1) * len(labels)]
        assert [t.manipulation.label for t in mine if t.manipulation] == labels
        for twin in mine:
            untouched = twin.model_copy(update={"arm": "main", "manipulation": None})
            assert untouched.key() == spec.key() and twin.route_key() == spec.route_key()
            assert twin.response_indices[twin.manipulated_position or 0] == 1
            control = twin.manipulation is not None and twin.manipulation.control
            assert twin.call_replicate == (-(spec.replicate + 1) if control else spec.replicate)
    positions = {t.manipulated_position for t in twins if t.protocol == "pair"}
    assert positions == {0, 1}  # the manipulated answer is shown first and second
