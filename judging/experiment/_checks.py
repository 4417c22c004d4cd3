"""Checks an experiment file's names against the persona, identity and scenario files.

Each problem carries its location in the file, so a typo in a panel, a persona or a base
scenario fails with its file, line and field before any model is called. ``responses_from``
is checked against the responses it names the same way: a source that cannot stand in for
the responder fails at load, not after the first judge calls.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import ValidationError

from fairpanel.agents import ModelSpec
from fairpanel.inputs import Location, Problem
from fairpanel.judging.experiment._candidates import (
    CandidateSourceError,
    candidate_problems,
    read_candidate_source,
)
from fairpanel.judging.experiment._config import (
    PANEL_NAME,
    ExperimentConfig,
    JudgeSeat,
    PanelConfig,
)
from fairpanel.judging.manipulation import ManipulationSpec, entry_problems, rewrite_ask
from fairpanel.personas import load_identities, load_judge_personas
from fairpanel.scenarios import BaseScenario, DerivedScenario, load_scenarios, select_bases

__all__ = ["name_checks", "resolve", "selected_bases_from", "selected_scenarios"]


def resolve(base: Path, relative: str) -> Path:
    path = Path(relative)
    return path if path.is_absolute() else base / path


def _panel_layout(
    config: ExperimentConfig,
) -> tuple[list[Problem], list[tuple[Location, PanelConfig]]]:
    """Problems with which panels the file names, and each panel with where it is written."""
    problems: list[Problem] = []
    if config.panel is not None and config.panels:
        problems.append((("panels",), "give either `panel` or `panels`, not both"))
    if config.panel is None and not config.panels:
        problems.append(((), "the experiment needs a `panel` (or several under `panels`)"))
    if config.panel_models and config.panel is None:
        problems.append((("panel_models",), "`panel_models` repeats `panel`, which is missing"))
    seen: set[str] = set()
    for index, model in enumerate(config.panel_models or []):
        if model in seen:
            problems.append((("panel_models", index), f"model {model!r} is listed twice"))
        seen.add(model)
    for name in config.panels or {}:
        if not re.fullmatch(PANEL_NAME, name):
            problems.append(
                (("panels", name), f"panel name {name!r} must match {PANEL_NAME} (letters, "
                 "digits and _.:/- , at most 64 characters)")
            )  # fmt: skip
    located: list[tuple[Location, PanelConfig]]
    if config.panels:
        located = [(("panels", name), panel) for name, panel in config.panels.items()]
    elif config.panel is not None:
        located = [(("panel",), panel) for _name, panel in config.panel_items()]
    else:
        located = []
    return problems, located


def _panel_checks(
    config: ExperimentConfig, where: Location, panel: PanelConfig, known_judges: set[str]
) -> list[Problem]:
    """Problems with one panel's models and personas, located in the file."""
    problems: list[Problem] = []
    references: list[tuple[Location, str]] = [((*where, "model"), panel.model)]
    for index, judge in enumerate(panel.judges):
        if isinstance(judge, JudgeSeat) and judge.model is not None:
            references.append(((*where, "judges", index, "model"), judge.model))
    problems += _model_reference_problems(config, references)
    personas = [seat.persona for seat in panel.seats()]
    for index, (judge, persona) in enumerate(zip(panel.judges, personas, strict=True)):
        if persona not in known_judges:
            seat_loc: Location = (*where, "judges", index)
            if isinstance(judge, JudgeSeat):
                seat_loc = (*seat_loc, "persona")
            problems.append(
                (
                    seat_loc,
                    f"unknown judge persona {persona!r}; known: {', '.join(sorted(known_judges))}",
                )
            )
    if len(set(personas)) != len(personas):
        problems.append(((*where, "judges"), "a judge persona is seated twice"))
    if panel.consensus == "moderator" and panel.moderator not in known_judges:
        problems.append(((*where, "moderator"), f"unknown persona {panel.moderator!r}"))
    return problems


def _model_reference_problems(
    config: ExperimentConfig, references: list[tuple[Location, str]]
) -> list[Problem]:
    problems: list[Problem] = []
    for where, reference in references:
        if reference not in config.models:
            try:
                ModelSpec(id=reference)
            except ValidationError as exc:
                problems.append(
                    (
                        where,
                        f"{reference!r} is neither a name in `models` nor a valid model id "
                        f"({exc.errors()[0]['msg']})",
                    )
                )
    return problems


def _writer_problems(
    config: ExperimentConfig, where: Location, spec: ManipulationSpec
) -> list[Problem]:
    """A manipulation a model writes needs that model: a second responder model for
    self-preference (not the responder itself), and the responder for a rewrite (which
    ``responses_from`` does not call)."""
    ask = rewrite_ask(spec)
    if ask is None:
        return []
    if ask.model is None:
        if config.responses_from is None:
            return []
        return [((*where, "by"), f"{spec.label} is written by the responder model, which "
                 "`responses_from` does not call; use the template (by: template)")]  # fmt: skip
    unknown = _model_reference_problems(config, [((*where, "model"), ask.model)])
    responder = config.responder_spec.id
    if unknown:
        return unknown
    if config.model_spec(ask.model).id == responder:
        return [((*where, "model"), f"{spec.kind} compares answers by two responder models, "
                 f"and this arm's model is the responder's own ({responder}): name a second "
                 "model (a name from `models` or a 'provider/model' id)")]  # fmt: skip
    return []


