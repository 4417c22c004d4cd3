"""An experiment's design answered by the mock judge, in memory, for calibration by simulation.

``fairpanel simulate`` needs hundreds of simulated runs of one design, so it cannot afford the
AutoGen debate (a few milliseconds per call). Every judge here answers each trial once, with the
request the panel sends in its independent first round (the real prompt builders, the real mock
provider, the real answer parser and consensus rule); that answer stands for the judge's final
one. This is exact for the mock, whose answers never depend on the discussion: each round is an
independent draw from the same distribution. Records go into an in-memory ``Store`` and come
back out through ``load_frames``, so the analysis reads exactly what it reads after a real run.

Each simulated run also draws, per base scenario, how far its judges' label and position
preferences stray from the planted ones (``scenario_biases``): a preference that varies by
scenario and averages to zero is no bias, and the analysis must not call it one.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from fairpanel.agents import Message, MockBias, ModelRequest, ModelSpec, Usage, mock_reply
from fairpanel.judging.engine._design import Design, design_of
from fairpanel.judging.experiment._checks import selected_bases_from
from fairpanel.judging.experiment._config import ExperimentConfig, JudgeSeat
from fairpanel.judging.experiment._design import TrialSpec
from fairpanel.judging.protocol._consensus import consensus_of
from fairpanel.judging.protocol._judgment import METRICS, output_schema, parse_judgment
from fairpanel.judging.protocol._prompts import (
    judge_ask,
    judge_context,
    responder_messages,
    rewrite_messages,
)
from fairpanel.judging.protocol._records import TrialRecord, TurnRecord
from fairpanel.judging.store import RunFrames, Store, load_frames

__all__ = [
    "MOCK_JUDGE",
    "DesignScale",
    "JudgeEffects",
    "PreparedDesign",
    "Target",
    "design_scales",
    "identity_cues",
    "mock_config",
    "planted_bias",
    "prepare_design",
    "scaled",
    "scenario_biases",
    "simulate_frames",
    "targets_of",
    "trial_keys",
]

MOCK_JUDGE = "simulated-judge"
MOCK_RESPONDER = "mock/responder"


@dataclass(frozen=True)
class Target:
    """Where an effect is planted: ``planted`` gets the shift, ``reference`` is its contrast."""

    category: str
    planted: str
    reference: str
    cues: tuple[str, ...]
    """What the mock matches in a candidate's author line: the label and its name cues."""


@dataclass(frozen=True)
class DesignScale:
    """One simulated design size: derived scenarios per base x replicates."""

    factor: float
    derived_per_base: int
    replicates: int

    @property
    def units_per_base(self) -> int:
        return self.derived_per_base * self.replicates


def mock_config(config: ExperimentConfig) -> ExperimentConfig:
    """``config`` with every model replaced by the mock, the main arm and the baseline treatment
    only (the headline analysis covers nothing else), and no prices."""
    first = config.first_panel
    seats = [JudgeSeat(persona=seat.persona) for seat in first.seats()]
    return config.model_copy(
        update={
            "models": {MOCK_JUDGE: ModelSpec(id="mock/judge")},
            "prices": {},
            "responder": config.responder.model_copy(update={"model": MOCK_RESPONDER}),
            "panel": first.model_copy(update={"model": MOCK_JUDGE, "judges": seats}),
            "panels": None,
            "panel_models": None,
            "arms": config.arms.model_copy(
                update={
                    "placebo": False,
                    "same_label": False,
                    "injection": False,
                    "manipulations": [],
                }
            ),
            "treatments": config.treatments[:1],
        }
    )


def targets_of(design: Design) -> list[Target]:
    """One planted identity per category with at least two (its first), against the second."""
    targets = []
    categories = dict.fromkeys(
        [*design.config.identities.categories, *(design.config.pair.categories or [])]
    )
    for name in categories:
        members = design.identities.category(name).identities
        if len(members) < 2:
            continue
        planted = members[0]
        targets.append(
            Target(
                category=name,
                planted=planted.label,
                reference=members[1].label,
                cues=(planted.label, *planted.names),
            )
        )
    return targets


def identity_cues(design: Design) -> dict[str, tuple[str, ...]]:
    """Every identity of every category with at least two: its label -> what the mock matches
    in an author line (the label and its name cues)."""
    categories = dict.fromkeys(
        [*design.config.identities.categories, *(design.config.pair.categories or [])]
    )
    cues: dict[str, tuple[str, ...]] = {}
    for name in categories:
        members = design.identities.category(name).identities
        if len(members) >= 2:
            cues.update({member.label: (member.label, *member.names) for member in members})
    return cues


