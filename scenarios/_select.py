"""Which base scenarios a run takes from a library: by id, by domain, then a seeded sample.

A library of many bases is the point (the base scenario is the unit of inference), yet a run
may want one domain, or a number it can afford; a sample drawn with the experiment's seed keeps
the choice the same on every rerun and resume.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal

from ._model import BaseScenario

__all__ = ["select_bases"]


def select_bases(
    bases: Sequence[BaseScenario],
    *,
    ids: Sequence[str] | Literal["all"] = "all",
    domains: Sequence[str] = (),
    sample: int | None = None,
    seed: int = 0,
) -> list[BaseScenario]:
    """The bases named by ``ids`` (or all), of the ``domains`` (or any), then ``sample`` of
    them drawn with ``seed``; always in library order."""
    chosen = list(bases)
    if ids != "all":
        wanted = set(ids)
        chosen = [b for b in chosen if b.id in wanted]
    if domains:
        kept = set(domains)
        chosen = [b for b in chosen if b.domain in kept]
    if sample is not None and sample < len(chosen):
        drawn = set(
            random.Random(f"{seed}:scenarios.sample").sample(sorted(b.id for b in chosen), sample)
        )
        chosen = [b for b in chosen if b.id in drawn]
    return chosen
