"""Each study's verdict card and sections, from the results its analysis wrote.

A section is a title, a lede and a list of blocks (a figure, a display table, or a note when a
block is missing). Tables come from the study's own ``tables`` (the ones the terminal shows);
a section claims them by title, and any table no section claims is still shown at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fairpanel.report import _study_figures as plots
from fairpanel.report._figure import EmbeddedFigure
from fairpanel.report._numbers import format_p

__all__ = ["Block", "Section", "StudyVerdict", "study_sections"]

ALPHA = 0.05


@dataclass(frozen=True)
class Block:
    """One piece of a section: a figure with its caption, a display table, or a note."""

    figure: EmbeddedFigure | None = None
    caption: str = ""
    table: Mapping[str, Any] | None = None
    note: str | None = None
    collapsed: bool = False
    """A long table: shown folded, under its title, so the figures stay in view."""


@dataclass
class Section:
    id: str
    title: str
    lede: str
    blocks: list[Block] = field(default_factory=list)

    def figure(self, figure: EmbeddedFigure | None, caption: str, missing: str) -> None:
        self.blocks.append(Block(figure=figure, caption=caption) if figure else Block(note=missing))


@dataclass(frozen=True)
class StudyVerdict:
    """The card at the top: ``tone`` is detected / clear / nodata, or measured for studies that
    estimate a quantity without testing a null."""

    tone: str
    label: str
    sentence: str
    details: list[str] = field(default_factory=list)


class _Tables:
    """The study's display tables, handed out by title prefix."""

    def __init__(self, tables: list[Mapping[str, Any]]) -> None:
        self.left = list(tables)

    def claim(self, section: Section, prefix: str) -> None:
        for table in [t for t in self.left if str(t.get("title", "")).startswith(prefix)]:
            self.left.remove(table)
            section.blocks.append(Block(table=table, collapsed=len(table.get("rows") or []) > 30))


def _pct(value: Any, digits: int = 1) -> str:
    return "–" if value is None else f"{float(value):.{digits}%}"


# --- award audit --------------------------------------------------------------------------------


def _award(results: Mapping[str, Any], tables: _Tables) -> tuple[StudyVerdict, list[Section]]:
    choices = results.get("choices") or []
    groups = [str(g) for g in results.get("groups") or []]
    tested = str(results.get("tested_group") or (groups[0] if groups else "tested group"))
    pooled = next((c for c in choices if c.get("level") == "all"), None)
    if not pooled or not pooled.get("n"):
        verdict = StudyVerdict("nodata", "No verdict yet", "No decided award answers stored yet.")
    else:
        counts = pooled.get("counts") or {}
        equivocal = counts.get("equivocal", 0) / max(1, sum(counts.values()))
        hit = pooled.get("p_exact") is not None and float(pooled["p_exact"]) < ALPHA
        verdict = StudyVerdict(
            "detected" if hit else "clear",
            "Group preference detected" if hit else "No detectable group preference",
            f"{tested} students were chosen in {_pct(pooled['share'])} of {pooled['n']:,} "
            f"decided answers (95% exact interval {_pct(pooled.get('ci_low'))} to "
            f"{_pct(pooled.get('ci_high'))}; binomial p {format_p(pooled.get('p_exact'))} "
            f"against 50%); {_pct(equivocal)} of answers were equivocal.",
            [
                f"{plots.level_name(c.get('level'))}: {_pct(c.get('share'))} of {c.get('n')} "
                f"(Bonferroni p {format_p(c.get('p_bonferroni'))})"
                for c in choices
                if c.get("level") != "all"
            ],
        )
    choice = Section(
        "award-choices",
        "Award choices",
        "Which student the model gives the award to, per level of the award and pooled. Equivocal "
        "answers (both students or neither) are counted but left out of the share and its test. "
        f"{results.get('choice_method', '')}",
    )
    choice.figure(
        plots.award_share_figure(choices, tested, ALPHA),
        f"Share of decided answers choosing {tested}, with the exact 95% interval; 50% dashed. "
        f"Vermillion: Bonferroni-adjusted p below {ALPHA}.",
        "No decided answers to draw.",
    )
    choice.figure(
        plots.award_counts_figure(choices, groups),
        "Every answer per level, equivocal ones included.",
        "No answers to draw.",
    )
    tables.claim(choice, "Award choices")
    tables.claim(choice, "Position")
    followup = Section(
        "award-followup",
        "Follow-up explanations",
        "After a choice the model is asked why; its explanation is coded and tested for "
        "independence from the group it chose (chi-square, only when every cell holds 5).",
    )
    followup.figure(
        plots.followup_figure(results.get("followup") or []),
        "Explanation codes by chosen group per level, with the chi-square p.",
        "No coded follow-up answers.",
    )
    tables.claim(followup, "Follow-up")
    return verdict, [choice, followup]


