"""Does a treatment change the bias? The treatment x label interaction, not two verdicts.

"Significant under the baseline, not under the debiasing prompt" does not show that the prompt
works: the two verdicts can differ by chance. The design runs every treatment on the same
scenarios, responses and arrangements, so each primary contrast can be matched unit by unit
across treatments; the interaction is the mean over base scenarios of (contrast under the
treatment - contrast under the baseline), tested like every other contrast (``tools._cluster``) and
corrected by Holm over the interactions of a run.
"""

from __future__ import annotations

import pandas as pd

from fairpanel.analysis._frames import BASE_ID, OVERALL
from fairpanel.analysis.tools import cluster_mean_test
from fairpanel.analysis.verdict._effects import (
    INTERACTION,
    Effect,
    correct_effects,
    tested_by,
)
from fairpanel.analysis.verdict._matched import (
    SCALES,
    ArmFrames,
    Contrast,
    contrast_units,
    match_units,
    primary_contrasts,
)

__all__ = ["ArmFrames", "treatment_interactions"]

FAMILY = "treatment x label interaction"
TREATMENT = "treatment"


def _interaction(
    baseline: pd.DataFrame,
    treated: pd.DataFrame,
    keys: list[str],
    contrast: Contrast,
    treatment: str,
    confidence: float,
) -> Effect | None:
    protocol, category, identity, versus = contrast
    matched = match_units(baseline, treated, keys, ignore=(TREATMENT,))
    if matched.empty:
        return None
    values = (matched["second"] - matched["first"]).to_numpy(float)
    test = cluster_mean_test(values, matched[BASE_ID].to_numpy(), confidence=confidence)
    what = (
        "the panel's overall score difference"
        if protocol == "single"
        else "the panel's label-swap contrast"
    )
    return Effect(
        **tested_by(test),
        id=f"interaction:{treatment}:{protocol}:{category}:{identity}-{versus}",
        family=FAMILY,
        protocol=protocol,
        category=category,
        metric=OVERALL if protocol == "single" else "win_rate",
        judge=None,
        contrast=f"({identity} - {versus}) under {treatment} minus under the baseline",
        identity=identity,
        versus=versus,
        confidence=confidence,
        scale=SCALES[protocol],
        cohen_h=None,
        method=(
            f"{what} for each unit matched across treatments (same scenario, responses, order, "
            f"replicate and signal), under {treatment} minus under the baseline; "
            f"{test.describe(confidence)}; a negative estimate means the treatment moved the "
            f"contrast towards {versus}"
        ),
        role=INTERACTION,
    )


def treatment_interactions(
    baseline: ArmFrames,
    treated: ArmFrames,
    *,
    treatment: str,
    alpha: float = 0.05,
    confidence: float = 0.95,
) -> list[Effect]:
    """The interaction of ``treatment`` with every primary contrast, Holm-corrected together.

    To correct the interactions of several treatments together, concatenate the lists of each
    treatment and pass them to ``correct_effects`` again.
    """
    effects: list[Effect] = []
    for contrast in sorted(primary_contrasts(baseline) & primary_contrasts(treated)):
        (units_baseline, keys), (units_treated, _) = (
            contrast_units(baseline, contrast),
            contrast_units(treated, contrast),
        )
        effect = _interaction(units_baseline, units_treated, keys, contrast, treatment, confidence)
        if effect is not None:
            effects.append(effect)
    corrected, _ = correct_effects(effects, alpha)
    return corrected
