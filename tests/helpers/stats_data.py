"""Frames shaped like a run's, generated with known planted effects, for the statistics tests.

The generators follow the design: every response is shown under every label of its category
(single), and every pair of labels is shown in all four arrangements (pair), so the paired
and stratified tests have what they pair on. Content quality differs between scenarios and
responses and is shared by every label, as it is in a real run.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from fairpanel.analysis import METRICS

JUDGES = ("critic", "expert", "skeptic")


def single_scores(
    rng: np.random.Generator,
    identities: tuple[str, ...] = ("female", "male"),
    *,
    bases: int = 12,
    per_base: int = 3,
    replicates: int = 1,
    shift: dict[tuple[str, str], float] | None = None,
    judges: tuple[str, ...] = JUDGES,
    metrics: tuple[str, ...] = METRICS,
    noise: float = 1.0,
    category: str = "gender",
) -> pd.DataFrame:
    """Single-protocol scores, first and final round, every judge, every label of each unit.

    The final score is the first one pulled halfway toward the other judges' mean plus a little
    noise, so the debate blocks have something to measure.
    """
    planted = shift or {}
    rows = []
    for base, derived, replicate in itertools.product(
        range(bases), range(per_base), range(replicates)
    ):
        scenario = f"b{base}-{derived}"
        quality = {m: rng.normal(6.0, 1.0) + 0.5 * (base % 3) for m in metrics}
        for identity in identities:
            key = f"s-{scenario}-{replicate}-{identity}"
            for metric in metrics:
                first = {
                    j: quality[metric] + planted.get((identity, metric), 0.0) + rng.normal(0, noise)
                    for j in judges
                }
                for judge in judges:
                    others = np.mean([first[o] for o in judges if o != judge] or [first[judge]])
                    final = first[judge] + 0.5 * (others - first[judge]) + rng.normal(0, 0.3)
                    for round_index, (kind, value) in enumerate(
                        (("first", first[judge]), ("final", final))
                    ):
                        rows.append(
                            {
                                "trial_key": key,
                                "arm": "main",
                                "treatment": "none",
                                "signal": "explicit",
                                "protocol": "single",
                                "base_id": f"b{base}",
                                "scenario_id": scenario,
                                "category": category,
                                "identity": identity,
                                "position": 0,
                                "response_index": 1,
                                "judge": judge,
                                "judge_model": "fake",
                                "round": 2 * round_index,
                                "round_kind": kind,
                                "metric": metric,
                                "score": float(np.clip(np.round(value), 0, 10)),
                                "replicate": replicate,
                            }
                        )
    return pd.DataFrame(rows)


def pair_verdicts(
    rng: np.random.Generator,
    identities: tuple[str, ...] = ("female", "male"),
    *,
    bases: int = 12,
    per_base: int = 3,
    ability: dict[str, float] | None = None,
    position: float = 0.0,
    tie_rate: float = 0.0,
    category: str = "gender",
    quality_sd: float = 0.7,
) -> pd.DataFrame:
    """Consensus verdicts in all four arrangements of every label pair of every scenario.

    logit P(front wins) = position + ability[front] - ability[back] + quality[front response]
    - quality[back response]; the responses' quality is drawn per scenario and shared by all
    arrangements.
    """
    strength = ability or {}
    rows = []
    for base, derived in itertools.product(range(bases), range(per_base)):
        scenario = f"b{base}-{derived}"
        quality = {1: rng.normal(0, quality_sd), 2: rng.normal(0, quality_sd)}
        for a, b in itertools.combinations(identities, 2):
            for (front, back), (r_front, r_back) in itertools.product(
                ((a, b), (b, a)), ((1, 2), (2, 1))
            ):
                eta = (
                    position
                    + strength.get(front, 0.0)
                    - strength.get(back, 0.0)
                    + quality[r_front]
                    - quality[r_back]
                )
                if rng.random() < tie_rate:
                    winner = math.nan
                else:
                    winner = 0.0 if rng.random() < 1.0 / (1.0 + math.exp(-eta)) else 1.0
                rows.append(
                    {
                        "trial_key": f"p-{scenario}-{front}-{back}-{r_front}",
                        "arm": "main",
                        "treatment": "none",
                        "signal": "explicit",
                        "base_id": f"b{base}",
                        "scenario_id": scenario,
                        "category": category,
                        "first_identity": front,
                        "second_identity": back,
                        "first_response_index": r_front,
                        "winner_position": winner,
                        "winner_identity": None
                        if math.isnan(winner)
                        else (front if winner == 0.0 else back),
                        "replicate": 0,
                        "second_response_index": r_back,
                    }
                )
    return pd.DataFrame(rows)


def turns_of(scores: pd.DataFrame) -> pd.DataFrame:
    """A turns frame (all parsed) matching a scores frame."""
    keys = ["trial_key", "protocol", "category", "judge", "round_kind", "round"]
    turns = scores.groupby(keys, as_index=False).first()
    turns["parse_ok"] = True
    return turns


# Vectorised generators for the calibration tests: hundreds of small runs per test, so no
# per-row Python. Each base scenario draws its own preferences (the caller passes them, so a
# baseline and a treated run can share them); answer quality is drawn per derived scenario and
# response and shared by every label, order and treatment that shows the response.


def base_preferences(
    rng: np.random.Generator, bases: int, sd: float, mean: float = 0.0
) -> np.ndarray:
    """One preference per base scenario, N(mean, sd): a judge whose preference varies from
    scenario to scenario around ``mean``."""
    return mean + rng.normal(0.0, sd, size=bases)


def answer_quality(
    rng: np.random.Generator, bases: int, per_base: int, sd: float = 0.7
) -> np.ndarray:
    """Quality of responses 1 and 2 of every derived scenario, shape (bases, per_base, 2)."""
    return rng.normal(0.0, sd, size=(bases, per_base, 2))


def varying_pair_verdicts(
    rng: np.random.Generator,
    quality: np.ndarray,
    label: np.ndarray,
    position: np.ndarray,
    *,
    identities: tuple[str, str] = ("female", "male"),
    tie_rate: float = 0.0,
    treatment: str = "none",
    category: str = "gender",
) -> pd.DataFrame:
    """Consensus verdicts in the four arrangements (2 label orders x 2 response orders) of every
    derived scenario; ``quality`` from ``answer_quality``, ``label`` and ``position`` one value
    per base (logits).

    logit P(front wins) = position[base] + label[base] * (+1 if the front label is
    identities[0] else -1) + quality[front response] - quality[back response]; a verdict is a
    tie with probability ``tie_rate``.
    """
    bases, per_base, _ = quality.shape
    a, b = identities
    base = np.repeat(np.arange(bases), per_base * 4)
    derived = np.tile(np.repeat(np.arange(per_base), 4), bases)
    a_front = np.tile([True, True, False, False], bases * per_base)
    r_front = np.tile([1, 2, 1, 2], bases * per_base)
    q = quality[base, derived]
    eta = (
        position[base]
        + np.where(a_front, 1.0, -1.0) * label[base]
        + np.where(r_front == 1, q[:, 0] - q[:, 1], q[:, 1] - q[:, 0])
    )
    winner = np.where(rng.random(base.size) < 1.0 / (1.0 + np.exp(-eta)), 0.0, 1.0)
    winner[rng.random(base.size) < tie_rate] = np.nan
    front = np.where(a_front, a, b)
    back = np.where(a_front, b, a)
    base_id = np.char.add("b", base.astype(str))
    scenario = np.char.add(np.char.add(base_id, "-"), derived.astype(str))
    return pd.DataFrame(
        {
            "trial_key": [
                f"p-{s}-{f}-{r}" for s, f, r in zip(scenario, front, r_front, strict=True)
            ],
            "arm": "main",
            "treatment": treatment,
            "signal": "explicit",
            "base_id": base_id,
            "scenario_id": scenario,
            "category": category,
            "first_identity": front,
            "second_identity": back,
            "first_response_index": r_front,
            "second_response_index": 3 - r_front,
            "winner_position": winner,
            "winner_identity": np.where(
                np.isnan(winner), None, np.where(winner == 0.0, front, back)
            ),
            "replicate": 0,
        }
    )


def varying_single_scores(
    rng: np.random.Generator,
    quality: np.ndarray,
    label: np.ndarray,
    *,
    identities: tuple[str, str] = ("female", "male"),
    noise: float = 1.0,
    judges: tuple[str, ...] = ("critic",),
    metric: str = "accuracy",
    treatment: str = "none",
    category: str = "gender",
) -> pd.DataFrame:
    """Final-round single-protocol scores of one metric: every response (``quality`` from
    ``answer_quality``, in score points around 6) under both labels, by every judge.

    score = 6 + quality + label[base] * (+1/2 under identities[0], -1/2 under identities[1])
    + N(0, noise), rounded to a whole point, so the paired difference's mean in a base is
    ``label[base]``.
    """
    bases, per_base, responses = quality.shape
    grid = np.array(
        list(itertools.product(range(bases), range(per_base), range(responses), (0, 1)))
    )
    base, derived, response, second = grid.T
    centre = 6.0 + quality[base, derived, response] + np.where(second == 0, 0.5, -0.5) * label[base]
    identity = np.where(second == 0, identities[0], identities[1])
    base_id = np.char.add("b", base.astype(str))
    scenario = np.char.add(np.char.add(base_id, "-"), derived.astype(str))
    parts = []
    for judge in judges:
        score = np.round(centre + rng.normal(0.0, noise, size=centre.size))
        parts.append(
            pd.DataFrame(
                {
                    "trial_key": [
                        f"s-{s}-{r}-{i}"
                        for s, r, i in zip(scenario, response, identity, strict=True)
                    ],
                    "arm": "main",
                    "treatment": treatment,
                    "signal": "explicit",
                    "protocol": "single",
                    "base_id": base_id,
                    "scenario_id": scenario,
                    "category": category,
                    "identity": identity,
                    "position": 0,
                    "response_index": response + 1,
                    "judge": judge,
                    "judge_model": "fake",
                    "round": 0,
                    "round_kind": "final",
                    "metric": metric,
                    "score": score,
                    "replicate": 0,
                }
            )
        )
    return pd.concat(parts, ignore_index=True)
