"""What an experiment designs before any call: scenarios, identities, personas and trials.

Apart from the runner, so estimating or listing a design loads no model client.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from fairpanel.judging.experiment._checks import selected_scenarios
from fairpanel.judging.experiment._config import ExperimentConfig
from fairpanel.judging.experiment._design import TrialSpec, iter_trials
from fairpanel.personas import IdentitySet, JudgePersona, load_identities, load_judge_personas
from fairpanel.scenarios import DerivedScenario

__all__ = ["Design", "design_of"]


@dataclass
class Design:
    """What an experiment needs before any call: scenarios, identities, personas, trials."""

    config: ExperimentConfig
    scenarios: list[DerivedScenario]
    identities: IdentitySet
    personas: dict[str, JudgePersona]

    def trials(self) -> Iterator[TrialSpec]:
        return iter_trials(self.config, self.scenarios, self.identities)


def design_of(config: ExperimentConfig) -> Design:
    scenarios = selected_scenarios(config, Path.cwd())
    identities = load_identities(Path(config.identities.file) if config.identities.file else None)
    personas_path = Path(config.personas_file) if config.personas_file else None
    personas = {p.name: p for p in load_judge_personas(personas_path)}
    return Design(config=config, scenarios=scenarios, identities=identities, personas=personas)