@dataclass(frozen=True)
class JudgeEffects:
    """The simulated judges' random effects, in score points (position: a share of verdicts).

    ``label_base_sd`` and ``position_base_sd`` vary the judges' preferences between base
    scenarios around the planted ones (mean zero: no bias on average); the other three are the
    mock's own (``MockBias``): per judge, per judgment across metrics, per trial across judges.
    """

    label_base_sd: float = 0.0
    position_base_sd: float = 0.0
    judge_leniency_sd: float = 0.0
    halo_sd: float = 0.0
    trial_noise_sd: float = 0.0


def planted_bias(
    targets: Sequence[Target],
    size: float,
    metrics: Sequence[str],
    *,
    seed: int,
    noise: int,
    first_position_bias: float,
    effects: JudgeEffects = JudgeEffects(),
) -> MockBias:
    """The mock judge with ``size`` points added to ``metrics`` of every planted identity
    (fractions dithered, so the expected shift is ``size``), its own noise seed and the
    judge-level random effects of ``effects``."""
    shift = {metric: size for metric in metrics}
    return MockBias(
        score_shift={cue: shift for target in targets for cue in target.cues} if size else {},
        dither=True,
        seed=seed,
        noise=noise,
        first_position_bias=first_position_bias,
        judge_leniency_sd=effects.judge_leniency_sd,
        halo_sd=effects.halo_sd,
        trial_noise_sd=effects.trial_noise_sd,
    )


def scenario_biases(
    planted: MockBias,
    bases: Sequence[str],
    cues: Mapping[str, tuple[str, ...]],
    effects: JudgeEffects,
) -> dict[str, MockBias]:
    """One mock judge per base scenario: the planted one, plus that base's own preferences.

    Each base draws, for every identity, a shift N(0, label_base_sd) added to all four metrics
    of that identity, and a first-position share N(0, position_base_sd) added to the planted
    one (kept within [-1, 1]). A base's draws come from the planted bias's seed and the base's
    name alone (labels in sorted order), so every planted size and design size of one
    repetition sees the same preferences (common random numbers) and a run is reproducible."""
    biases = {}
    for base in sorted(bases):
        named = int.from_bytes(hashlib.sha256(base.encode("utf-8")).digest()[:8], "big")
        rng = np.random.default_rng([planted.seed % 2**63, 0x5CE7A, named])
        labels = rng.normal(0.0, 1.0, len(cues)) * effects.label_base_sd
        position = float(rng.normal(0.0, 1.0)) * effects.position_base_sd
        score_shift = {cue: dict(shifts) for cue, shifts in planted.score_shift.items()}
        for (_label, label_cues), drawn in zip(sorted(cues.items()), labels, strict=True):
            for cue in label_cues:
                shifts = score_shift.setdefault(cue, {})
                for metric in METRICS:
                    shifts[metric] = shifts.get(metric, 0.0) + float(drawn)
        first = max(-1.0, min(1.0, planted.first_position_bias + position))
        biases[base] = planted.model_copy(
            update={"score_shift": score_shift, "first_position_bias": first}
        )
    return biases


def _available_derived(config: ExperimentConfig) -> int:
    bases = selected_bases_from(config, Path.cwd())
    return min(len(base.variations) for base in bases)


def design_scales(config: ExperimentConfig, factors: Sequence[float]) -> list[DesignScale]:
    """Design sizes: the experiment's derived scenarios per base x replicates multiplied by each
    factor, filling derived scenarios first (as far as every base has them), then replicates."""
    available = _available_derived(config)
    own_derived = min(config.scenarios.derived_per_base or available, available)
    own_units = own_derived * config.replicates
    scales: dict[tuple[int, int], DesignScale] = {}
    for factor in sorted(factors):
        units = max(1, round(factor * own_units))
        derived = min(units, available)
        replicates = max(1, math.ceil(units / derived))
        scales.setdefault((derived, replicates), DesignScale(factor, derived, replicates))
    return list(scales.values())


def scaled(config: ExperimentConfig, scale: DesignScale) -> ExperimentConfig:
    return config.model_copy(
        update={
            "scenarios": config.scenarios.model_copy(
                update={"derived_per_base": scale.derived_per_base}
            ),
            "replicates": scale.replicates,
        }
    )


