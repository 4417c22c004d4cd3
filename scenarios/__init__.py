"""Built-in scenario tree (base scenarios and their derived prompts) and its loaders."""

from ._load import builtin_scenarios_dir, derived_scenarios, load_scenarios
from ._model import BaseScenario, DerivedScenario, Variation

__all__ = [
    "BaseScenario",
    "DerivedScenario",
    "Variation",
    "builtin_scenarios_dir",
    "derived_scenarios",
    "load_scenarios",
]
