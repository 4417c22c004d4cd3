"""The manipulation arms' bias profile under judges drawn from a random-effects model, many
times: how often the profile calls a bias that is not there, and how often it catches one that
is.

A judge that is not biased by a manipulation is rarely indifferent to it in every scenario: a
longer answer reads better for one kind of task and worse for another. So each base scenario
draws its own preference per manipulation, N(0, tau) points, and each derived scenario strays
from it by N(0, derived_sd); averaged over scenarios the preference is zero, and a profile
that calls it a bias is wrong. A ``planted`` shift adds a real bias to one label.

Every trial is answered by ``judges`` judges giving integer scores 0-10 on four metrics:
``round(base + quality[s,c] + preference + position + halo[t,c,j] + noise[t,c,j,m])`` clipped
to 0-10, where quality is the answer's (shared by a main trial and its twins, so it cancels),
``preference`` is the manipulation's latent on the manipulated candidate of a twin (none in
the main trial and the same-text control), ``position`` is each base scenario's pull towards
the first candidate of a pair, and halo and noise are fresh in every trial (a twin is judged
afresh). A pair judge picks the candidate with the larger sum of its four scores (none on a
tie), the panel's winner is the majority's, so the latent moves the win probability. The draws
fill ``MANIPULATION_COLUMNS`` frames directly (milliseconds a run) and ``bias_profile`` reads
each one, exactly as it reads a real run's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
import pandas as pd

from fairpanel.analysis import (
    DEFAULT_BOOTSTRAP,
    MANIPULATION_COLUMNS,
    bias_profile,
    wilson_interval,
)

__all__ = [
    "DEFAULT_MANIPULATIONS",
    "CallRate",
    "ManipulationCalibration",
    "ManipulationModel",
    "manipulation_calibration",
    "manipulation_frames",
]

DEFAULT_MANIPULATIONS: Mapping[str, str] = {
    "verbosity-1.5x": "verbosity",
    "verbosity-2x": "verbosity",
    "authority": "authority",
    "bandwagon": "bandwagon",
    "register-confident": "register",
}
"""label -> registry kind: five manipulations, as a run with the issue's arms has."""

METRICS = 4
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class ManipulationModel:
    """One simulated panel and design: base scenarios x derived scenarios x replicates, each
    judged single (response 1 alone) and in pairs in both orders, in the main arm and once per
    manipulation and the same-text control. Standard deviations are in score points."""

    manipulations: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_MANIPULATIONS))
    control: str = "same-text"
    n_bases: int = 12
    derived_per_base: int = 2
    replicates: int = 1
    judges: int = 3
    tau: float = 0.5
    """Each base scenario's own preference per manipulation: mean zero, no bias on average."""
    derived_sd: float = 0.3
    """How far a derived scenario's preference strays from its base's."""
    base_score: float = 6.0
    quality_sd: float = 1.0
    position_sd: float = 0.3
    halo_sd: float = 0.5
    noise_sd: float = 1.0
    planted: Mapping[str, float] = field(default_factory=dict)
    """label -> a real shift in points on the manipulated candidate, in every scenario."""

    def __post_init__(self) -> None:
        unknown = sorted(set(self.planted) - set(self.manipulations))
        if unknown:
            raise ValueError(f"planted on unknown manipulation(s): {', '.join(unknown)}")
        if self.control in self.manipulations:
            raise ValueError(f"the control's label {self.control!r} is also a manipulation")
        if min(self.n_bases, self.derived_per_base, self.replicates, self.judges) < 1:
            raise ValueError("bases, derived scenarios, replicates and judges must be >= 1")

    @property
    def labels(self) -> list[str]:
        """The manipulations, then the control (the arms after the main one)."""
        return [*self.manipulations, self.control]

    def describe(self) -> str:
        """The model in one sentence, for a printed table."""
        return (
            f"{self.n_bases} bases x {self.derived_per_base} derived x {self.replicates} "
            f"replicates, {self.judges} judges, integer scores 0-10 on 4 metrics around "
            f"{self.base_score:g}; per-base preference per manipulation sd {self.tau:g}, "
            f"per-derived sd {self.derived_sd:g}, answer quality sd {self.quality_sd:g}, base "
            f"position pull sd {self.position_sd:g}, halo sd {self.halo_sd:g}, score noise sd "
            f"{self.noise_sd:g}"
        )


