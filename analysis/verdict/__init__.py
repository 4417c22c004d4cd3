"""Does the label move the panel? The identity contrasts and their families, the headline
verdict, position bias, the control arms and treatment x label interactions.
"""

from fairpanel.analysis.verdict._controls import control_false_positives, same_label_swap_tests
from fairpanel.analysis.verdict._effects import (
    PRIMARY,
    Effect,
    Family,
    cohen_h,
    correct_effects,
    headline,
)
from fairpanel.analysis.verdict._interactions import treatment_interactions
from fairpanel.analysis.verdict._matched import (
    SCALES,
    ArmFrames,
    Contrast,
    contrast_units,
    match_units,
    primary_contrasts,
)
from fairpanel.analysis.verdict._pair_verdicts import (
    label_swaps,
    pair_outcomes,
    pair_verdict_effects,
)
from fairpanel.analysis.verdict._paired import (
    paired_differences,
    panel_scores,
    single_score_effects,
    with_design_columns,
)
from fairpanel.analysis.verdict._position import (
    SECOND_RESPONSE_INDEX,
    TWIN,
    order_consistency,
    order_twins,
    position_bias,
)

__all__ = [
    "PRIMARY",
    "SCALES",
    "SECOND_RESPONSE_INDEX",
    "TWIN",
    "ArmFrames",
    "Contrast",
    "Effect",
    "Family",
    "cohen_h",
    "contrast_units",
    "control_false_positives",
    "correct_effects",
    "headline",
    "label_swaps",
    "match_units",
    "order_consistency",
    "order_twins",
    "pair_outcomes",
    "pair_verdict_effects",
    "paired_differences",
    "panel_scores",
    "position_bias",
    "primary_contrasts",
    "same_label_swap_tests",
    "single_score_effects",
    "treatment_interactions",
    "with_design_columns",
]
