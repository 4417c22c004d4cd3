"""How often the manipulation arms' bias profile is wrong under no bias, and how often it
catches a planted one, over many simulated runs.

Judges are drawn from the random-effects model of ``fairpanel.judging.simulate``'s
``ManipulationModel``: per base scenario a preference per manipulation N(0, tau) points (a
judge whose reaction varies by scenario around zero: no bias), per derived scenario N(0, 0.3),
integer scores 0-10 from three judges on four metrics, single trials and pairs in both orders,
five manipulations and the same-text control. Each run's profile is ``analysis.bias_profile``
(one cluster bootstrap per row, Holm over the panel's twelve rows).

Prints, for ``--runs`` runs each: the share of runs with any false call (a call on a label
with nothing planted, the control included) with its Wilson 95% interval, at each tau and
number of base scenarios; then the power (share of runs calling the planted label) for each
planted shift and number of bases at ``--power-tau`` (in either protocol, and in single
trials and pairs alone), with the false calls of those runs.

    .venv/bin/python bench/manipulation_calibration.py [--runs 2000] [--taus 0,0.5,1.0]
        [--bases 6,12,24] [--shifts 0.3,0.6,1.0] [--power-tau 0.5]
"""

from __future__ import annotations

import argparse
import time

from fairpanel.judging.simulate import (
    CallRate,
    ManipulationModel,
    manipulation_calibration,
)

PLANTED = "verbosity-2x"


def _numbers(text: str) -> list[float]:
    return [float(part) for part in text.split(",") if part.strip()]


def _rate(rate: CallRate) -> str:
    return f"{rate.rate:.3f} [{rate.ci_low:.3f}, {rate.ci_high:.3f}] ({rate.calls}/{rate.runs})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--taus", default="0,0.5,1.0")
    parser.add_argument("--bases", default="6,12,24")
    parser.add_argument("--shifts", default="0.3,0.6,1.0")
    parser.add_argument("--power-tau", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    bases = [int(b) for b in _numbers(args.bases)]
    started, cpu = time.perf_counter(), time.process_time()
    print(f"Model (tau and bases vary below): {ManipulationModel().describe()}")
    print(f"\nNo bias planted: share of runs with any false call, {args.runs} runs each")
    print("| tau | bases | false calls per run [Wilson 95%] | worst label's call rate |")
    print("|---|---|---|---|")
    for tau in _numbers(args.taus):
        for n in bases:
            model = ManipulationModel(tau=tau, n_bases=n)
            result = manipulation_calibration(model, args.runs, seed=args.seed)
            worst = max(result.labels, key=lambda row: row.calls)
            print(
                f"| {tau:g} | {n} | {_rate(result.false_calls)} | {worst.name} {worst.rate:.3f} |",
                flush=True,
            )
    print(
        f"\nPlanted shift on {PLANTED} (points, on the manipulated candidate; pairs through "
        f"the scores), tau {args.power_tau:g}: share of runs calling it, {args.runs} runs each"
    )
    print(
        "| shift | bases | power [Wilson 95%] | single trials alone | pairs alone | "
        "false calls per run (other labels) |"
    )
    print("|---|---|---|---|---|---|")
    for shift in _numbers(args.shifts):
        for n in bases:
            model = ManipulationModel(tau=args.power_tau, n_bases=n, planted={PLANTED: shift})
            result = manipulation_calibration(model, args.runs, seed=args.seed)
            single, pair = (result.rate(PLANTED, p).rate for p in ("single", "pair"))
            print(
                f"| {shift:g} | {n} | {_rate(result.rate(PLANTED))} | {single:.3f} | "
                f"{pair:.3f} | {_rate(result.false_calls)} |",
                flush=True,
            )
    print(
        f"\n{time.perf_counter() - started:.0f} s wall, {time.process_time() - cpu:.0f} s CPU",
        flush=True,
    )


if __name__ == "__main__":
    main()
