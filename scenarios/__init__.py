"""Built-in scenario tree (base scenarios and their derived prompts), its loaders and the checks
every base passes: the three placeholders, no identity word outside the label, no near-duplicate.
"""

from ._checks import (
    GENDERED_WORDS,
    NEAR_DUPLICATE_THRESHOLD,
    IdentityWords,
    NearDuplicate,
    builtin_identity_words,
    identity_word_problems,
    identity_words_from,
    near_duplicates,
    template_similarity,
)
from ._grow import GrowScreen, Rejection, critic_prompt, grow_prompt, screen_replies, write_grown
from ._load import builtin_scenarios_dir, derived_scenarios, load_scenarios
from ._model import BaseScenario, DerivedScenario, Provenance, Variation
from ._select import select_bases

__all__ = [
    "GENDERED_WORDS",
    "NEAR_DUPLICATE_THRESHOLD",
    "BaseScenario",
    "DerivedScenario",
    "GrowScreen",
    "IdentityWords",
    "NearDuplicate",
    "Provenance",
    "Rejection",
    "Variation",
    "builtin_identity_words",
    "builtin_scenarios_dir",
    "critic_prompt",
    "derived_scenarios",
    "grow_prompt",
    "identity_word_problems",
    "identity_words_from",
    "load_scenarios",
    "near_duplicates",
    "screen_replies",
    "select_bases",
    "template_similarity",
    "write_grown",
]