@dataclass(frozen=True)
class _Template:
    """The frame's fixed columns for one model, and where each row's value comes from."""

    columns: dict[str, npt.NDArray[np.bool_] | pd.Categorical]
    single: npt.NDArray[np.intp]
    """Per row, the flat index into a run's single scores (-1: a pair row)."""
    pair: npt.NDArray[np.intp]


def _template(model: ManipulationModel) -> _Template:
    """Rows in MANIPULATION_COLUMNS order: per manipulation, per unit, the main row then the
    twin row, single units first, then pair units (order 0: response 1 first)."""
    b, d, r = model.n_bases, model.derived_per_base, model.replicates
    arms = len(model.labels) + 1  # the main arm is arm 0
    grid = np.indices((b, d, r)).reshape(3, -1)
    cells = []
    for protocol, orders in (("single", 1), ("pair", 2)):
        for order in range(orders):
            cells.append((protocol, order, grid))
    rows: dict[str, list[object]] = {name: [] for name in MANIPULATION_COLUMNS[:9]}
    single_at: list[int] = []
    pair_at: list[int] = []
    for arm, label in enumerate(model.labels, start=1):
        kind = model.manipulations.get(label, "none")
        for protocol, order, (base, derived, rep) in cells:
            for bi, di, ri in zip(base, derived, rep, strict=True):
                key = f"{protocol}:b{bi}:s{di}:r{ri}:o{order}"
                for which, arm_name in ((0, "main"), (arm, "manipulation")):
                    rows["pair_key"].append(key)
                    rows["manipulation"].append(label)
                    rows["kind"].append(kind)
                    rows["control"].append(label == model.control)
                    rows["protocol"].append(protocol)
                    rows["panel"].append("simulated")
                    rows["base_id"].append(f"b{bi}")
                    rows["scenario_id"].append(f"b{bi}-s{di}")
                    rows["arm"].append(arm_name)
                    flat = ((bi * d + di) * r + ri) * arms + which
                    single_at.append(flat if protocol == "single" else -1)
                    pair_at.append(flat * 2 + order if protocol == "pair" else -1)
    # Categorical, as a store reader would hand large text columns over: cheap to copy and to
    # group on, thousands of times.
    columns = {
        name: np.array(values) if name == "control" else pd.Categorical(values)
        for name, values in rows.items()
    }
    return _Template(columns, np.array(single_at), np.array(pair_at))


def _scores(
    rng: np.random.Generator, model: ManipulationModel, latent: FloatArray, shape: tuple[int, ...]
) -> npt.NDArray[np.int64]:
    """Integer scores 0-10 with a trailing (judges, metrics) axis for showings of ``shape``
    whose expected score (before rounding) is ``base_score + latent``."""
    halo = rng.normal(0.0, model.halo_sd, (*shape, model.judges, 1))
    noise = rng.normal(0.0, model.noise_sd, (*shape, model.judges, METRICS))
    raw = model.base_score + latent[..., None, None] + halo + noise
    return np.clip(np.rint(raw), 0, 10).astype(np.int64)


