"""The scenario-grow study: a model writes base scenarios for a user's domain, a critic may
review them, and the library's checks keep the good ones (``fairpanel scenarios grow``)."""

from ._study import ScenarioGrow, ScenarioGrowConfig, grown_screen

__all__ = [
    "ScenarioGrow",
    "ScenarioGrowConfig",
    "grown_screen",
]
