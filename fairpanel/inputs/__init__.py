"""Input files: strict YAML parsed into pydantic models, with errors that point at the line."""

from fairpanel.inputs._guard import MAX_DEPTH, MAX_EXPANDED_NODES, structure_problems
from fairpanel.inputs._yaml import (
    InputFileError,
    Location,
    Problem,
    load_yaml_model,
    parse_yaml_model,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_EXPANDED_NODES",
    "InputFileError",
    "Location",
    "Problem",
    "load_yaml_model",
    "parse_yaml_model",
    "structure_problems",
]
