"""Shared statistical tools: the cluster test over base scenarios and its power, multiple
testing, the cluster bootstrap, binomial intervals, group codes, Krippendorff's coincidences.
"""

from fairpanel.analysis.tools._cluster import (
    MIN_BASES,
    TEST_NAME,
    ClusterTest,
    cluster_mean_test,
    cluster_means,
    too_few_bases,
)
from fairpanel.analysis.tools._codes import (
    Codes,
    combined_codes,
    dense_codes,
    group_numbers,
    sort_codes,
    text_codes,
)
from fairpanel.analysis.tools._coincidences import Level, alpha_from_counts
from fairpanel.analysis.tools._intervals import clopper_pearson, exact_rate, wilson_interval
from fairpanel.analysis.tools._multitest import (
    benjamini_hochberg,
    bonferroni,
    holm,
    weighted_holm,
)
from fairpanel.analysis.tools._power import (
    DEFAULT_POWER,
    bases_for_power,
    minimum_detectable_effect,
)
from fairpanel.analysis.tools._resample import (
    DEFAULT_BOOTSTRAP,
    bootstrap_cluster_means,
    bootstrap_mean,
    cluster_draws,
    expanded_interval,
    expanded_p_value,
    expanded_tail,
    seed_for,
)

__all__ = [
    "DEFAULT_BOOTSTRAP",
    "DEFAULT_POWER",
    "MIN_BASES",
    "TEST_NAME",
    "ClusterTest",
    "Codes",
    "Level",
    "alpha_from_counts",
    "bases_for_power",
    "benjamini_hochberg",
    "bonferroni",
    "bootstrap_cluster_means",
    "bootstrap_mean",
    "clopper_pearson",
    "cluster_draws",
    "cluster_mean_test",
    "cluster_means",
    "combined_codes",
    "dense_codes",
    "exact_rate",
    "expanded_interval",
    "expanded_p_value",
    "expanded_tail",
    "group_numbers",
    "holm",
    "minimum_detectable_effect",
    "seed_for",
    "sort_codes",
    "text_codes",
    "too_few_bases",
    "weighted_holm",
    "wilson_interval",
]
