"""What a simulation is asked to do: the design sizes, planted shifts and the simulated judges'
random effects, and the random-effects panel those settings describe."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from fairpanel.analysis import METRICS, OVERALL
from fairpanel.judging.simulate._panel_model import PanelModel
from fairpanel.judging.simulate._runs import JudgeEffects, Target

__all__ = ["DEFAULT_EFFECTS", "SimulationSettings", "panel_model"]


DEFAULT_EFFECTS = JudgeEffects(
    label_base_sd=0.2,
    position_base_sd=0.15,
    judge_leniency_sd=0.5,
    halo_sd=1.0,
    trial_noise_sd=0.5,
)
"""Judges harder than the mock alone: preferences that vary by base scenario around zero (0.2
points per identity, so a two-label contrast varies with sd 0.28 points, about 0.35 logits on pair
verdicts, the spread the issue's outside judge had; a first-position share of +-0.15, about 0.3
logits), judges that differ in leniency, a halo that correlates the four metrics of a judgment
(about 0.55 with the default noise of +-1, measured on the mock; the audit puts real judges at
0.6-0.9), and noise all judges of a trial share (two judges' scores of one answer correlate
about 0.3). A score's sd is then about 1.9 points."""


@dataclass(frozen=True)
class SimulationSettings:
    sizes: tuple[float, ...] = (0.0, 0.25, 0.5, 1.0)
    reps: int = 200
    alpha: float = 0.05
    seed: int = 0
    scales: tuple[float, ...] = (0.5, 1.0, 2.0)
    metric: str = OVERALL
    """The metric the planted shift goes to; ``overall`` shifts all four."""
    noise: int = 1
    """The mock's uniform integer noise per score, +-noise (independent per metric and judge)."""
    first_position_bias: float = 0.0
    """The planted first-position share (signed; negative favours the second position)."""
    effects: JudgeEffects = DEFAULT_EFFECTS
    max_trials: int = 1000
    jobs: int = 2
    engine: str = "panel"
    """``panel``: judges drawn from the random-effects model straight into frames
    (``_panel_model``, milliseconds a run); ``mock``: every judgment asked of the mock provider
    (seconds a run; the same effects, through the real request and parsing path)."""
    panels: int | None = None
    """Panels judging the same trials (``_panels``); 2 or more adds the panel comparison.
    None: as many as the experiment has."""
    panel_correlation: float = 0.5
    """The correlation between panels of each base scenario's label and position pulls."""


def _uniform_sd(noise: int) -> float:
    """The sd of a uniform integer on -noise..noise (the mock's score noise)."""
    return math.sqrt(((2 * noise + 1) ** 2 - 1) / 12.0)


def panel_model(settings: SimulationSettings, targets: Sequence[Target], size: float) -> PanelModel:
    """The random-effects panel with the settings' effects and ``size`` points planted on every
    target's identity (on the settings' metric, or all four)."""
    effects = settings.effects
    metrics = list(METRICS) if settings.metric == OVERALL else [settings.metric]
    return PanelModel(
        noise_sd=_uniform_sd(settings.noise),
        leniency_sd=effects.judge_leniency_sd,
        halo_sd=effects.halo_sd,
        shared_sd=effects.trial_noise_sd,
        label_base_sd=effects.label_base_sd,
        position_base_sd=effects.position_base_sd,
        first_position=settings.first_position_bias,
        planted={t.planted: dict.fromkeys(metrics, size) for t in targets} if size else {},
    )
