"""Which trials an experiment consists of.

A trial is fully determined by the design: protocol, arm, scenario, identity labels and how
they are signalled, worded and placed, which response is shown where, the panel and its
speaker order, the models and their sampling, the consensus rule, the treatment, the
replicate and the seed. Its key hashes all of that, so a re-run finds it. Trials are
generated lazily, so a large design never sits in memory at once.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from fairpanel.agents import Sampling, canonical_json, endpoint_of
from fairpanel.judging.experiment._config import ExperimentConfig, PanelConfig
from fairpanel.judging.manipulation import ManipulationSpec
from fairpanel.personas import Identity, IdentitySet
from fairpanel.scenarios import DerivedScenario

__all__ = [
    "PLACEBO_CATEGORY",
    "TRIAL_SCHEMA_VERSION",
    "SeatSpec",
    "TrialSpec",
    "injected_twin",
    "iter_trials",
    "manipulated_twin",
]

TRIAL_SCHEMA_VERSION = 3
PLACEBO_CATEGORY = "control"

Arm = Literal["main", "placebo", "same_label", "injection", "manipulation"]
MANIPULATED_RESPONSE = 1
"""The response a manipulation changes, wherever the trial shows it."""


class SeatSpec(BaseModel):
    """One judge as it sits in a trial: persona, model (as configured and as resolved), sampling."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    persona: str
    model: str
    model_id: str
    endpoint: str
    sampling: Sampling


class TrialSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = TRIAL_SCHEMA_VERSION
    protocol: Literal["single", "pair"]
    arm: Arm
    scenario_id: str
    base_id: str
    category: str
    identities: tuple[str, ...]
    signal: Literal["explicit", "name"]
    authors: tuple[str, ...]
    label_position: Literal["tag", "header", "footer"]
    label_wording: str
    response_indices: tuple[int, ...]
    seats: tuple[SeatSpec, ...]
    responder_model: str
    discussion_rounds: int
    max_reasks: int
    consensus: str
    moderator: SeatSpec | None
    final_vote: Literal["open", "blind"]
    treatment: str
    judge_instruction: str | None
    replicate: int
    seed: int
    injection: str | None = None
    """The instruction planted in the last shown candidate (arm ``injection`` only)."""
    panel: str | None = None
    """The panel's name in an experiment that compares panels (None: the only panel)."""
    answer_format: Literal["json", "text"] = "json"
    """How the judges answer: a JSON object, or free text read by the tolerant parser."""
    manipulation: ManipulationSpec | None = None
    """The change made to the candidate holding response 1 (arm ``manipulation`` only)."""

    @property
    def manipulated_position(self) -> int | None:
        """Where the manipulated candidate is shown (0: A, 1: B), or None when the trial has no
        manipulation."""
        if self.manipulation is None:
            return None
        return self.response_indices.index(MANIPULATED_RESPONSE)

    @property
    def call_replicate(self) -> int:
        """The replicate index the trial's model calls carry. The same-text control shows the
        judges exactly what its untouched twin did, so its calls carry a replicate no other
        trial's can (negative) and are answered afresh, not from the twin's cached calls."""
        if self.manipulation is not None and self.manipulation.control:
            return -(self.replicate + 1)
        return self.replicate

    @property
    def judges(self) -> tuple[str, ...]:
        """Persona names in speaker order."""
        return tuple(seat.persona for seat in self.seats)

    def key(self) -> str:
        data = self.model_dump(mode="json")
        # Fields at the value they had before they existed stay out, so old runs keep their keys.
        for name, absent in _ADDED_FIELDS.items():
            if data[name] == absent:
                del data[name]
        payload = canonical_json(data)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def route_key(self) -> str:
        """The trial's pair key: what its paired contrasts hold fixed. A single trial's is its
        scenario with every label (scenario, signal, treatment, replicate, seed, category); a
        pair trial's adds the two labels, unordered, so it joins the four arrangements of one
        pair of labels (both label orders, both response orders). The arm, the injection, the
        manipulation and the panel stay out. Every trial sharing it, and every call of each,
        goes to one replica of a model on several, so the label, position, injection,
        manipulation and panel contrasts never mix servers and the shared context stays in one
        server's prefix cache. Not part of ``key()``."""
        unit = self.model_dump(
            mode="json",
            include={"protocol", "scenario_id", "category", "signal", "treatment"}
            | {"replicate", "seed"},
        )
        if self.protocol == "pair":
            unit["pair"] = sorted(self.identities)
        return hashlib.sha256(canonical_json(unit).encode("utf-8")).hexdigest()[:24]


_ADDED_FIELDS: dict[str, object] = {
    "injection": None,
    "panel": None,
    "answer_format": "json",
    "manipulation": None,
}


