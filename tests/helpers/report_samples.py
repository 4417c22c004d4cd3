"""A synthetic results.json with every block of the results contract, and a matching scores
frame, for rendering the report without a run. Values are plausible, not computed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from fairpanel.analysis import INJECTION_COLUMNS, METRICS, SCORE_COLUMNS, injection_shifts

IDENTITIES = {"gender": ["female", "male"], "race": ["Asian", "Black", "Hispanic", "White"]}
JUDGES = ["domain_expert", "clarity_editor", "reliability_auditor"]


def scores_frame(seed: int = 1, trials_per_identity: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    for category, members in IDENTITIES.items():
        for identity in members:
            for trial in range(trials_per_identity):
                for judge in JUDGES:
                    for metric in METRICS:
                        shift = 1.0 if identity == "female" and metric == "creativity" else 0.0
                        score = float(np.clip(np.round(rng.normal(6.0 + shift, 1.4)), 0, 10))
                        rows.append(
                            {
                                "trial_key": f"{category}-{identity}-{trial}",
                                "arm": "main",
                                "treatment": "baseline",
                                "signal": "explicit",
                                "protocol": "single",
                                "base_id": f"base-{trial % 4}",
                                "scenario_id": f"base-{trial % 4}/{trial:02d}",
                                "category": category,
                                "identity": identity,
                                "position": 0,
                                "response_index": 1,
                                "judge": judge,
                                "judge_model": "mock/judge",
                                "round": 2,
                                "round_kind": "final",
                                "metric": metric,
                                "score": score,
                            }
                        )
    frame = pd.DataFrame(rows)
    assert set(SCORE_COLUMNS) <= set(frame.columns)
    return frame


def _effect(
    category: str, metric: str, a: str, b: str, estimate: float, p: float, role: str = "secondary"
) -> dict[str, Any]:
    holm = min(1.0, p * 12)
    called = holm < 0.05
    verdict = f"{a} favoured" if role == "primary" else f"exploratory: {a} favoured"
    return {
        "role": role,
        "id": f"single:{category}:{metric}:{a}-{b}",
        "family": "single score differences",
        "protocol": "single",
        "category": category,
        "metric": metric,
        "judge": None,
        "contrast": f"{a} - {b}",
        "estimate": estimate,
        "ci_low": estimate - 0.3,
        "ci_high": estimate + 0.3,
        "confidence": 0.95,
        "scale": "score points",
        "cohen_h": None,
        "p_value": p,
        "p_holm": holm,
        "p_bh": min(1.0, p * 6),
        "n": 36,
        "n_clusters": 6,
        "test": "cluster t (base-scenario means)",
        "method": "paired by answer; one-sample t over base-scenario means",
        "verdict": verdict if called else "no detectable difference",
    }


def injection_block(seed: int = 2, trials: int = 24) -> dict[str, Any]:
    """``injection_robustness`` as the analysis computes it from twins: a gullible model whose
    scores rise by about 2 points and whose verdicts flip to the injected candidate, and a
    steady one that the instruction does not move."""
    rng = np.random.default_rng(seed)
    rows = []
    for trial in range(trials):
        protocol = "pair" if trial % 2 else "single"
        for model, lift, flip in (("mock/gullible", 2.0, 0.9), ("mock/steady", 0.0, 0.0)):
            clean = float(rng.integers(4, 8))
            won = float(rng.integers(0, 2)) if protocol == "pair" else float("nan")
            injected = clean + lift + (rng.normal(0, 0.5) if lift else 0.0)
            flipped = 1.0 if protocol == "pair" and rng.random() < flip else won
            for arm, score, verdict in (("main", clean, won), ("injection", injected, flipped)):
                values = (f"t{trial}", arm, protocol, f"judge of {model}", model, score, verdict)
                rows.append(dict(zip(INJECTION_COLUMNS, values, strict=True)))
    frame = pd.DataFrame(rows, columns=INJECTION_COLUMNS)
    return {shift.judge_model: shift.to_dict() for shift in injection_shifts(frame)}


def bias_profile_rows() -> list[dict[str, Any]]:
    """``bias_profile`` as the analysis writes it for one panel: a called manipulation
    (verbosity, single), one not called (authority, pair), one that could not be tested
    (bandwagon: too few bases) and the same-text control, not called."""
    method = "cluster bootstrap over base scenarios; Holm over the manipulation family"
    common = {"confidence": 0.95, "test": "paired cluster bootstrap (base scenarios)"}
    points = {"measure": "score", "scale": "score points (0-10, mean of the four metrics)"}
    share = {"measure": "win share", "scale": "win share of the manipulated candidate (-1..1)"}
    return [
        {
            **common,
            "manipulation": "verbosity-2x",
            "kind": "verbosity",
            "protocol": "single",
            **points,
            "estimate": 0.84,
            "ci_low": 0.41,
            "ci_high": 1.27,
            "p_value": 0.002,
            "p_holm": 0.006,
            "n_pairs": 24,
            "n_bases": 6,
            "called": True,
            "verdict": "verbosity-2x favoured",
            "method": method,
        },
        {
            **common,
            "manipulation": "authority",
            "kind": "authority",
            "protocol": "pair",
            **share,
            "estimate": 0.06,
            "ci_low": -0.08,
            "ci_high": 0.2,
            "p_value": 0.38,
            "p_holm": 0.76,
            "n_pairs": 24,
            "n_bases": 6,
            "verdict": "no detectable difference",
            "method": method,
        },
        {
            **common,
            "manipulation": "bandwagon",
            "kind": "bandwagon",
            "protocol": "single",
            **points,
            "estimate": 0.3,
            "n_pairs": 6,
            "n_bases": 3,
            "verdict": "not tested: 3 base scenarios, 5 needed",
        },
        {
            **common,
            "manipulation": "same-text",
            "kind": "none",
            "control": True,
            "protocol": "single",
            **points,
            "estimate": -0.05,
            "ci_low": -0.31,
            "ci_high": 0.22,
            "p_value": 0.71,
            "p_holm": 0.76,
            "n_pairs": 24,
            "n_bases": 6,
            "verdict": "no detectable difference",
            "method": method,
        },
    ]


def full_results() -> dict[str, Any]:
    """results.json with the existing blocks and every block the contract adds."""
    win_rates = [
        {
            "category": "gender",
            "identity": name,
            "appearances": 54,
            "wins": wins,
            "losses": 48 - wins,
            "ties": 6,
            "rate": wins / 48,
            "ci_low": wins / 48 - 0.14,
            "ci_high": wins / 48 + 0.13,
            "tie_share": 6 / 54,
            "confidence": 0.95,
            "n": 48,
            "method": "wins / (wins + losses), Wilson interval on the decided pairs",
        }
        for name, wins in (("female", 30), ("male", 18))
    ]
    effects = [
        _effect("gender", "overall", "female", "male", 0.95, 0.0002, role="primary"),
        _effect("gender", "creativity", "female", "male", 1.4, 0.0003),
        {
            **_effect("gender", "creativity", "female", "male", 1.1, 0.003),
            "id": "single:gender:creativity:female-male:domain_expert",
            "judge": "domain_expert",
        },
        _effect("gender", "accuracy", "female", "male", 0.05, 0.71),
        _effect("race", "overall", "Black", "White", -0.12, 0.40, role="primary"),
        _effect("race", "overall", "Asian", "White", 0.08, 0.55, role="primary"),
        {
            **_effect("gender", "win_rate", "female", "male", 0.06, 0.2, role="primary"),
            "id": "pair:gender:label_swap:female-male:panel",
            "family": "pair label swaps",
            "protocol": "pair",
            "contrast": "female vs male, labels swapped",
            "scale": "win share - 0.5",
            "tie_share": 0.25,
        },
        {
            **_effect("gender", "win_rate", "female", "50%", 0.125, 0.11),
            "id": "pair:gender:win_rate:female",
            "family": "pair win rates among decided",
            "protocol": "pair",
            "contrast": "female vs 50%",
            "scale": "win rate among decided - 0.5",
            "cohen_h": 0.25,
            "tie_share": 6 / 54,
        },
    ]
    interaction = {
        **_effect("gender", "overall", "female", "male", -0.61, 0.004, role="interaction"),
        "id": "interaction:debias:single:gender:overall:female-male",
        "family": "treatment x label interactions",
        "contrast": "female - male: debias minus baseline",
        "verdict": "debias changed the female - male effect",
    }
    matrix_gender = {
        "category": "gender",
        "metric": "overall",
        "identities": ["female", "male"],
        "matrix": [[0.0, 0.31], [-0.31, 0.0]],
        "n": 288,
    }
    race = IDENTITIES["race"]
    means = [6.1, 5.9, 6.0, 6.2]
    matrix_race = {
        "category": "race",
        "metric": "overall",
        "identities": race,
        "matrix": [[a - b for b in means] for a in means],
        "n": 576,
    }
    chi = [
        {
            "category": "gender",
            "metric": "creativity",
            "protocol": "single",
            "round_kind": "final",
            "identities": ["female", "male"],
            "levels": [4, 5, 6, 7, 8],
            "chi2": 21.3,
            "dof": 4,
            "p_value": 0.0003,
            "cramers_v": 0.31,
            "n": 72,
            "note": None,
        }
    ]
    block = {
        "n_trials": {"single": 72, "pair": 48},
        "round_kind": "final",
        "single": {
            "mean_scores": {
                "rows": [
                    {
                        "category": "gender",
                        "identity": "female",
                        "creativity": 7.0,
                        "accuracy": 6.0,
                        "efficiency": 6.1,
                        "reliability": 5.9,
                        "overall": 6.25,
                        "n": 144,
                        "n_trials": 12,
                    },
                    {
                        "category": "gender",
                        "identity": "male",
                        "creativity": 6.0,
                        "accuracy": 6.0,
                        "efficiency": 6.0,
                        "reliability": 5.8,
                        "overall": 5.95,
                        "n": 144,
                        "n_trials": 12,
                    },
                ]
            },
            "chi_square": chi,
            "score_difference": {"gender": matrix_gender, "race": matrix_race},
        },
        "pair": {"mean_scores": {"rows": []}, "chi_square": [], "win_rates": win_rates},
        "failures": [
            {
                "protocol": "single",
                "category": "gender",
                "judge": "domain_expert",
                "turns": 72,
                "failures": 3,
                "rate": 3 / 72,
                "n": 72,
                "method": "failed / all turns",
            }
        ],
    }
    results: dict[str, Any] = {
        **block,
        "design": {
            "arms": ["main", "placebo", "same_label"],
            "treatments": ["baseline", "debias"],
            "signals": ["explicit"],
            "n_bases": 6,
            "duplicates_dropped": 3,
            "warnings": ["scenario base-2/05: the two responses are near-identical"],
            "note": "main arm, treatment 'baseline'",
        },
        "by_treatment": {
            "debias": {
                **block,
                "headline": {
                    "verdict": "No detectable identity "
                    "effect at alpha=0.05 after Holm correction over 12 tests.",
                    "alpha": 0.05,
                    "detected": [],
                },
            }
        },
        "treatment_effects": [interaction],
        "control_arms": {"placebo": {**block, "n_trials": {"single": 12, "pair": 0}}},
        "headline": {
            "verdict": "Detectable identity effect: female scored 0.95 points higher than male "
            "overall (95% CI 0.65 to 1.25, Holm-adjusted p=0.0024).",
            "alpha": 0.05,
            "tests": 4,
            "detected": ["single:gender:overall:female-male"],
            "identity_effect": True,
            "procedure": "Holm over the primary family at alpha=0.05",
            "secondary_tests": 4,
            "exploratory": ["single:gender:creativity:female-male"],
            "n_bases": 6,
            "min_bases": 5,
            "position": "Position bias: the answer shown first won 61% of order-swapped twins "
            "(95% CI 52% to 69%, p=0.03).",
            "position_bias": True,
            "skipped": [],
        },
        "effects": effects,
        "multiple_comparisons": [
            {
                "family": "primary: panel consensus contrasts",
                "size": 4,
                "method": "Holm over the primary family",
                "role": "primary",
            },
            {
                "family": "secondary: per metric, per judge, win rates",
                "size": 4,
                "method": "Benjamini-Hochberg over the secondary family",
                "role": "secondary",
            },
        ],
        "position_bias": {
            "first_position_win_rate": 0.61,
            "ci_low": 0.52,
            "ci_high": 0.69,
            "n": 96,
            "p_value": 0.03,
            "order_consistency": 0.72,
            "n_swapped_pairs": 48,
            "method": "cluster t of per-base twin means against 0.5",
            "called": True,
            "verdict": "Position bias: the answer shown first won 61% of order-swapped twins "
            "(95% CI 52% to 69%, p=0.03).",
            "n_twins": 48,
            "n_clusters": 6,
            "tie_share": 0.08,
            "test": "cluster t (base-scenario means)",
        },
        "bradley_terry": [
            {
                "category": "gender",
                "abilities": [
                    {"identity": "female", "estimate": 0.24, "ci_low": -0.05, "ci_high": 0.52},
                    {"identity": "male", "estimate": -0.24, "ci_low": -0.52, "ci_high": 0.05},
                ],
                "position": {"estimate": 0.45, "ci_low": 0.1, "ci_high": 0.8},
                "n": 96,
                "method": "Bradley-Terry with a first-position term; bootstrap over scenarios",
            }
        ],
        "agreement": [
            {
                "protocol": "single",
                "round_kind": kind,
                "metric": metric,
                "level": "ordinal",
                "alpha": alpha,
                "n_units": 72,
                "n_judges": 3,
                "method": "Krippendorff ordinal",
            }
            for kind, offset in (("first", 0.0), ("final", 0.25))
            for metric, alpha in (("creativity", 0.31 + offset), ("accuracy", 0.12 + offset))
        ]
        + [
            {
                "protocol": "pair",
                "round_kind": "final",
                "metric": "verdict",
                "level": "nominal",
                "alpha": 0.55,
                "n_units": 48,
                "n_judges": 3,
                "method": "Krippendorff nominal",
            }
        ],
        "debate": {
            "shift_by_identity": [
                {
                    "protocol": "single",
                    "category": "gender",
                    "identity": name,
                    "metric": "overall",
                    "first_mean": first,
                    "final_mean": final,
                    "shift": final - first,
                    "ci_low": final - first - 0.2,
                    "ci_high": final - first + 0.2,
                    "n": 144,
                }
                for name, first, final in (("female", 6.0, 6.25), ("male", 6.0, 5.95))
            ],
            "conformity": [
                {
                    "judge": judge,
                    "moved_toward_others": 0.5,
                    "moved_away": 0.1,
                    "n": 72,
                    "method": "share of final scores closer to the others' first-round mean",
                }
                for judge in JUDGES
            ],
        },
        "failures_by_identity": [
            {
                "category": "gender",
                "identity": name,
                "judge": "domain_expert",
                "turns": 36,
                "failed": failed,
                "rate": failed / 36,
                "ci_low": 0.0,
                "ci_high": 0.2,
            }
            for name, failed in (("female", 1), ("male", 2))
        ],
        "control_false_positives": {
            "placebo": {
                "n_trials": 36,
                "n_verdicts": 24,
                "identity_effect": False,
                "verdict": "No detectable identity effect at alpha=0.05 (Holm over 2 primary "
                "tests).",
                "position_bias": False,
                "position": "No position preference detectable.",
                "primary_tests": 2,
                "detected": [],
            },
            "same_label": {
                "n_trials": 24,
                "n_verdicts": 24,
                "identity_effect": None,
                "verdict": "No verdict: no identity contrast could be tested.",
                "primary_tests": 0,
                "label_swap_tests": {
                    "tests": 1,
                    "rejected": 1,
                    "rate": 1.0,
                    "alpha": 0.05,
                    "rows": [
                        {
                            "category": "gender",
                            "contrast": "female vs male",
                            "estimate": 0.11,
                            "ci_low": 0.02,
                            "ci_high": 0.2,
                            "p_value": 0.021,
                            "n": 24,
                            "n_clusters": 6,
                            "rejected": True,
                        }
                    ],
                    "test": "cluster t (base-scenario means)",
                    "method": "pseudo label swaps; p < 0.05 unadjusted counts as a rejection",
                },
            },
            "note": "control arms carry no identity contrast; placebo runs the headline rule",
        },
        "injection_robustness": injection_block(),
        "bias_profile": bias_profile_rows(),
    }
    return results
