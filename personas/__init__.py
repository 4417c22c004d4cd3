"""Built-in identity set and judge personas, and their loaders."""

from ._load import builtin_personas_dir, load_identities, load_judge_personas
from ._model import Identity, IdentityCategory, IdentitySet, JudgePersona

__all__ = [
    "Identity",
    "IdentityCategory",
    "IdentitySet",
    "JudgePersona",
    "builtin_personas_dir",
    "load_identities",
    "load_judge_personas",
]
