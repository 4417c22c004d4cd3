"""Statistics over stored judge records: does the panel's scoring depend on the identity label?

Pure functions over the pandas frames the judging package stores (``scores``, ``verdicts``,
``turns``; column names in ``SCORE_COLUMNS``, ``VERDICT_COLUMNS``, ``TURN_COLUMNS``). Nothing
here calls a model, so a report can be recomputed from disk at any time. Results are small
dataclasses with ``to_dict()``; ``analyze_arm`` assembles them into the typed blocks of
results.json (``RunResults``), which the report and the terminal tables read.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairpanel.analysis._frames import (
        CATEGORY,
        IDENTITY,
        METRIC,
        METRICS,
        OVERALL,
        PROTOCOLS,
        ROUND_KINDS,
        SCORE,
        SCORE_COLUMNS,
        TURN_COLUMNS,
        VERDICT_COLUMNS,
    )
    from fairpanel.analysis._statistics import (
        ReportPart,
        design_parts,
        verdict_statistics,
    )
    from fairpanel.analysis._summary import (
        analyze,
        analyze_arm,
        arm_parts,
        arm_results,
    )
    from fairpanel.analysis.calibration import (
        TARGET_POWER,
        VarianceComponents,
        calibration_tables,
        contrast_components,
        identity_test_outcomes,
        panel_calibration_tables,
        panel_test_outcomes,
    )
    from fairpanel.analysis.judges import (
        FailureRate,
        agreement,
        conformity,
        debate_shift,
        failure_rates,
        failure_rates_by_identity,
        krippendorff_alpha,
    )
    from fairpanel.analysis.malibu import (
        MIN_INTERVAL_N,
        ChiSquareResult,
        ScoreDifferenceMatrix,
        ScoreDistributionCell,
        WinRate,
        baseline_scores,
        bradley_terry,
        chi_square_tests,
        mean_interval,
        mean_scores,
        no_preference_level,
        score_difference_matrix,
        score_distribution,
        win_rates,
    )
    from fairpanel.analysis.manipulations import (
        INJECTION_COLUMNS,
        MANIPULATION_COLUMNS,
        InjectionShift,
        bias_profile,
        injection_shifts,
        moved_by_injection,
        self_preference,
    )
    from fairpanel.analysis.panels import (
        SORT_COLUMNS,
        RunInputs,
        compare_paired,
        compare_runs,
        design_differences,
        leaderboard_row,
        panel_differences,
        panel_ranks,
        ranked_rows,
        sort_block,
    )
    from fairpanel.analysis.results import (
        AgreementRow,
        ArmResults,
        BiasProfileRow,
        BradleyTerryAbility,
        BradleyTerryFit,
        BradleyTerryTerm,
        ChiSquareRow,
        ConformityRow,
        ControlFalsePositives,
        DebateBlock,
        DebateShiftRow,
        DesignBlock,
        EffectRow,
        FailureByIdentityRow,
        FailureRow,
        FamilyRow,
        HeadlineBlock,
        InjectionShiftRow,
        LabelSwapTests,
        MeanScoreRow,
        MeanScoresBlock,
        PairBlock,
        PanelComparison,
        PanelComparisonBlock,
        PanelDifferenceRow,
        PositionBiasBlock,
        RankInterval,
        RunResults,
        ScoreDifferenceBlock,
        SelfPreferenceRow,
        SingleBlock,
        WinRateRow,
        panel_summary,
    )
    from fairpanel.analysis.tools import (
        DEFAULT_BOOTSTRAP,
        MIN_BASES,
        ClusterTest,
        bonferroni,
        cluster_mean_test,
        wilson_interval,
    )
    from fairpanel.analysis.verdict import (
        Effect,
        Family,
        cohen_h,
        control_false_positives,
        correct_effects,
        headline,
        label_swaps,
        order_consistency,
        pair_outcomes,
        pair_verdict_effects,
        paired_differences,
        position_bias,
        same_label_swap_tests,
        single_score_effects,
        treatment_interactions,
    )


__all__ = [
    "CATEGORY",
    "DEFAULT_BOOTSTRAP",
    "IDENTITY",
    "INJECTION_COLUMNS",
    "MANIPULATION_COLUMNS",
    "METRIC",
    "METRICS",
    "MIN_BASES",
    "MIN_INTERVAL_N",
    "OVERALL",
    "PROTOCOLS",
    "ROUND_KINDS",
    "SCORE",
    "SCORE_COLUMNS",
    "SORT_COLUMNS",
    "TARGET_POWER",
    "TURN_COLUMNS",
    "VERDICT_COLUMNS",
    "AgreementRow",
    "ArmResults",
    "BiasProfileRow",
    "BradleyTerryAbility",
    "BradleyTerryFit",
    "BradleyTerryTerm",
    "ChiSquareResult",
    "ChiSquareRow",
    "ClusterTest",
    "ConformityRow",
    "ControlFalsePositives",
    "DebateBlock",
    "DebateShiftRow",
    "DesignBlock",
    "Effect",
    "EffectRow",
    "FailureByIdentityRow",
    "FailureRate",
    "FailureRow",
    "Family",
    "FamilyRow",
    "HeadlineBlock",
    "InjectionShift",
    "InjectionShiftRow",
    "LabelSwapTests",
    "MeanScoreRow",
    "MeanScoresBlock",
    "PairBlock",
    "PanelComparison",
    "PanelComparisonBlock",
    "PanelDifferenceRow",
    "PositionBiasBlock",
    "RankInterval",
    "ReportPart",
    "RunInputs",
    "RunResults",
    "ScoreDifferenceBlock",
    "ScoreDifferenceMatrix",
    "ScoreDistributionCell",
    "SelfPreferenceRow",
    "SingleBlock",
    "VarianceComponents",
    "WinRate",
    "WinRateRow",
    "agreement",
    "analyze",
    "analyze_arm",
    "arm_parts",
    "arm_results",
    "baseline_scores",
    "bias_profile",
    "bonferroni",
    "bradley_terry",
    "calibration_tables",
    "chi_square_tests",
    "cluster_mean_test",
    "cohen_h",
    "compare_paired",
    "compare_runs",
    "conformity",
    "contrast_components",
    "control_false_positives",
    "correct_effects",
    "debate_shift",
    "design_differences",
    "design_parts",
    "failure_rates",
    "failure_rates_by_identity",
    "headline",
    "identity_test_outcomes",
    "injection_shifts",
    "krippendorff_alpha",
    "label_swaps",
    "leaderboard_row",
    "mean_interval",
    "mean_scores",
    "moved_by_injection",
    "no_preference_level",
    "order_consistency",
    "pair_outcomes",
    "pair_verdict_effects",
    "paired_differences",
    "panel_calibration_tables",
    "panel_differences",
    "panel_ranks",
    "panel_summary",
    "panel_test_outcomes",
    "position_bias",
    "ranked_rows",
    "same_label_swap_tests",
    "score_difference_matrix",
    "score_distribution",
    "self_preference",
    "single_score_effects",
    "sort_block",
    "treatment_interactions",
    "verdict_statistics",
    "wilson_interval",
    "win_rates",
]

_EXPORTS: dict[str, str] = {
    "fairpanel.analysis._frames": (
        "CATEGORY IDENTITY METRIC METRICS OVERALL PROTOCOLS ROUND_KINDS SCORE "
        "SCORE_COLUMNS TURN_COLUMNS VERDICT_COLUMNS"
    ),
    "fairpanel.analysis._statistics": "ReportPart design_parts verdict_statistics",
    "fairpanel.analysis._summary": "analyze analyze_arm arm_parts arm_results",
    "fairpanel.analysis.calibration": (
        "TARGET_POWER VarianceComponents calibration_tables contrast_components "
        "identity_test_outcomes panel_calibration_tables panel_test_outcomes"
    ),
    "fairpanel.analysis.judges": (
        "FailureRate agreement conformity debate_shift failure_rates "
        "failure_rates_by_identity krippendorff_alpha"
    ),
    "fairpanel.analysis.malibu": (
        "MIN_INTERVAL_N ChiSquareResult ScoreDifferenceMatrix ScoreDistributionCell WinRate "
        "baseline_scores bradley_terry chi_square_tests mean_interval mean_scores "
        "no_preference_level score_difference_matrix score_distribution win_rates"
    ),
    "fairpanel.analysis.manipulations": (
        "INJECTION_COLUMNS MANIPULATION_COLUMNS InjectionShift bias_profile "
        "injection_shifts moved_by_injection self_preference"
    ),
    "fairpanel.analysis.panels": (
        "SORT_COLUMNS RunInputs compare_paired compare_runs design_differences "
        "leaderboard_row panel_differences panel_ranks ranked_rows sort_block"
    ),
    "fairpanel.analysis.results": (
        "AgreementRow ArmResults BiasProfileRow BradleyTerryAbility BradleyTerryFit "
        "BradleyTerryTerm ChiSquareRow ConformityRow ControlFalsePositives DebateBlock "
        "DebateShiftRow DesignBlock EffectRow FailureByIdentityRow FailureRow FamilyRow "
        "HeadlineBlock InjectionShiftRow LabelSwapTests MeanScoreRow MeanScoresBlock "
        "PairBlock PanelComparison PanelComparisonBlock PanelDifferenceRow "
        "PositionBiasBlock RankInterval RunResults ScoreDifferenceBlock SelfPreferenceRow "
        "SingleBlock WinRateRow panel_summary"
    ),
    "fairpanel.analysis.tools": (
        "DEFAULT_BOOTSTRAP MIN_BASES ClusterTest bonferroni cluster_mean_test wilson_interval"
    ),
    "fairpanel.analysis.verdict": (
        "Effect Family cohen_h control_false_positives correct_effects headline "
        "label_swaps order_consistency pair_outcomes pair_verdict_effects "
        "paired_differences position_bias same_label_swap_tests single_score_effects "
        "treatment_interactions"
    ),
}
"""Module: the names it exports, space-separated."""

_HOME: dict[str, str] = {
    name: module for module, names in _EXPORTS.items() for name in names.split()
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOME))