def _draw(
    rng: np.random.Generator, model: ManipulationModel, runs: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Per run: the single consensus scores of response 1, (b, d, r, arm); the pair consensus
    scores of response 1 and its win share, (b, d, r, arm, order)."""
    b, d, r = model.n_bases, model.derived_per_base, model.replicates
    labels = model.labels
    planted = np.array([model.planted.get(label, 0.0) for label in labels])
    real = np.array([label != model.control for label in labels], dtype=float)
    pull = rng.normal(0.0, model.tau, (runs, b, 1, 1, len(labels)))
    pull = pull + rng.normal(0.0, model.derived_sd, (runs, b, d, 1, len(labels)))
    arm_latent = np.concatenate(  # arm 0 is the main trial: untouched
        [np.zeros((runs, b, d, 1, 1)), (pull + planted) * real], axis=-1
    )
    arm_latent = np.broadcast_to(arm_latent, (runs, b, d, r, len(labels) + 1))
    quality = rng.normal(0.0, model.quality_sd, (runs, b, d, 1, 1, 2))  # responses 1 and 2
    single = _scores(rng, model, arm_latent + quality[..., 0], arm_latent.shape)
    position = rng.normal(0.0, model.position_sd, (runs, b, 1, 1, 1, 1, 1))
    # (..., arm, order, candidate): candidate 0 is response 1; order 0 shows it first.
    pair_latent = np.stack([arm_latent, np.zeros_like(arm_latent)], axis=-1)[..., None, :]
    pair_latent = pair_latent + quality[..., None, :]
    first = np.array([[1.0, 0.0], [0.0, 1.0]])  # [order, candidate] shown first
    pair_latent = pair_latent + position * first
    pair = _scores(rng, model, pair_latent, pair_latent.shape)
    sums = pair.sum(axis=-1)  # (..., order, candidate, judge)
    margin = np.sign(sums[..., 0, :] - sums[..., 1, :]).sum(axis=-1)
    won = np.where(margin > 0, 1.0, np.where(margin < 0, 0.0, 0.5))
    return (
        single.mean(axis=(-2, -1)),
        pair[..., 0, :, :].mean(axis=(-2, -1)),
        won,
    )


def manipulation_frames(
    model: ManipulationModel, runs: int, *, seed: int = 0, batch: int = 200
) -> Iterator[pd.DataFrame]:
    """``runs`` simulated panels' MANIPULATION_COLUMNS frames, drawn ``batch`` runs at a time
    (the draws are vectorised over runs); the same seed, runs and batch give the same frames."""
    template = _template(model)
    is_single = template.single >= 0
    rng = np.random.default_rng([seed, 0x3A41])
    done = 0
    while done < runs:
        size = min(batch, runs - done)
        single, pair_score, won = _draw(rng, model, size)
        for run in range(size):
            score = np.where(
                is_single,
                single[run].ravel()[np.maximum(template.single, 0)],
                pair_score[run].ravel()[np.maximum(template.pair, 0)],
            )
            wins = np.where(is_single, np.nan, won[run].ravel()[np.maximum(template.pair, 0)])
            yield pd.DataFrame({**template.columns, "score": score, "won": wins})
        done += size


@dataclass(frozen=True)
class CallRate:
    """How often, over ``runs`` simulated runs, ``calls`` happened, with its Wilson interval."""

    name: str
    planted: float
    calls: int
    runs: int
    rate: float
    ci_low: float
    ci_high: float

    @classmethod
    def of(cls, name: str, planted: float, calls: int, runs: int) -> CallRate:
        low, high = wilson_interval(calls, runs, 0.95)
        return cls(name, planted, calls, runs, calls / runs, low, high)


@dataclass(frozen=True)
class ManipulationCalibration:
    """Per label the share of runs that called it (in either protocol; for a planted label,
    the power; for the rest and the control, its false calls), the same per protocol
    (``protocols``, named "label (protocol)"), and the share of runs with any false call: a
    call on a label with nothing planted, the run's headline wrong."""

    labels: list[CallRate]
    false_calls: CallRate
    runs: int
    model: str
    protocols: list[CallRate] = field(default_factory=list)

    def rate(self, label: str, protocol: str | None = None) -> CallRate:
        """A label's call rate, in either protocol or in ``protocol`` alone."""
        name, rows = (
            (label, self.labels) if protocol is None else (f"{label} ({protocol})", self.protocols)
        )
        return next(row for row in rows if row.name == name)


def manipulation_calibration(
    model: ManipulationModel,
    runs: int = 400,
    *,
    alpha: float = 0.05,
    seed: int = 0,
    n_boot: int = DEFAULT_BOOTSTRAP,
) -> ManipulationCalibration:
    """``bias_profile`` run on ``runs`` frames drawn from ``model`` (see the module docstring);
    each run's profile gets its own bootstrap seed (``n_boot`` resamples: fewer than a real
    run's only where a test must be cheap)."""
    labels = model.labels
    calls = dict.fromkeys(labels, 0)
    by_protocol = {(label, protocol): 0 for label in labels for protocol in ("single", "pair")}
    false_runs = 0
    for run, frame in enumerate(manipulation_frames(model, runs, seed=seed)):
        rows = bias_profile(frame, alpha=alpha, seed=run, n_boot=n_boot)
        for row in rows:
            by_protocol[row.manipulation, row.protocol] += row.called
        called = {row.manipulation for row in rows if row.called}
        for label in called:
            calls[label] += 1
        false_runs += any(model.planted.get(label, 0.0) == 0.0 for label in called)
    return ManipulationCalibration(
        protocols=[
            CallRate.of(f"{label} ({protocol})", model.planted.get(label, 0.0), count, runs)
            for (label, protocol), count in by_protocol.items()
        ],
        labels=[
            CallRate.of(label, model.planted.get(label, 0.0), calls[label], runs)
            for label in labels
        ],
        false_calls=CallRate.of("any false call", 0.0, false_runs, runs),
        runs=runs,
        model=model.describe(),
    )
