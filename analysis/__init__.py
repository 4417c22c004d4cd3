"""Statistics over stored judge records: does the panel's scoring depend on the identity label?

Pure functions over the pandas frames the judging package stores (``scores``, ``verdicts``,
``turns``; column names in ``SCORE_COLUMNS``, ``VERDICT_COLUMNS``, ``TURN_COLUMNS``). Nothing
here calls a model, so a report can be recomputed from disk at any time. Results are small
dataclasses with ``to_dict()``; ``analyze_arm`` assembles them into the typed blocks of
results.json (``RunResults``), which the report and the terminal tables read.
"""

from fairpanel.analysis._agreement import agreement, krippendorff_alpha
from fairpanel.analysis._bradley_terry import bradley_terry
from fairpanel.analysis._calibration import TARGET_POWER, calibration_tables, identity_test_outcomes
from fairpanel.analysis._chisq import ChiSquareResult, chi_square_tests
from fairpanel.analysis._cluster import MIN_BASES, ClusterTest, cluster_mean_test
from fairpanel.analysis._compare import compare_runs, design_differences, sort_block
from fairpanel.analysis._compare_paired import compare_paired
from fairpanel.analysis._controls import control_false_positives, same_label_swap_tests
from fairpanel.analysis._debate import conformity, debate_shift
from fairpanel.analysis._distribution import MIN_INTERVAL_N, baseline_scores, mean_interval
from fairpanel.analysis._effects import Effect, Family, cohen_h, correct_effects, headline
from fairpanel.analysis._failures import FailureRate, failure_rates, failure_rates_by_identity
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
from fairpanel.analysis._injection import (
    INJECTION_COLUMNS,
    InjectionShift,
    injection_shifts,
    moved_by_injection,
)
from fairpanel.analysis._interactions import treatment_interactions
from fairpanel.analysis._leaderboard import SORT_COLUMNS, RunInputs, leaderboard_row, ranked_rows
from fairpanel.analysis._manipulations import MANIPULATION_COLUMNS, bias_profile
from fairpanel.analysis._multitest import bonferroni
from fairpanel.analysis._paired import paired_differences, single_score_effects
from fairpanel.analysis._pairs import WinRate, no_preference_level, wilson_interval, win_rates
from fairpanel.analysis._panel_block import PanelComparisonBlock, panel_summary
from fairpanel.analysis._panel_calibration import panel_calibration_tables, panel_test_outcomes
from fairpanel.analysis._panel_differences import panel_differences
from fairpanel.analysis._panel_ranks import panel_ranks
from fairpanel.analysis._panel_rows import PanelComparison, PanelDifferenceRow, RankInterval
from fairpanel.analysis._position import order_consistency, position_bias
from fairpanel.analysis._resample import DEFAULT_BOOTSTRAP
from fairpanel.analysis._result_rows import (
    AgreementRow,
    BradleyTerryAbility,
    BradleyTerryFit,
    BradleyTerryTerm,
    ChiSquareRow,
    ConformityRow,
    DebateBlock,
    DebateShiftRow,
    EffectRow,
    FailureByIdentityRow,
    FailureRow,
    FamilyRow,
    HeadlineBlock,
    MeanScoreRow,
    MeanScoresBlock,
    PairBlock,
    PositionBiasBlock,
    ScoreDifferenceBlock,
    SingleBlock,
    WinRateRow,
)
from fairpanel.analysis._results import (
    ArmResults,
    BiasProfileRow,
    ControlFalsePositives,
    DesignBlock,
    InjectionShiftRow,
    LabelSwapTests,
    RunResults,
)
from fairpanel.analysis._scores import ScoreDifferenceMatrix, mean_scores, score_difference_matrix
from fairpanel.analysis._self_preference import SelfPreferenceRow, self_preference
from fairpanel.analysis._statistics import (
    ReportPart,
    design_parts,
    verdict_statistics,
)
from fairpanel.analysis._summary import analyze, analyze_arm, arm_parts, arm_results
from fairpanel.analysis._verdict_tests import label_swaps, pair_outcomes, pair_verdict_effects

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
    "SelfPreferenceRow",
    "SingleBlock",
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
    "self_preference",
    "single_score_effects",
    "sort_block",
    "treatment_interactions",
    "verdict_statistics",
    "wilson_interval",
    "win_rates",
]