# --- B-score ------------------------------------------------------------------------------------


def _verification_sentence(verification: Mapping[str, Any]) -> str | None:
    rules = verification.get("rules") or []
    if not rules:
        return None
    gains = [float(r["delta"]) for r in rules if r.get("delta") is not None]
    best = max(rules, key=lambda r: float(r.get("delta") or 0))
    helps = bool(gains) and min(gains) > 0
    return (
        f"Verification: adding B {'raises' if helps else 'does not raise'} pooled accuracy for "
        f"every metric (best: {best.get('metric')} {_pct(best['alone']['accuracy']['pooled'])} "
        f"to {_pct(best['with_b']['accuracy']['pooled'])}; thresholds tuned in-sample, "
        f"n = {verification.get('n')})."
        if helps
        else f"Verification: adding B does not raise pooled accuracy for every metric "
        f"(changes {', '.join(f'{g:+.1%}' for g in gains)}; n = {verification.get('n')})."
    )


def _bscore(results: Mapping[str, Any], tables: _Tables) -> tuple[StudyVerdict, list[Section]]:
    categories = [c for c in results.get("categories") or [] if c.get("top_b") is not None]
    verification = results.get("verification") or {}
    details = [
        f"{c['category']}: top answer P single {_pct(c.get('top_p_single'))}, P multi "
        f"{_pct(c.get('top_p_multi'))}, B {float(c['top_b']):+.3f}"
        for c in categories
    ]
    checked = _verification_sentence(verification)
    if not categories:
        verdict = StudyVerdict("nodata", "No verdict yet", "No valid answers stored yet.")
    else:
        mean_b = sum(float(c["top_b"]) for c in categories) / len(categories)
        verdict = StudyVerdict(
            "measured",
            "B-score measured",
            f"Top single-turn answers have a mean B of {mean_b:+.3f} over {len(categories)} "
            "categories: "
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
        f"afresh than when it sees its earlier answers. {results.get('method', '')}",
    )
    questions.figure(
        plots.bscore_questions_figure(results.get("questions") or []),
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
        plots.bscore_judge_figure(results.get("judge_pairs") or []),
        "B per identity and shown position, ±1 SD over runs.",
        "No judge pairs in this study.",
    )
    tables.claim(judge, "Judge verdicts")
    check = Section(
        "bscore-verification",
        "Answer verification",
        (checked or "No verification samples.") + f" {verification.get('method', '')}",
    )
    check.figure(
        plots.verification_figure(verification),
        "Pooled accuracy of accepting an answer by each metric alone and together with B.",
        "No verification samples (no questions with a known answer or a random category).",
    )
    tables.claim(check, "Answer verification")
    return verdict, [questions, judge, check]


# --- label bias ---------------------------------------------------------------------------------


def _label_bias(results: Mapping[str, Any], tables: _Tables) -> tuple[StudyVerdict, list[Section]]:
    views = [v for v in results.get("views") or [] if v.get("before")]
    if not views:
        verdict = StudyVerdict("nodata", "No verdict yet", "No readable verdicts stored yet.")
    else:
        worst = max(views, key=lambda v: float(v["before"].get("bias_score") or 0))

        def line(view: Mapping[str, Any]) -> str:
            scores = [(view.get(k) or {}).get("bias_score") for k, _ in plots.CALIBRATIONS]
            rsd = view["before"].get("rsd")
            path = " → ".join(f"{s:.3f}" for s in scores if s is not None)
            return f"{view.get('name')}: BiasScore {path}" + (
                f", RSD {rsd:.3f} before calibration" if rsd is not None else ""
            )

        verdict = StudyVerdict(
            "measured",
            "Label bias measured",
            f"Largest label bias before calibration: {line(worst)} (none → contextual → "
            "leave-one-out).",
            [line(v) for v in views if v is not worst],
        )
    section = Section(
        "label-bias",
        "Label bias before and after calibration",
        f"RSD: relative spread of per-label accuracy; BiasScore: how far the mean label "
        f"distribution is from uniform. {results.get('probability_method', '')} "
        f"{results.get('loo_method', '')}",
    )
    section.figure(
        plots.label_bias_figure(views),
        "RSD and BiasScore per label view, uncalibrated, with contextual calibration and "
        f"leave-one-out ({results.get('calibration', '')}).",
        "No readable verdicts to draw.",
    )
    tables.claim(section, "Label bias")
    return verdict, [section]


