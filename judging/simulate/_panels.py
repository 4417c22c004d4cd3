"""Several simulated panels judging the very same trials, for the panel comparison.

A multi-panel run has every panel judge the same units, and what the units bring is shared:
the answers (their quality) and each base scenario's content. Real judges on the same
candidates react to that content partly alike: judges trained on similar data are pulled toward
the same label or position by the same scenario, though not identically. So every panel here
scores the same answers, and each base scenario's label and position pulls are drawn per panel
from standard normals correlated ``correlation`` between every two panels (a common part
weighted sqrt(rho) plus the panel's own weighted sqrt(1 - rho)), each panel scaling them by its
model's standard deviations. At 1 the panels would differ only in their judges' noise; at 0
they share only the answers, the hardest case for the paired analysis, since pairing then
cancels nothing a scenario's content brings. What the judges bring is each panel's own: their
leniency, halo, debate-shared noise, score noise and position-decided verdicts.

The planted difference: panel b (the second) gets the planted shift on the planted identity of
each category, every other panel none; at size 0 the panels have equal bias.
"""

from __future__ import annotations

import math
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from fairpanel.analysis import METRICS
from fairpanel.judging.experiment import ExperimentConfig
from fairpanel.judging.simulate._panel_model import (
    PanelModel,
    ScenarioDraws,
    TrialTable,
    model_frames,
)
from fairpanel.judging.store import RunFrames

__all__ = [
    "PLANTED_PANEL",
    "SimulatedPanel",
    "panel_frames",
    "scenario_draws",
    "simulated_panels",
    "subset_frames",
]

PLANTED_PANEL = 1
"""The index of the panel that gets the planted shift (panel b); panel a (index 0) gets none."""
_STREAM = 0x9A2E15
"""Mixed into every seed of the panel comparison, so its draws are not the single-panel run's."""


@dataclass(frozen=True)
class SimulatedPanel:
    """One simulated panel: its name and its judges (the personas of its seats)."""

    name: str
    judges: tuple[str, ...]


def _judges(personas: Iterable[str]) -> tuple[str, ...]:
    """Seat names unique within a panel (a persona seated twice is two judges)."""
    seen: dict[str, int] = {}
    names = []
    for persona in personas:
        seen[persona] = seen.get(persona, 0) + 1
        names.append(persona if seen[persona] == 1 else f"{persona}#{seen[persona]}")
    return tuple(names)


def simulated_panels(config: ExperimentConfig, count: int) -> list[SimulatedPanel]:
    """The panels to simulate: the experiment's first ``count``, named and seated as it names
    and seats them; panels beyond the experiment's are named panel-<letter> and seated like
    its panels in turn (a one-panel experiment is compared with copies of itself, other judges
    in the same seats: panel-a, panel-b, ...)."""
    items = [
        (name, _judges(seat.persona for seat in panel.seats()))
        for name, panel in config.panel_items()
    ]
    if not items:
        raise ValueError("the experiment has no panel")
    named = items if config.multi_panel else []
    panels = []
    for index in range(count):
        letter = string.ascii_lowercase[index % 26]
        name = named[index][0] if index < len(named) else f"panel-{letter}"
        panels.append(SimulatedPanel(name, items[index % len(items)][1]))
    return panels


def scenario_draws(
    table: TrialTable,
    model: PanelModel,
    panels: int,
    correlation: float,
    rng: np.random.Generator,
) -> list[ScenarioDraws]:
    """One ``ScenarioDraws`` per panel: the same answer quality (``model``'s spreads), and
    label and position pulls per base scenario correlated ``correlation`` between panels."""
    if not 0.0 <= correlation <= 1.0:
        raise ValueError(f"correlation must be between 0 and 1, got {correlation!r}")
    quality = rng.normal(0, model.quality_sd, table.n_answers)[:, None] + rng.normal(
        0, model.quality_metric_sd, (table.n_answers, len(METRICS))
    )
    label_shape = (table.n_bases, len(table.labels))
    common_label = rng.standard_normal(label_shape)
    common_position = rng.standard_normal(table.n_bases)
    shared, own = math.sqrt(correlation), math.sqrt(1.0 - correlation)
    return [
        ScenarioDraws(
            quality=quality,
            label=shared * common_label + own * rng.standard_normal(label_shape),
            position=shared * common_position + own * rng.standard_normal(table.n_bases),
        )
        for _ in range(panels)
    ]


def _named(frames: RunFrames, name: str) -> RunFrames:
    return RunFrames(
        frames.scores.assign(panel=name),
        frames.verdicts.assign(panel=name),
        frames.turns.assign(panel=name),
        frames.consensus.assign(panel=name),
    )


def panel_frames(
    table: TrialTable,
    panels: Sequence[SimulatedPanel],
    models: Sequence[PanelModel],
    correlation: float,
    seed: int,
) -> dict[str, RunFrames]:
    """Every panel's frames of ``table``'s trials (panel name -> frames, in ``panels``'
    order): the trials' draws shared as ``scenario_draws`` makes them, each panel judged by
    its own judges drawn from its model. Trial keys are the design's, the same in every
    panel's frames (the ``panel`` column names the panel)."""
    rng = np.random.default_rng([seed, _STREAM])
    draws = scenario_draws(table, models[0], len(panels), correlation, rng)
    frames = {}
    for index, (panel, model, shared) in enumerate(zip(panels, models, draws, strict=True)):
        own = replace(table, judges=list(panel.judges))
        drawn = model_frames(own, model, [seed, _STREAM, index + 1], shared)
        frames[panel.name] = _named(drawn, panel.name)
    return frames


def subset_frames(frames: RunFrames, keys: set[str]) -> RunFrames:
    """The frames of the trials whose keys are in ``keys`` (a smaller design's trials)."""

    def keep(frame: pd.DataFrame) -> pd.DataFrame:
        return frame.loc[frame["trial_key"].isin(keys)].reset_index(drop=True)

    return RunFrames(
        keep(frames.scores), keep(frames.verdicts), keep(frames.turns), keep(frames.consensus)
    )