def _pick(seed: int, *parts: object, size: int) -> int:
    digest = hashlib.sha256(canonical_json([seed, *map(str, parts)]).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % size


def _speaker_offset(
    seed: int,
    scenario_id: str,
    response_indices: Sequence[int],
    signal: str,
    replicate: int,
    *,
    size: int,
) -> int:
    """How far the panel is rotated in one trial: a seeded pick from everything but the labels.

    The matched versions of a unit (one response under label a and under label b; one pair of
    answers with the labels swapped, or shown in the other order) must differ only in what is
    being contrasted, so the labels and the order of the answers stay out of the hash: all
    versions of a unit hear the judges in the same order (audit D2). The responses shown enter
    as a set, so a unit's order-swapped twin keeps its speaker order too; the rotation still
    varies over scenarios, signals and replicates, so no persona always speaks first.
    """
    shown = sorted(response_indices)
    return _pick(seed, "speakers", scenario_id, shown, signal, replicate, size=size)


def _rotate(seats: Sequence[SeatSpec], offset: int) -> tuple[SeatSpec, ...]:
    return tuple(seats[offset:]) + tuple(seats[:offset])


def _seat(config: ExperimentConfig, persona: str, model: str, sampling: Sampling) -> SeatSpec:
    resolved = config.model_spec(model)
    return SeatSpec(
        persona=persona,
        model=model,
        model_id=resolved.id,
        endpoint=endpoint_of(resolved),
        sampling=resolved.sampling.merged(sampling),
    )


def _author(
    identity: Identity, signal: str, seed: int, scenario_id: str, replicate: int
) -> str | None:
    """How the identity is shown: its explicit phrase, or a seeded pick of its name cues."""
    if signal == "explicit":
        return identity.explicit
    if not identity.names:
        return None
    return identity.names[_pick(seed, "name", identity.label, scenario_id, replicate,
                                size=len(identity.names))]  # fmt: skip


def _arrangements(
    config: ExperimentConfig, scenario_id: str, first: str, second: str, replicate: int
) -> list[tuple[tuple[str, str], tuple[int, int]]]:
    """(labels in shown order, responses in shown order) for one pair of labels."""
    orders = ((1, 2), (2, 1))
    if first == second:
        every = [((first, second), responses) for responses in orders]
    else:
        every = [
            (labels, responses)
            for responses in orders
            for labels in ((first, second), (second, first))
        ]
    if config.pair.counterbalance:
        return every
    # One arrangement per pair, chosen by the seed, so no label or position is favoured by design.
    return [every[_pick(config.seed, scenario_id, first, second, replicate, size=len(every))]]


def _pair_plan(
    config: ExperimentConfig, identities: IdentitySet
) -> list[tuple[Arm, str, Identity, Identity]]:
    """(arm, category, first, second) for every pair of labels the design contains.

    The placebo arm pairs the control category's neutral labels exactly as the main arm pairs
    a category's identities, so its trials have the structure the headline tests expect.
    """
    plan: list[tuple[Arm, str, Identity, Identity]] = []
    for name in config.pair.categories or config.identities.categories:
        members = identities.category(name).identities
        plan.extend(("main", name, a, b) for a, b in itertools.combinations(members, 2))
        if config.arms.same_label:
            plan.extend(("same_label", name, a, a) for a in members)
    if config.arms.placebo:
        neutral = identities.category(PLACEBO_CATEGORY).identities
        plan.extend(
            ("placebo", PLACEBO_CATEGORY, a, b) for a, b in itertools.combinations(neutral, 2)
        )
    return plan


def _single_plan(config: ExperimentConfig, identities: IdentitySet) -> list[tuple[Arm, Identity]]:
    """(arm, identity) for every label a single trial shows; the placebo arm shows each
    neutral label of the control category, as the main arm shows each identity."""
    plan: list[tuple[Arm, Identity]] = [
        ("main", identity)
        for name in config.identities.categories
        for identity in identities.category(name).identities
    ]
    if config.arms.placebo:
        plan.extend(
            ("placebo", identity) for identity in identities.category(PLACEBO_CATEGORY).identities
        )
    return plan


def iter_trials(
    config: ExperimentConfig,
    scenarios: Sequence[DerivedScenario],
    identities: IdentitySet,
) -> Iterator[TrialSpec]:
    """Every trial of the design, in a stable order: after each main trial its injected twin,
    then its manipulated twins (one per manipulation arm, the same-text control last)."""
    manipulations = config.arms.manipulation_specs()
    for spec in _iter_design(config, scenarios, identities):
        yield spec
        if spec.arm != "main":
            continue
        if config.arms.injection:
            yield injected_twin(spec, config.arms.injection_text)
        for manipulation in manipulations:
            yield manipulated_twin(spec, manipulation)


def injected_twin(spec: TrialSpec, injection: str) -> TrialSpec:
    """``spec`` with ``injection`` planted in its last shown candidate."""
    return spec.model_copy(update={"arm": "injection", "injection": injection})


def manipulated_twin(spec: TrialSpec, manipulation: ManipulationSpec) -> TrialSpec:
    """``spec`` with ``manipulation`` applied to the candidate holding response 1."""
    return spec.model_copy(update={"arm": "manipulation", "manipulation": manipulation})


def _panel_fields(config: ExperimentConfig, name: str, panel: PanelConfig) -> dict[str, Any]:
    """What one panel puts into each of its trials (seats in configured order, unrotated)."""
    seats = [
        _seat(config, seat.persona, seat.model or panel.model, seat.sampling or panel.sampling)
        for seat in panel.seats()
    ]
    return {
        "seats": tuple(seats),
        "discussion_rounds": panel.discussion_rounds,
        "max_reasks": panel.max_reasks,
        "consensus": panel.consensus,
        "moderator": (
            _seat(config, panel.moderator, panel.model, panel.sampling)
            if panel.consensus == "moderator"
            else None
        ),
        "final_vote": panel.final_vote,
        "answer_format": panel.answer_format,
        "panel": name if config.multi_panel else None,
    }


def _iter_design(
    config: ExperimentConfig,
    scenarios: Sequence[DerivedScenario],
    identities: IdentitySet,
) -> Iterator[TrialSpec]:
    """Every unit of the design, judged by each panel in turn: the panels' trials of one unit
    differ only in the panel's own fields, so they can be paired trial by trial."""
    panels = [_panel_fields(config, name, panel) for name, panel in config.panel_items()]
    common: dict[str, Any] = {
        "label_position": config.identities.label_position,
        "label_wording": config.identities.label_wording,
        "responder_model": config.responder_spec.id,
        "seed": config.seed,
    }
    singles = _single_plan(config, identities) if "single" in config.protocols else []
    pairs = _pair_plan(config, identities) if "pair" in config.protocols else []
    members = [identity for _, identity in singles] + [x for *_, a, b in pairs for x in (a, b)]
    labelled = {(identity.category, identity.label): identity for identity in members}
    # each panel's fields in each of its speaker orders (rotations), made once
    rotations = [
        [
            {**panel, "seats": _rotate(panel["seats"], k), **common}
            for k in range(len(panel["seats"]))
        ]
        for panel in panels
    ]

    def specs(unit: dict[str, Any], offsets: dict[Any, int], **fields: Any) -> Iterator[TrialSpec]:
        shown = tuple(sorted(fields["response_indices"]))
        for rotated in rotations:
            if (shown, len(rotated)) not in offsets:
                offsets[shown, len(rotated)] = _speaker_offset(
                    config.seed, unit["scenario_id"], shown, unit["signal"], unit["replicate"],
                    size=len(rotated),
                )  # fmt: skip
            order = offsets[shown, len(rotated)]
            yield TrialSpec.model_validate({**rotated[order], **unit, **fields})

    for treatment, replicate, scenario, signal in itertools.product(
        config.treatments, range(config.replicates), scenarios, config.identities.signals
    ):
        unit = {
            "scenario_id": scenario.id,
            "base_id": scenario.base_id,
            "treatment": treatment.name,
            "judge_instruction": treatment.judge_instruction,
            "replicate": replicate,
            "signal": signal,
        }
        # the unit's speaker orders, by responses shown and panel size, and each label's author
        offsets: dict[Any, int] = {}
        shown_as = {
            who: _author(identity, signal, config.seed, scenario.id, replicate)
            for who, identity in labelled.items()
        }
        for arm, identity in singles:
            author = shown_as[identity.category, identity.label]
            if author is None or (arm == "placebo" and signal != "explicit"):
                continue
            yield from specs(
                unit, offsets, protocol="single", arm=arm, category=identity.category,
                identities=(identity.label,), authors=(author,), response_indices=(1,),
            )  # fmt: skip
        for arm, category, first, second in pairs:
            if arm == "placebo" and signal != "explicit":
                continue
            by_label = {first.label: first, second.label: second}
            for labels, responses in _arrangements(
                config, scenario.id, first.label, second.label, replicate
            ):
                authors = tuple(shown_as[by_label[label].category, label] for label in labels)
                if any(author is None for author in authors):
                    continue
                yield from specs(
                    unit, offsets, protocol="pair", arm=arm, category=category,
                    identities=labels, authors=authors, response_indices=responses,
                )  # fmt: skip
