"""The report's headline: the analysis's own verdict when results.json has one, otherwise a
careful sentence derived from what it does hold (chi-square tests and win rates).

The derived sentence corrects for the number of chi-square tests (Bonferroni, the simplest
valid correction for the smallest of m p-values) and says what it rests on, because a reader
takes the first sentence of a report as its answer. The few statistics it applies are the
analysis's, reached through its face when used, so the terminal's answer loads no scipy.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from fairpanel import analysis
from fairpanel.analysis import (
    ArmResults,
    ChiSquareRow,
    EffectRow,
    HeadlineBlock,
    RunResults,
    WinRateRow,
)
from fairpanel.report._numbers import format_p

__all__ = [
    "MAX_FOREST_ROWS",
    "SMALL_RUN_TRIALS",
    "Headline",
    "adjusted_p",
    "decided_win_rates",
    "design_limits",
    "design_warnings",
    "detectable_sentence",
    "family_sentence",
    "forest_rows",
    "headline_of",
    "run_warnings",
    "small_n_warnings",
]

Tone = Literal["detected", "clear", "nodata"]
DEFAULT_ALPHA = 0.05
SMALL_RUN_TRIALS = 100
"""Below this many main-arm trials the report warns that intervals are wide."""
SMALL_CELL = 30
"""Below this many decided pairs a single win rate's interval is wider than about +-17 points."""
MAX_FOREST_ROWS = 40
"""Effects the forest plot draws at most (smallest adjusted p first)."""


@dataclass(frozen=True)
class Headline:
    """The verdict card: the identity ``verdict``; the ``position`` claim on its own line; the
    ``families`` the verdict rests on ("Holm over N primary tests; ..."); ``limits``, what the
    design can and cannot show when it gave no verdict; then the basis and details."""

    verdict: str
    tone: Tone
    source: Literal["analysis", "derived"]
    basis: str
    details: list[str] = field(default_factory=list)
    position: str = ""
    families: str = ""
    limits: str = ""


def p_is(p_value: float | None) -> str:
    """'p=0.003' or 'p<0.0001', for sentences."""
    text = format_p(p_value)
    return f"p{text}" if text.startswith("<") else f"p={text}"


def _trial_basis(results: ArmResults) -> str:
    counts = results.n_trials
    total = sum(int(v) for v in counts.values())
    parts = ", ".join(f"{int(v)} {k}" for k, v in counts.items() if v)
    return f"Rests on {total} main-arm trial{'s' if total != 1 else ''}" + (
        f" ({parts})." if parts else "."
    )


def _chi_square_tests(results: ArmResults) -> list[tuple[ChiSquareRow, float]]:
    """The chi-square tests that have a p-value, each with it."""
    rows = [*results.single.chi_square, *results.pair.chi_square]
    return [(row, float(row.p_value)) for row in rows if row.p_value is not None]


def _chi_square_sentence(
    tests: Sequence[tuple[ChiSquareRow, float]], alpha: float
) -> tuple[str | None, bool]:
    if not tests:
        return None, False
    smallest, p = min(tests, key=lambda test: test[1])
    adjusted = analysis.bonferroni(p, len(tests))
    where = f"{smallest.category} {smallest.metric}, {smallest.protocol} trials"
    if adjusted < alpha:
        return (
            f"Score levels differ by identity on {where}: chi-square {p_is(p)}, "
            f"{p_is(adjusted)} after Bonferroni over {len(tests)} tests. The test treats "
            "every judge score as independent, which they are not; confirm with the paired, "
            "clustered tests before acting on it.",
            True,
        )
    return (
        f"No identity difference in score levels at alpha={alpha:g}: the smallest of "
        f"{len(tests)} chi-square p-values is {format_p(p)} ({where}), {p_is(adjusted)} "
        "after Bonferroni.",
        False,
    )


def decided_win_rates(rows: Sequence[WinRateRow]) -> list[WinRateRow]:
    """The win rates as shares of the decided pairs with the tie share beside them, as the
    analysis now writes them; a row from an older results.json (no ``tie_share``: its rate was
    wins over appearances) is recomputed from its counts, so every file reads the same way."""
    out = []
    for row in rows:
        if row.tie_share is not None:
            out.append(row)
            continue
        decided = row.wins + row.losses
        low, high = analysis.wilson_interval(row.wins, decided, 0.95) if decided else (None, None)
        out.append(
            row.model_copy(
                update={
                    "rate": row.wins / decided if decided else None,
                    "ci_low": low,
                    "ci_high": high,
                    "confidence": 0.95,
                    "n": decided,
                    "tie_share": row.ties / row.appearances if row.appearances else None,
                }
            )
        )
    return out