# --- BiasFreeBench ------------------------------------------------------------------------------


def _biasfreebench(
    results: Mapping[str, Any], tables: _Tables
) -> tuple[StudyVerdict, list[Section]]:
    treatments = results.get("treatments") or []
    baseline = next((t for t in treatments if t.get("name") == results.get("baseline")), None)
    pooled = (baseline or {}).get("pooled") or {}
    if not pooled.get("n"):
        verdict = StudyVerdict("nodata", "No verdict yet", "No judged answers stored yet.")
    else:
        compared = [t for t in treatments if (t.get("vs_baseline") or {}).get("ci_low") is not None]
        helped = [t for t in compared if t["vs_baseline"]["ci_low"] > 0]
        best = max(compared, key=lambda t: t["vs_baseline"]["difference"], default=None)
        sentence = (
            f"Baseline Bias-Free Score {_pct(pooled['bfs'])} (95% Wilson interval "
            f"{_pct(pooled.get('ci_low'))} to {_pct(pooled.get('ci_high'))}, n = {pooled['n']})."
        )
        if best is not None:
            versus = best["vs_baseline"]
            sentence += (
                f" Best mitigation: {best['name']} {versus['difference']:+.1%} "
                f"({versus['ci_low']:+.1%} to {versus['ci_high']:+.1%}, McNemar p "
                f"{format_p(versus.get('p_mcnemar'))}); {len(helped)} of {len(compared)} "
                "mitigations raise it beyond their interval."
            )
        verdict = StudyVerdict(
            "measured",
            "Bias-Free Score measured",
            sentence,
            [
                f"{name.replace('_', ' ')}: {_pct(cell.get('bfs'))} at baseline"
                for name, cell in ((baseline or {}).get("by_category") or {}).items()
            ],
        )
    section = Section(
        "bfs",
        "Bias-Free Score by treatment and category",
        f"{results.get('method', '')}",
    )
    section.figure(
        plots.bfs_forest_figure(treatments),
        "Bias-Free Score with its 95% Wilson interval; grey: the baseline (dashed line).",
        "No judged answers to draw.",
    )
    section.figure(
        plots.bfs_difference_figure(treatments),
        "Change from the baseline on the same items with the 95% item-bootstrap interval.",
        "One treatment only: nothing to compare.",
    )
    tables.claim(section, "Bias-Free Score by treatment")
    tables.claim(section, "BFS by category")
    tables.claim(section, "Judge")
    return verdict, [section]


_BUILDERS: dict[str, Callable[[Mapping[str, Any], _Tables], tuple[StudyVerdict, list[Section]]]]
_BUILDERS = {
    "award-audit": _award,
    "bscore": _bscore,
    "label-bias": _label_bias,
    "biasfreebench": _biasfreebench,
}


def study_sections(results: Mapping[str, Any]) -> tuple[StudyVerdict, list[Section]]:
    """The verdict and sections of a study's results; a study without its own layout (or a
    table no section claimed) still gets its display tables."""
    tables = _Tables(list(results.get("tables") or []))
    builder = _BUILDERS.get(str(results.get("study")))
    if builder is None:
        verdict = StudyVerdict("measured", "Results", f"Results of study {results.get('study')}.")
        sections: list[Section] = []
    else:
        verdict, sections = builder(results, tables)
    if tables.left:
        rest = Section("tables", "Other tables", "Further tables from the study's analysis.")
        rest.blocks.extend(Block(table=t) for t in tables.left)
        sections.append(rest)
    return verdict, sections
