"""Which variance components drive `fairpanel simulate`'s power numbers.

On frames of examples/mock-planted-bias.yaml's design drawn from simulate's default
random-effects panel (label sd 0.2 per base), at several derived scenarios per base: the
primary contrasts' between-base sd sigma_b, within-base sd sigma_w and units per base k
(`analysis.contrast_components`), the planning formula's power at the design's 15 bases for a
0.25-point shift at Holm's first step (alpha / 26) and at a plain alpha 0.05, and the bases it
needs for 80%. Then, by simulated runs with 0.25 points planted, how often gender's planted
label is called by each of its two primary contrasts alone (at alpha / 26), by either, and by
the headline's own rule (Holm over all 26; what simulate reports).

    .venv/bin/python bench/power_components.py [--seeds 20] [--runs 100]
"""

from __future__ import annotations

import argparse
import math
import statistics
from pathlib import Path

from statsmodels.stats.power import TTestPower

from fairpanel.analysis import contrast_components, identity_test_outcomes
from fairpanel.analysis.tools import bases_for_power, cluster_mean_test, cluster_means
from fairpanel.analysis.verdict import contrast_units
from fairpanel.judging import load_experiment
from fairpanel.judging.engine import design_of
from fairpanel.judging.experiment import ExperimentConfig
from fairpanel.judging.simulate import SimulationSettings, family_size
from fairpanel.judging.simulate._panel_model import TrialTable, model_frames, trial_table
from fairpanel.judging.simulate._runs import (
    DesignScale,
    mock_config,
    prepare_design,
    scaled,
    targets_of,
)
from fairpanel.judging.simulate._settings import panel_model

EXPERIMENT = Path(__file__).resolve().parent.parent / "examples" / "mock-planted-bias.yaml"
SHIFT = 0.25
ALPHA = 0.05


def _designs(text: str) -> list[tuple[int, int]]:
    return [(int(d), int(r)) for d, r in (part.split("x") for part in text.split(","))]


def _table(config: ExperimentConfig, derived: int, replicates: int) -> TrialTable:
    return trial_table(prepare_design(scaled(config, DesignScale(0, derived, replicates))).specs)


def _power(shift: float, spread: float, bases: int, alpha: float) -> float:
    return float(TTestPower().power(effect_size=shift / spread, nobs=bases, alpha=alpha))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=20, help="simulated runs per design")
    parser.add_argument("--runs", type=int, default=100, help="runs for the power decomposition")
    parser.add_argument("--designs", default="2x1,6x1,10x1,10x2", help="derived x replicates")
    parser.add_argument("--decompose", default="6x1,10x2", help="designs to decompose")
    args = parser.parse_args()
    experiment = load_experiment(EXPERIMENT)
    config = mock_config(experiment)
    targets = targets_of(design_of(config))
    family = family_size(experiment)
    level = ALPHA / family
    settings = SimulationSettings()
    gender = next(t for t in targets if t.category == "gender")
    pair = tuple(sorted((gender.planted, gender.reference)))
    sign = 1.0 if pair[0] == gender.planted else -1.0
    print(f"{family} primary tests: Holm's first step at alpha {level:.4f}")
    measured: list[tuple[int, int, int, dict[str, tuple[float, float, float]]]] = []
    pair_shifts: list[float] = []
    for derived, replicates in _designs(args.designs):
        table = _table(config, derived, replicates)
        pooled: dict[str, list[tuple[float, float, float]]] = {}
        for seed in range(args.seeds):
            null = model_frames(table, panel_model(settings, targets, 0.0), seed)
            for row in contrast_components(null):
                if row.contrast == "pooled":
                    pooled.setdefault(row.protocol, []).append(
                        (row.between_sd**2, row.within_sd**2, row.units_per_base)
                    )
            planted = model_frames(table, panel_model(settings, targets, SHIFT), seed)
            units, _ = contrast_units(planted, ("pair", "gender", *pair))
            means = cluster_means(units["difference"], units["base_id"])
            pair_shifts.append(sign * float(means.mean()))
        averaged = {
            protocol: (
                math.sqrt(statistics.mean(r[0] for r in rows)),
                math.sqrt(statistics.mean(r[1] for r in rows)),
                statistics.mean(r[2] for r in rows),
            )
            for protocol, rows in pooled.items()
        }
        measured.append((derived, replicates, len(table.specs), averaged))
    # A 0.25-point shift moves the pair contrast (win share - 0.5) by this much, averaged over
    # every design and seed; the single contrast moves by the shift itself.
    shifts = {"single": SHIFT, "pair": statistics.mean(pair_shifts)}
    print(f"gender's pair contrast at {SHIFT} points planted: {shifts['pair']:.3f} win share")
    for derived, replicates, trials, averaged in measured:
        print(f"\n{derived} derived x {replicates} replicates ({trials:,} trials)")
        for protocol, (between, within, k) in sorted(averaged.items()):
            spread = math.sqrt(between**2 + within**2 / k)
            shift = shifts[protocol]
            print(
                f"  {protocol:6} sigma_b {between:.3f}  sigma_w {within:.3f}  k {k:4.0f}  "
                f"s_D {spread:.3f} (between share {between**2 / spread**2:.0%}); power at 15 "
                f"bases: {_power(shift, spread, 15, level):.0%} at alpha/{family}, "
                f"{_power(shift, spread, 15, ALPHA):.0%} at {ALPHA}; bases for 80%: "
                f"{bases_for_power(shift, spread, alpha=level)} at alpha/{family}, "
                f"{bases_for_power(shift, spread, alpha=ALPHA)} at {ALPHA}; with sigma_w -> 0: "
                f"{bases_for_power(shift, between, alpha=level)}"
            )
    for derived, replicates in _designs(args.decompose):
        table = trial_table(
            prepare_design(scaled(config, DesignScale(0, derived, replicates))).specs
        )
        counts = {"single alone": 0, "pair alone": 0, "either": 0, "headline (Holm)": 0}
        for run in range(args.runs):
            frames = model_frames(table, panel_model(settings, targets, SHIFT), 1000 + run)
            hits = {}
            for protocol in ("single", "pair"):
                units, _ = contrast_units(frames, (protocol, "gender", *pair))
                test = cluster_mean_test(units["difference"], units["base_id"])
                hits[protocol] = bool(
                    test.p_value is not None
                    and test.p_value < level
                    and sign * (test.estimate or 0.0) > 0
                )
            outcome = identity_test_outcomes(
                frames.scores,
                frames.verdicts,
                frames.turns,
                frames.consensus,
                {t.category: (t.planted, t.reference) for t in targets},
            )
            counts["single alone"] += hits["single"]
            counts["pair alone"] += hits["pair"]
            counts["either"] += hits["single"] or hits["pair"]
            counts["headline (Holm)"] += bool(outcome["detected"]["gender"])
        shares = ", ".join(f"{name} {k / args.runs:.0%}" for name, k in counts.items())
        print(f"\ngender at {derived} x {replicates}, {args.runs} runs, {SHIFT} planted: {shares}")


if __name__ == "__main__":
    main()
