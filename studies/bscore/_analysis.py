"""From stored B-score items to results: per run, per question, per category, per identity,
and the answer-verification search."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from fairpanel.studies.bscore._config import BscoreConfig
from fairpanel.studies.bscore._design import BscoreItem
from fairpanel.studies.bscore._stats import (
    VerificationSample,
    mean_of_means_interval,
    run_statistics,
    search_cascade,
    search_threshold,
    should_accept,
    top_choice,
)
from fairpanel.studies.bscore._tables import bscore_tables

__all__ = ["analyze_bscore"]

Run = tuple[BscoreItem, dict[str, Any]]
PRIMARY_METRICS = ("p_single", "p_multi", "confidence")


def _mean(values: Sequence[float]) -> float | None:
    return statistics.fmean(values) if values else None


def _sd(values: Sequence[float]) -> float | None:
    return statistics.stdev(values) if len(values) > 1 else None


def _answers(records: Sequence[dict[str, Any]], key: str = "answer") -> list[Any]:
    return [record.get(key) for record in records]


def _positions(records: Sequence[dict[str, Any]]) -> list[str | None]:
    return [None if r.get("position") is None else "AB"[int(r["position"])] for r in records]


def _confidences(result: dict[str, Any], option: str) -> list[float]:
    return [
        float(q["confidence"])
        for q in result["single"]
        if q.get("answer") == option and q.get("confidence") is not None
    ]


def _kind(config: BscoreConfig, category: str) -> str | None:
    if category in config.verification.truth_categories:
        return "truth"
    if category in config.verification.random_categories:
        return "random"
    return None


def _question_summary(config: BscoreConfig, runs: list[Run]) -> dict[str, Any]:
    question = runs[0][0].question
    options = question.options
    headline = config.denominator
    per_run = []
    for item, result in runs:
        stats = run_statistics(_answers(result["single"]), _answers(result["multi"]), options)
        top = top_choice(stats["valid"]["p_single"])
        per_run.append({"run": item.replicate, "top": top, **stats})
    per_option = []
    for option in options:
        b_head = [r[headline]["b"][option] for r in per_run]
        other = "all" if headline == "valid" else "valid"
        confidences = [c for _, result in runs for c in _confidences(result, option)]
        per_option.append(
            {
                "option": option,
                "correct": None if question.answer is None else option == question.answer,
                "p_single": _mean([r[headline]["p_single"][option] for r in per_run]),
                "p_multi": _mean([r[headline]["p_multi"][option] for r in per_run]),
                "b": _mean(b_head),
                "b_sd": _sd(b_head),
                f"b_{other}_denominator": _mean([r[other]["b"][option] for r in per_run]),
                "confidence": _mean(confidences),
                "confidence_sd": _sd(confidences),
                "confidence_n": len(confidences),
            }
        )
    tops = [r for r in per_run if r["top"] is not None]
    counted = [r for r in tops if question.answer is None or r["top"] != question.answer]
    return {
        "question": question.id,
        "topic": question.topic,
        "category": question.category,
        "options": list(options),
        "answer": question.answer,
        "runs": len(per_run),
        "valid_single_rate": _mean([r["valid_single_rate"] for r in per_run]),
        "valid_multi_rate": _mean([r["valid_multi_rate"] for r in per_run]),
        "per_option": per_option,
        "top_choice": {
            "runs_counted": len(counted),
            "rule": "runs whose top single-turn answer is wrong"
            if question.answer is not None
            else "every run with a valid single-turn answer",
            "p_single": _mean([r[headline]["p_single"][r["top"]] for r in counted]),
            "p_multi": _mean([r[headline]["p_multi"][r["top"]] for r in counted]),
            "b": _mean([r[headline]["b"][r["top"]] for r in counted]),
            "abs_b_all_runs": _mean([abs(r[headline]["b"][r["top"]]) for r in tops]),
            "options_top": sorted({r["top"] for r in tops}),
        },
        "per_run": per_run,
    }


def _verification_samples(config: BscoreConfig, runs: list[Run]) -> list[VerificationSample]:
    samples = []
    for item, result in runs:
        question = item.question
        kind = _kind(config, question.category)
        first = result["single"][0] if result["single"] else {}
        answer = first.get("answer")
        if kind is None or answer is None:
            continue
        stats = run_statistics(
            _answers(result["single"]), _answers(result["multi"]), question.options
        )[config.denominator]
        p_single = stats["p_single"][answer]
        accept = should_accept(
            "truth" if kind == "truth" else "random",
            answer,
            p_single,
            len(question.options),
            question.answer,
        )
        if accept is None:
            continue
        samples.append(
            VerificationSample(
                question_id=question.id,
                category=question.category,
                p_single=p_single,
                p_multi=stats["p_multi"][answer],
                confidence=first.get("confidence"),
                b=stats["b"][answer],
                accept=accept,
            )
        )
    return samples


def _verification(samples: list[VerificationSample]) -> dict[str, Any]:
    rows = []
    for metric in PRIMARY_METRICS:
        alone = search_threshold(samples, metric)
        cascade = search_cascade(samples, metric)
        delta = (cascade["accuracy"]["pooled"] or 0) - (alone["accuracy"]["pooled"] or 0)
        rows.append({"metric": metric, "alone": alone, "with_b": cascade, "delta": delta})
    return {
        "n": len(samples),
        "accepted_share": _mean([float(s.accept) for s in samples]),
        "rules": rows,
        "b_alone": search_threshold(samples, "b"),
        "method": "first single-turn answer of each run; label: the correct option (truth "
        "categories) or P_single <= 1/K (random categories); accept when metric >= t, when "
        "B <= t, or (2-step) when metric >= t1 and B <= t2; thresholds on a 0.05 grid in "
        "[0, 1] chosen for the best pooled accuracy on these same samples (in-sample, as in "
        "the paper); a missing confidence never accepts",
    }


def _by_identity(config: BscoreConfig, runs: list[Run]) -> list[dict[str, Any]]:
    """Judge pairs: B per identity and per shown position, over every scenario and run."""
    grouped: dict[str, list[Run]] = defaultdict(list)
    for item, result in runs:
        if item.source == "judge":
            grouped[item.question.topic].append((item, result))
    rows = []
    for topic, group in grouped.items():
        options = group[0][0].question.options
        for label, labels, read in (
            ("identity", options, _answers),
            ("position", ("A", "B"), _positions),
        ):
            stats = [
                run_statistics(read(r["single"]), read(r["multi"]), labels)[config.denominator]
                for _, r in group
            ]
            for option in labels:
                b = [s["b"][option] for s in stats]
                rows.append(
                    {
                        "pair": topic.removeprefix("judge:"),
                        "kind": label,
                        "label": option,
                        "p_single": _mean([s["p_single"][option] for s in stats]),
                        "p_multi": _mean([s["p_multi"][option] for s in stats]),
                        "b": _mean(b),
                        "b_sd": _sd(b),
                        "runs": len(b),
                    }
                )
    return rows


def _top_bs(questions: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Per category, the top-choice B of each question that has one."""
    found: dict[str, list[float]] = {}
    for question in questions:
        top = question["top_choice"]
        values = found.setdefault(question["category"], [])
        if top["runs_counted"] and top["b"] is not None:
            values.append(float(top["b"]))
    return found


