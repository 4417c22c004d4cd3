"""fairpanel: measure identity bias in LLM judges and multi-agent judge panels."""

from fairpanel.inputs import InputFileError, Location, Problem, load_yaml_model, parse_yaml_model

__all__ = [
    "InputFileError",
    "Location",
    "Problem",
    "__version__",
    "load_yaml_model",
    "parse_yaml_model",
]

__version__ = "0.1.0"