def _manipulation_problems(config: ExperimentConfig) -> list[Problem]:
    """The listing's own problems, then a model each manipulation needs and cannot have."""
    problems, resolved = entry_problems(
        config.arms.manipulations,
        ("arms", "manipulations"),
        control_field="arms.manipulation_control",
    )
    for where, spec in resolved:
        problems += _writer_problems(config, where, spec)
    return problems


def name_checks(config: ExperimentConfig, base: Path) -> list[Problem]:
    """Problems with names that only the persona, identity and scenario files can settle."""
    problems, located = _panel_layout(config)
    problems += _manipulation_problems(config)
    references: list[tuple[Location, str]] = [(("responder", "model"), config.responder.model)]
    references += [(("panel_models", i), m) for i, m in enumerate(config.panel_models or [])]
    problems += _model_reference_problems(config, references)
    personas_path = resolve(base, config.personas_file) if config.personas_file else None
    known_judges = {p.name for p in load_judge_personas(personas_path)}
    for where, panel in located:
        problems += _panel_checks(config, where, panel, known_judges)
    names = [t.name for t in config.treatments]
    if len(set(names)) != len(names):
        problems.append((("treatments",), "treatment names must be unique"))
    identity_path = resolve(base, config.identities.file) if config.identities.file else None
    identities = load_identities(identity_path)
    known_categories = {c.name for c in identities.categories}
    for index, category in enumerate(config.identities.categories):
        if category not in known_categories:
            problems.append(
                (
                    ("identities", "categories", index),
                    f"unknown identity category {category!r}; "
                    f"known: {', '.join(sorted(known_categories))}",
                )
            )
    for index, category in enumerate(config.pair.categories or []):
        if category not in known_categories:
            problems.append(
                (
                    ("pair", "categories", index),
                    f"unknown identity category {category!r}; known: "
                    f"{', '.join(sorted(known_categories))}",
                )
            )
    known = selected_bases_from(config, base, only_known=True)
    problems += _selection_problems(config, known)
    if config.scenarios.bases != "all":
        known_bases = {b.id for b in known}
        for index, base_id in enumerate(config.scenarios.bases):
            if base_id not in known_bases:
                problems.append(
                    (
                        ("scenarios", "bases", index),
                        f"unknown base scenario {base_id!r}; known: "
                        f"{', '.join(sorted(known_bases))}",
                    )
                )
    if config.responses_from is not None and not any(
        where == ("responder", "model") for where, _ in problems
    ):
        problems += _responses_from_problems(config, base, config.responses_from)
    return problems


def _responses_from_problems(
    config: ExperimentConfig, base: Path, responses_from: str
) -> list[Problem]:
    """Whether ``responses_from`` can stand in for the responder on every scenario."""
    where: Location = ("responses_from",)
    try:
        source = read_candidate_source(resolve(base, responses_from))
    except CandidateSourceError as exc:
        return [(where, str(exc))]
    scenario_ids = [scenario.id for scenario in selected_scenarios(config, base)]
    return [(where, message) for message in candidate_problems(source, config, scenario_ids)]


def selected_bases_from(
    config: ExperimentConfig, base: Path, *, only_known: bool = False
) -> list[BaseScenario]:
    """The base scenarios the experiment draws from (all known ones with ``only_known``):
    the listed ids (or all), then those of the listed domains, then a seeded sample of them."""
    files = [resolve(base, f) for f in config.scenarios.files]
    bases = load_scenarios(files or None)
    if only_known:
        return bases
    selection = config.scenarios
    return select_bases(
        bases,
        ids=selection.bases,
        domains=selection.domains,
        sample=selection.sample,
        seed=config.seed,
    )


def _selection_problems(config: ExperimentConfig, known: list[BaseScenario]) -> list[Problem]:
    """Domains no base has and samples larger than the selection, refused before any call."""
    selection = config.scenarios
    domains = sorted({b.domain for b in known})
    problems: list[Problem] = [
        (
            ("scenarios", "domains", index),
            f"unknown domain {domain!r}; known: {', '.join(domains)}",
        )
        for index, domain in enumerate(selection.domains)
        if domain not in domains
    ]
    available = len(select_bases(known, ids=selection.bases, domains=selection.domains))
    if not problems and selection.sample is not None and selection.sample > available:
        problems.append(
            (
                ("scenarios", "sample"),
                f"asks for {selection.sample} bases, but the selection has {available}",
            )
        )
    return problems


def selected_scenarios(config: ExperimentConfig, base: Path) -> list[DerivedScenario]:
    """The derived scenarios the experiment runs: the first ``derived_per_base`` of each
    selected base (all of them when unset), in base order."""
    scenarios: list[DerivedScenario] = []
    for chosen in selected_bases_from(config, base):
        derived = chosen.derived()
        scenarios.extend(derived[: config.scenarios.derived_per_base or len(derived)])
    return scenarios