def _responses(design: Design) -> dict[str, dict[int, str]]:
    """Response 1 and its rewrite per scenario, from the mock responder (as the runner asks)."""
    bias = MockBias()
    texts: dict[str, dict[int, str]] = {}
    for scenario in design.scenarios:
        first = mock_reply(_request(MOCK_RESPONDER, responder_messages(scenario.prompt)), bias)
        second = mock_reply(
            _request(MOCK_RESPONDER, rewrite_messages(scenario.prompt, first.strip())), bias
        )
        texts[scenario.id] = {1: first.strip(), 2: second.strip()}
    return texts


def _request(model: str, pairs: Sequence[tuple[str, str]], **fields: object) -> ModelRequest:
    messages = tuple(Message(role=role, content=text) for role, text in pairs)
    return ModelRequest.model_validate({"model": model, "messages": messages, **fields})


def _trial_record(
    spec: TrialSpec, design: Design, task: str, responses: dict[int, str], bias: MockBias
) -> TrialRecord:
    """The trial as the runner would store it; each turn's ``call_keys`` holds the key of its
    request, as the call cache names it, so trials that sent byte-identical requests can be
    recognised as one observation."""
    shown = [responses[index] for index in spec.response_indices]
    context = judge_context(
        task,
        list(zip(spec.authors, shown, strict=True)),
        position=spec.label_position,
        wording=spec.label_wording,
    )
    instruction = f"\n\n{spec.judge_instruction}" if spec.judge_instruction else ""
    schema = output_schema(spec.protocol)
    turns, finals = [], []
    for index, seat in enumerate(spec.seats):
        persona = design.personas[seat.persona].system_message + instruction
        request = _request(
            "mock/judge",
            [("system", context), ("system", persona), ("user", judge_ask(len(shown)))],
            response_schema=schema,
            replicate=spec.replicate,
        )
        text = mock_reply(request, bias)
        judgment = parse_judgment(text, spec.protocol)
        parsed = None if isinstance(judgment, str) else judgment
        if parsed is not None:
            finals.append(parsed)
        turns.append(
            TurnRecord(
                round=0,
                round_kind="final",
                judge=seat.persona,
                speaker_index=index,
                judge_model=seat.model_id,
                raw_text=text,
                parsed=None if parsed is None else parsed.model_dump(),
                parse_error=judgment if isinstance(judgment, str) else None,
                attempts=1,
                usage=Usage(),
                latency_s=0.0,
                call_keys=[request.key()],
            )
        )
    rule = "mean" if spec.consensus == "moderator" else spec.consensus
    return TrialRecord(
        key=spec.key(),
        protocol=spec.protocol,
        spec=spec.model_dump(mode="json"),
        status="ok" if finals else "failed",
        error=None if finals else "no judge gave a valid answer",
        consensus=consensus_of(finals, len(spec.seats), rule) if finals else None,
        turns=turns,
    )


@dataclass(frozen=True)
class PreparedDesign:
    """What every simulated run of one design shares: the trials, the scenarios' tasks and the
    mock responder's answers (they do not depend on the judge's planted bias)."""

    design: Design
    specs: list[TrialSpec]
    tasks: dict[str, str]
    responses: dict[str, dict[int, str]]


def prepare_design(config: ExperimentConfig) -> PreparedDesign:
    """``config`` (already mocked) built once, to be answered by many mock judges."""
    design = design_of(config)
    return PreparedDesign(
        design=design,
        specs=list(design.trials()),
        tasks={scenario.id: scenario.prompt for scenario in design.scenarios},
        responses=_responses(design),
    )


def simulate_frames(prepared: PreparedDesign, bias: MockBias | Mapping[str, MockBias]) -> RunFrames:
    """The frames a run of the prepared design would store with the mock ``bias``: one for
    every trial, or one per base scenario (``scenario_biases``)."""
    design, tasks, responses = prepared.design, prepared.tasks, prepared.responses
    store = Store(Path(":memory:"))
    try:
        for spec in prepared.specs:
            task, shown = tasks[spec.scenario_id], responses[spec.scenario_id]
            judge = bias if isinstance(bias, MockBias) else bias[spec.base_id]
            store.put_trial(_trial_record(spec, design, task, shown, judge))
        return load_frames(store)
    finally:
        store.close()


def trial_keys(config: ExperimentConfig) -> set[str]:
    """The keys of every trial of ``config`` (to pick a smaller design out of a larger one)."""
    return {spec.key() for spec in design_of(config).trials()}
