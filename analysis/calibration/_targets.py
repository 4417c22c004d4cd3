"""The targets calibration reads power against, apart from the statistics so that a command
line option's default does not load them."""

__all__ = ["RECOMMEND_SIZE", "TARGET_POWER"]

TARGET_POWER = 0.8
RECOMMEND_SIZE = 0.25
"""The planted shift (score points) the recommended design must detect."""
