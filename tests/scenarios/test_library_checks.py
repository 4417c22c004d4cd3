"""The checks every base passes at load: an identity word outside the label, a near-duplicate
of another base, and a broken placeholder are each refused with the file and line; and the
ways an experiment picks bases from the library (ids, domains, a seeded sample)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import Cli

from fairpanel import InputFileError
from fairpanel.judging import load_experiment
from fairpanel.judging.engine import design_of
from fairpanel.scenarios import (
    NEAR_DUPLICATE_THRESHOLD,
    builtin_identity_words,
    builtin_scenarios_dir,
    load_scenarios,
    select_bases,
    template_similarity,
)

TEMPLATE = (
    "You are the {profession} {setting}. {role}. Write the plan your team will follow: the "
    "first checks, who does what, the risks you expect and how you will know it worked."
)


def _scenario(scenario_id: str, template: str = TEMPLATE, role: str = "A client needs help") -> str:
    variations = "".join(
        f"  - profession: profession {i}\n"
        f"    setting: at site {i}\n"
        f"    role: {role if i == 3 else f'Case {i} needs a careful plan'}\n"
        for i in range(10)
    )
    return (
        f"id: {scenario_id}\ntitle: A test task\ndomain: testing\n"
        f"stereotype: Competence is credited to some authors more than to others.\n"
        f"template: >-\n  {template}\nvariations:\n{variations}"
    )


def _line_of(path: Path, fragment: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if fragment in line)


def _refusal(paths: list[Path]) -> str:
    with pytest.raises(InputFileError) as info:
        load_scenarios(paths)
    return str(info.value)


def test_a_stray_identity_word_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "leak.yaml"
    path.write_text(_scenario("leak", role="A female client wants a second opinion"), "utf-8")
    message = _refusal([path])
    assert f"{path}:{_line_of(path, 'A female client')}: variations[3].role:" in message
    assert "'female'" in message


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("A client called Mohammed wants a second opinion", "Mohammed"),
        ("She wants a second opinion", "she"),
        ("An Asian-owned shop wants a second opinion", None),  # joined by a hyphen: not a label
        ("A frank client wants a second opinion", None),  # a name only when capitalised
        ("A non-disabled client wants a second opinion", "non-disabled"),
        ("Two Muslims ask for a second opinion", "muslims"),
    ],
)
def test_identity_words_are_labels_names_and_gendered_words(text: str, word: str | None) -> None:
    found = builtin_identity_words().found_in(text)
    assert found == ([word] if word else [])


def test_an_identity_word_in_the_template_is_refused_at_the_template(tmp_path: Path) -> None:
    path = tmp_path / "leak.yaml"
    path.write_text(_scenario("leak", template=TEMPLATE + " Write it as a Christian would."))
    message = _refusal([path])
    assert f"{path}:{_line_of(path, 'template:')}: template:" in message
    assert "'christian'" in message


def test_a_near_duplicate_is_refused_with_both_files_and_lines(tmp_path: Path) -> None:
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(_scenario("first"), "utf-8")
    reworded = TEMPLATE.replace("Write the plan", "Set out the plan").replace("risks", "dangers")
    assert template_similarity(TEMPLATE, reworded) >= NEAR_DUPLICATE_THRESHOLD
    second.write_text(_scenario("second", template=reworded), "utf-8")
    message = _refusal([first, second])
    assert (
        f"{second}:{_line_of(second, 'template:')}: template: near-duplicate of 'first'" in message
    )
    assert f"({first}:{_line_of(first, 'template:')})" in message
    # Each alone is fine: the check is across the set.
    assert [b.id for b in load_scenarios([second])] == ["second"]


def test_a_broken_placeholder_is_refused_at_the_template(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(_scenario("broken", template=TEMPLATE.replace("{setting}", "{setting")))
    message = _refusal([path])
    assert f"{path}:{_line_of(path, 'template:')}: template:" in message


def _lcs(a: list[str], b: list[str]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a, 1):
        for j, y in enumerate(b, 1):
            table[i][j] = (
                table[i - 1][j - 1] + 1 if x == y else max(table[i - 1][j], table[i][j - 1])
            )
    return table[-1][-1]


def test_similarity_is_rouge_l_f1_over_words() -> None:
    bases = {b.id: b for b in load_scenarios()}
    for one, two in [
        ("fitness-coaching", "nursing-care-plan"),
        ("emergency-triage", "team-restructuring"),
    ]:
        a = bases[one].template.lower().replace(".", " ").replace(",", " ").split()
        b = bases[two].template.lower().replace(".", " ").replace(",", " ").split()
        a = ["".join(c for c in w if c.isalnum() or c in "{}") for w in a]
        b = ["".join(c for c in w if c.isalnum() or c in "{}") for w in b]
        a, b = [w for w in a if w], [w for w in b if w]
        expected = 2 * _lcs(a, b) / (len(a) + len(b))
        got = template_similarity(bases[one].template, bases[two].template)
        assert got == pytest.approx(expected, abs=0.02)


def test_a_seeded_sample_is_the_same_for_a_seed_and_differs_across_seeds() -> None:
    library = load_scenarios()
    one = select_bases(library, sample=20, seed=3)
    assert [b.id for b in one] == [b.id for b in select_bases(library, sample=20, seed=3)]
    assert len(one) == 20
    assert [b.id for b in one] == [b.id for b in library if b in one]  # library order
    others = {tuple(b.id for b in select_bases(library, sample=20, seed=s)) for s in range(5)}
    assert len(others) > 1
    health = select_bases(library, domains=["healthcare"])
    assert health and {b.domain for b in health} == {"healthcare"}


EXPERIMENT = """\
name: picks
models:
  judge: {{id: mock/judge}}
