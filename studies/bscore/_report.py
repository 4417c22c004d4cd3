"""B-score's report: the mean B of the top answers, per question, the judge and verification."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fairpanel.report import (
    DisplayTables,
    Section,
    StudyPage,
    StudyVerdict,
    percent,
)
from fairpanel.studies.bscore._figures import (
    bscore_judge_figure,
    bscore_questions_figure,
    verification_figure,
)
from fairpanel.studies.bscore._readers import BscoreResults, Verification

__all__ = ["bscore_report"]


def _verification_sentence(verification: Verification | None) -> str | None:
    if verification is None or not verification.rules:
        return None
    rules = verification.rules
    gains = [r.delta for r in rules if r.delta is not None]
    best = max(rules, key=lambda r: r.delta or 0)
    helps = bool(gains) and min(gains) > 0
    return (
        f"Verification: adding B {'raises' if helps else 'does not raise'} pooled accuracy for "
        f"every metric (best: {best.metric} {percent(best.alone.accuracy.pooled, 1)} "
        f"to {percent(best.with_b.accuracy.pooled, 1)}; thresholds tuned in-sample, "
        f"n = {verification.n})."
        if helps
        else f"Verification: adding B does not raise pooled accuracy for every metric "
        f"(changes {', '.join(f'{g:+.1%}' for g in gains)}; n = {verification.n})."
    )


def _interval(low: float | None, high: float | None, how: str = "") -> str:
    """`` (how 95% CI low to high)``, or nothing when there is no interval."""
    if low is None or high is None:
        return ""
    return f" ({how}95% CI {low:+.3f} to {high:+.3f})"


def bscore_report(results: Mapping[str, Any]) -> StudyPage:
    """The mean B of the top answers, then B per question, the judge's verdicts and the
    answer verification."""
    tables = DisplayTables(results)
    read = BscoreResults.model_validate(results)
    categories = [(c, c.top_b) for c in read.categories if c.top_b is not None]
    verification = read.verification
    details = [
        f"{c.category}: top answer P single {percent(c.top_p_single, 1)}, P multi "
        f"{percent(c.top_p_multi, 1)}, B {b:+.3f}{_interval(c.top_b_ci_low, c.top_b_ci_high)}"
        for c, b in categories
    ]
    checked = _verification_sentence(verification)
    if not categories:
        verdict = StudyVerdict("nodata", "No verdict yet", "No valid answers stored yet.")
    else:
        mean_b = sum(b for _, b in categories) / len(categories)
        overall = _interval(read.top_b.ci_low, read.top_b.ci_high, "bootstrap over questions, ")
        verdict = StudyVerdict(
            "measured",
            "B-score measured",
            f"Top single-turn answers have a mean B of {mean_b:+.3f} over {len(categories)} "
            f"categories{overall}: "
            + (
                "the model repeats them less once it sees its earlier answers."
                if mean_b > 0
                else "seeing its earlier answers does not make the model move away from them."
            )
            + (f" {checked}" if checked else ""),
            details,
        )
    questions = Section(
        "bscore-questions",
        "B per question and answer",
        "B(a) = P_single(a) − P_multi(a): how much more often the model gives answer a when asked "
        f"afresh than when it sees its earlier answers. {read.method}",
    )
    questions.figure(
        bscore_questions_figure(read.questions),
        "B of each question's top single-turn answer (mean over runs).",
        "No question has a valid top answer.",
    )
    tables.claim(questions, "Top single-turn")
    tables.claim(questions, "B-score per option")
    judge = Section(
        "bscore-judge",
        "Judge verdicts",
        "The judge decides identity-swapped pairs alone and with its earlier verdicts in view; "
        "a positive B for an identity means it wins more often when the judge cannot see its "
        "own history.",
    )
    judge.figure(
        bscore_judge_figure(read.judge_pairs),
        "B per identity and shown position, ±1 SD over runs.",
        "No judge pairs in this study.",
    )
    tables.claim(judge, "Judge verdicts")
    check = Section(
        "bscore-verification",
        "Answer verification",
        (checked or "No verification samples.")
        + f" {verification.method if verification is not None else ''}",
    )
    check.figure(
        verification_figure(verification),
        "Pooled accuracy of accepting an answer by each metric alone and together with B.",
        "No verification samples (no questions with a known answer or a random category).",
    )
    tables.claim(check, "Answer verification")
    return StudyPage(verdict, [questions, judge, check])