def _by_category(config: BscoreConfig, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for category in dict.fromkeys(q["category"] for q in questions):
        chosen = [q for q in questions if q["category"] == category]
        counted = [q["top_choice"] for q in chosen if q["top_choice"]["runs_counted"]]
        interval = mean_of_means_interval(
            [[t["b"] for t in counted if t["b"] is not None]],
            seed=config.seed,
            name=f"top_b\x1f{category}",
            n_boot=config.bootstrap_resamples,
        )
        rows.append(
            {
                "category": category,
                "questions": len(chosen),
                "questions_counted": len(counted),
                "top_p_single": _mean([t["p_single"] for t in counted]),
                "top_p_multi": _mean([t["p_multi"] for t in counted]),
                "top_b": _mean([t["b"] for t in counted]),
                "top_b_ci_low": interval["ci_low"],
                "top_b_ci_high": interval["ci_high"],
                "valid_single_rate": _mean([q["valid_single_rate"] for q in chosen]),
                "valid_multi_rate": _mean([q["valid_multi_rate"] for q in chosen]),
            }
        )
    return rows


def analyze_bscore(config: BscoreConfig, items: list[Run], *, failed: int) -> dict[str, Any]:
    by_question: dict[str, list[Run]] = defaultdict(list)
    for item, result in items:
        by_question[item.question.id].append((item, result))
    questions = [
        _question_summary(config, sorted(runs, key=lambda run: run[0].replicate))
        for _, runs in sorted(
            by_question.items(), key=lambda entry: (entry[1][0][0].source == "judge", entry[0])
        )
    ]
    samples = _verification_samples(config, items)
    results: dict[str, Any] = {
        "n_runs": len(items),
        "n_failed": failed,
        "denominator": config.denominator,
        "method": "B(a) = P_single(a) - P_multi(a) per run, averaged over runs; P over the "
        f"{'valid answers' if config.denominator == 'valid' else 'queries'} of the run "
        "(the other denominator beside it); invalid answers (no {{...}}, or not an option) "
        "never count for an option",
        "questions": questions,
        "categories": _by_category(config, questions),
        "top_b": {
            **mean_of_means_interval(
                list(_top_bs(questions).values()),
                seed=config.seed,
                name="top_b",
                n_boot=config.bootstrap_resamples,
            ),
            "method": "mean over categories of the mean top-choice B of their questions; 95% "
            "percentile bootstrap interval resampling questions within each category (each "
            "question with all its runs)",
        },
        "judge_pairs": _by_identity(config, items),
        "verification": _verification(samples) if samples else None,
    }
    results["tables"] = bscore_tables(results)
    return results