panel: {{judges: [domain_expert], model: judge}}
responder: {{model: judge}}
identities: {{categories: [gender]}}
seed: 7
scenarios:
{selection}
"""


def test_an_experiment_picks_by_domain_and_sample(tmp_path: Path) -> None:
    path = tmp_path / "e.yaml"
    path.write_text(
        EXPERIMENT.format(selection="  domains: [healthcare, education]\n  sample: 5"), "utf-8"
    )
    design = design_of(load_experiment(path))
    bases = {s.base_id for s in design.scenarios}
    assert len(bases) == 5
    library = {b.id: b.domain for b in load_scenarios()}
    assert {library[b] for b in bases} <= {"healthcare", "education"}


@pytest.mark.parametrize(
    ("selection", "where", "fragment"),
    [
        ("  domains: [helthcare]", "scenarios.domains[0]", "unknown domain 'helthcare'"),
        ("  domains: [healthcare]\n  sample: 500", "scenarios.sample", "asks for 500 bases"),
    ],
)
def test_a_bad_pick_fails_at_load_with_its_field_and_line(
    tmp_path: Path, selection: str, where: str, fragment: str
) -> None:
    path = tmp_path / "e.yaml"
    path.write_text(EXPERIMENT.format(selection=selection), "utf-8")
    with pytest.raises(InputFileError) as info:
        load_experiment(path)
    message = str(info.value)
    key = where.split(".")[-1].split("[")[0]
    assert f"{path}:{_line_of(path, key + ':')}: {where}:" in message
    assert fragment in message


def test_the_cli_lists_the_library_by_domain(cli: Cli) -> None:
    listed = cli("scenarios", "--domain", "healthcare")
    assert listed.exit_code == 0, listed.output
    healthcare = [b for b in load_scenarios() if b.domain == "healthcare"]
    assert f"({len(healthcare)} shown)" in listed.output
    assert f"healthcare ({len(healthcare)})" in listed.output
    assert "sport and fitness" not in listed.output
    assert cli("scenarios", "--domain", "nowhere").exit_code != 0
    everything = cli("scenarios")
    assert f"{len(load_scenarios())} base scenarios in" in everything.output


def test_scenarios_check_refuses_a_copy_of_a_built_in(cli: Cli, tmp_path: Path) -> None:
    original = (builtin_scenarios_dir() / "fitness-coaching.yaml").read_text(encoding="utf-8")
    copy = tmp_path / "mine.yaml"
    copy.write_text(original.replace("id: fitness-coaching", "id: my-coaching"), "utf-8")
    refused = cli("scenarios", "check", str(copy))
    assert refused.exit_code != 0
    assert "near-duplicate of the built-in 'fitness-coaching'" in refused.output
    fine = tmp_path / "fine.yaml"
    fine.write_text(_scenario("fine-task"), "utf-8")
    assert cli("scenarios", "check", str(fine)).exit_code == 0