def _win_rate_sentence(rates: Sequence[WinRateRow]) -> tuple[str | None, bool]:
    """The identity furthest from an even split of its decided pairs (ties left out, since a
    tie is a win for neither side), with a Wilson interval on that share."""
    decided = [(r, r.wins, r.losses) for r in rates if r.wins + r.losses > 0]
    if not decided:
        return None, False
    # Rounded so that complementary shares (64% vs 36%) tie and the higher one is named.
    row, wins, losses = max(
        decided, key=lambda d: (round(abs(d[1] / (d[1] + d[2]) - 0.5), 9), d[1] / (d[1] + d[2]))
    )
    total = wins + losses
    low, high = analysis.wilson_interval(wins, total, 0.95)
    excludes = bool(low > 0.5 or high < 0.5)
    ties = row.ties / row.appearances if row.appearances else 0.0
    tail = "an interval that excludes 50%" if excludes else "an interval that includes 50%"
    return (
        f"Furthest from an even split in pairs: {row.identity} ({row.category}) won "
        f"{wins / total:.0%} of {total} decided pairs (95% CI {low:.0%} to {high:.0%}; "
        f"ties {ties:.0%} of its {row.appearances} pairs), {tail}.",
        excludes,
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def family_sentence(headline: HeadlineBlock) -> str:
    """'Holm over 4 primary tests; 36 secondary tests with BH, exploratory', or '' when no
    primary test ran or the file was written before the headline had one primary family."""
    if not headline.min_bases or not headline.tests:
        return ""
    return (
        f"Holm over {_plural(int(headline.tests), 'primary test')}; "
        f"{_plural(int(headline.secondary_tests), 'secondary test')} with BH, exploratory."
    )


def detectable_sentence(headline: HeadlineBlock) -> str:
    """What a tested run could have seen: the shift its most sensitive primary contrast finds
    in 80% of runs like it (``headline.mde``), so "no detectable effect" has a size."""
    if headline.mde is None or not headline.tests:
        return ""
    mde = float(headline.mde)
    size = (
        f"{mde:.2f} points or more on the 0-10 scale"
        if headline.mde_scale == "score points"
        else f"{mde * 100:.0f} percentage points or more of win share"
    )
    return (
        f"This run would have found {size} in 80% of runs like this one (its most sensitive "
        f"primary contrast, at Holm's first step, alpha/{int(headline.tests)}); smaller "
        "effects may go unseen."
    )


def design_limits(headline: HeadlineBlock) -> str:
    """What the design can and cannot show: with a verdict, the smallest effect it could have
    found; without one, why there is none."""
    if not headline.min_bases:
        return ""
    if headline.identity_effect is not None:
        return detectable_sentence(headline)
    if headline.min_bases and headline.n_bases < headline.min_bases:
        return (
            f"{_plural(int(headline.n_bases), 'base scenario')}: effects are estimated but not "
            f"tested; {headline.min_bases} are needed to generalise over scenarios. More base "
            "scenarios (scenarios.bases) give a verdict; more derived scenarios or replicates "
            "per base do not."
        )
    return (
        "No identity contrast could be tested: the design has no two identities of one "
        "category on matched answers (see the reasons below)."
    )


def _analysis_headline(given: HeadlineBlock, basis: str) -> Headline:
    """The analysis's own headline; a file from before the primary family reads as it did."""
    detected = list(given.detected)
    details = []
    if detected:
        details.append(
            f"{len(detected)} primary contrast(s) called at alpha={given.alpha} after "
            "correction: " + ", ".join(detected)
        )
    if given.exploratory:
        details.append(
            "Exploratory (secondary family, BH; never changes the verdict): "
            + ", ".join(given.exploratory)
        )
    details += [f"Skipped: {reason}" for reason in given.skipped]
    if given.min_bases:  # written with one primary family (older files have no min_bases)
        called = given.identity_effect
        tone: Tone = "nodata" if called is None else "detected" if called else "clear"
    else:
        tone = "nodata" if given.tests == 0 else "detected" if detected else "clear"
    return Headline(
        verdict=given.verdict,
        tone=tone,
        source="analysis",
        basis=basis,
        details=details,
        position=given.position,
        families=family_sentence(given),
        limits=design_limits(given),
    )


def headline_of(results: ArmResults) -> Headline:
    """The verdict card's content; never raises on partial or empty results."""
    basis = _trial_basis(results)
    given = results.headline
    if given is not None and given.verdict:
        return _analysis_headline(given, basis)
    alpha = float(given.alpha) if given is not None else DEFAULT_ALPHA
    chi_sentence, chi_hit = _chi_square_sentence(_chi_square_tests(results), alpha)
    win_sentence, win_hit = _win_rate_sentence(results.pair.win_rates)
    sentences = [s for s in (chi_sentence, win_sentence) if s]
    if not sentences:
        return Headline(
            verdict="No verdict: this run has no scored trials in the main arm yet.",
            tone="nodata",
            source="derived",
            basis=basis,
        )
    return Headline(
        verdict=sentences[0],
        tone="detected" if chi_hit or win_hit else "clear",
        source="derived",
        basis=basis,
        details=sentences[1:],
    )


def small_n_warnings(results: ArmResults) -> list[str]:
    """Honest caveats the reader should see before the figures."""
    warnings: list[str] = []
    total = sum(results.n_trials.values())
    if 0 < total < SMALL_RUN_TRIALS:
        warnings.append(
            f"Small run: {total} main-arm trials. Intervals are wide and the tests have little "
            "power, so 'no detectable difference' here is weak evidence that the judges are "
            "fair; plan a larger design before drawing conclusions."
        )
    rows = decided_win_rates(results.pair.win_rates)
    thin = sorted({r.category for r in rows if r.n < SMALL_CELL})
    if thin:
        warnings.append(
            f"Fewer than {SMALL_CELL} decided pairs per identity in {', '.join(thin)}: each "
            "win rate's interval spans more than about 30 points."
        )
    turns = sum(f.turns for f in results.failures)
    failed = sum(f.failures for f in results.failures)
    if turns and failed / turns > 0.1:
        warnings.append(
            f"{failed / turns:.0%} of judge turns did not parse ({failed} of {turns}); the "
            "scores come from the rest, which may not be a random subset."
        )
    return warnings


def adjusted_p(row: EffectRow) -> float | None:
    """The Holm-adjusted p, or the raw one for effects from before the correction existed."""
    p = row.p_holm if "p_holm" in row.model_fields_set else row.p_value
    return None if p is None else float(p)


def forest_rows(effects: Sequence[EffectRow]) -> list[EffectRow]:
    """The effects the forest plot draws: those with an estimate, smallest adjusted p first,
    at most ``MAX_FOREST_ROWS``."""

    def order(row: EffectRow) -> float:
        p = adjusted_p(row)
        return 1.0 if p is None else p

    return sorted((e for e in effects if e.estimate is not None), key=order)[:MAX_FOREST_ROWS]


_NAMED_WARNINGS = 3
"""Design warnings shown one by one; the rest are counted (a mock responder warns on every
scenario, and a wall of identical boxes hides the verdict)."""


def design_warnings(results: RunResults) -> list[str]:
    """What the analysis did to the design before testing, and what it found in the answers."""
    design = results.design
    if design is None:
        return []
    warnings = list(design.warnings[:_NAMED_WARNINGS])
    if len(design.warnings) > _NAMED_WARNINGS:
        warnings.append(
            f"{len(design.warnings) - _NAMED_WARNINGS} more design warnings of these kinds "
            "(results.json's design.warnings lists every one)."
        )
    if design.duplicates_dropped:
        warnings.append(
            f"{design.duplicates_dropped} trial(s) repeated a judge request already made "
            "(byte-identical prompts) and were counted once, not twice."
        )
    return warnings


def run_warnings(summary: Mapping[str, Any]) -> list[str]:
    """What the run itself reported: failed trials are missing from every number below."""
    warnings = []
    failed, total = int(summary.get("trials_failed") or 0), int(summary.get("trials_total") or 0)
    if failed:
        warnings.append(
            f"{failed} of {total} trials failed (model errors) and are missing from the analysis; "
            "`fairpanel run --retry-failed` runs them again."
        )
    if summary.get("stopped"):
        warnings.append(f"The run stopped early: {summary['stopped']}")
    return warnings
