"""What simulate.json says about itself: how the judges were simulated, what was planted, and
how to read each table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fairpanel.analysis import OVERALL
from fairpanel.judging.simulate._runs import Target
from fairpanel.judging.simulate._settings import SimulationSettings, panel_model

__all__ = [
    "MODERATOR_NOTE",
    "PANEL_NOTES",
    "SIMULATION_NOTES",
    "WHAT",
    "judges_block",
    "planted_block",
]


SIMULATION_NOTES = (
    "every judge and the responder are the mock (configured models are never called)",
    "main arm and the baseline treatment only (what the headline analysis covers)",
    "each judge answers each trial once, with the panel's first-round request (the mock's "
    "answers do not depend on the discussion); judges of a trial still share the trial noise",
    "each simulated run is analysed by verdict_statistics, the headline's own rule (cluster t "
    "tests on base-scenario means, Holm over the primary family, the position test on "
    "order-swapped twins); no resampling",
)
PANEL_NOTES = (
    "every judgment is drawn from the random-effects panel model (judging/simulate/"
    "_panel_model.py) for the design's own trials, straight into the frames a store would give "
    "(configured models are never called); 'judges' gives its effects",
    "main arm and the baseline treatment only (what the headline analysis covers)",
    "each judge answers each trial once; its answer stands for its final one",
    SIMULATION_NOTES[-1],
)
MODERATOR_NOTE = "a moderator consensus is simulated as the mean"
WHAT = {
    "false_positives": "per design size, over the runs with nothing planted: identity_effect is "
    "the share of runs whose headline said 'Detectable identity effect' (runs without a verdict "
    "count as no call; identity_no_verdict says how many), position_bias the share whose "
    "position claim called a bias (null when a position preference was planted); rate with an "
    "exact Clopper-Pearson interval (k of n independent runs)",
    "power": "per design size, planted size and category: the share of runs in which a primary "
    "contrast called the planted identity favoured (headline_called: the headline called any "
    "identity effect); exact intervals",
    "recommended": "the smallest simulated design size at which every category's power at "
    "'size' reaches target_power; when none does, the largest size's weakest power and how many "
    "times its base scenarios would have to grow (extrapolated by a normal approximation)",
    "mde_check": "per design size and planted category, the run's stated minimum detectable "
    "effect checked: stated_mde is the median over simulated runs of the mde the category's "
    "single-protocol planted-against-reference contrast states (80% power at Holm's first "
    "step); contrast_power that contrast's own power at each planted size; simulated_shift the "
    "planted size at which it crosses 80% (probit interpolation between bracketing sizes, none "
    "outside them); agrees: stated within 20% of simulated",
}


def planted_block(settings: SimulationSettings, targets: Sequence[Target]) -> dict[str, Any]:
    where = "four metrics" if settings.metric == OVERALL else settings.metric
    return {
        "metric": settings.metric,
        "first_position_bias": settings.first_position_bias,
        "targets": [
            {"category": t.category, "planted": t.planted, "reference": t.reference}
            for t in targets
        ],
        "what": (
            f"each size is a score shift in points added to the planted identity's {where} by "
            "every mock judge (a fraction f adds one point in a share f of judgments, so the "
            "expected shift equals the size); first_position_bias is the planted share of pair "
            "verdicts given to the first position whatever the scores (negative: the second)"
        ),
    }


def judges_block(settings: SimulationSettings) -> dict[str, Any]:
    effects = settings.effects
    block: dict[str, Any] = {
        "noise": settings.noise,
        "label_base_sd": effects.label_base_sd,
        "position_base_sd": effects.position_base_sd,
        "judge_leniency_sd": effects.judge_leniency_sd,
        "halo_sd": effects.halo_sd,
        "trial_noise_sd": effects.trial_noise_sd,
    }
    if settings.engine == "panel":
        return {**block, "what": panel_model(settings, [], 0.0).describe()}
    return {
        **block,
        "what": (
            f"scores are content (+-1 per metric and answer) + a uniform integer in "
            f"+-{settings.noise} per score + normal random effects in points: each judge's "
            f"leniency (sd {effects.judge_leniency_sd:g}, constant over its requests), a halo "
            f"per judgment shared by the four metrics (sd {effects.halo_sd:g}), noise per answer "
            f"and trial shared by all judges (sd {effects.trial_noise_sd:g}); per simulated run "
            f"each base scenario draws for every identity a shift of its scores "
            f"N(0, {effects.label_base_sd:g}) points and a first-position share "
            f"N(0, {effects.position_base_sd:g}) added to the planted ones: preferences that "
            "vary by scenario and average to zero, which is no bias. Pair verdicts go to the "
            "larger sum of the four scores (answer-driven; equal sums broken by a coin, the "
            "schema has no tie; the panel ties when its votes split). With the default settings "
            "the metrics of one judgment correlate about 0.55, two judges' scores of one answer "
            "about 0.3, and a score's sd is about 1.9 points"
        ),
    }
