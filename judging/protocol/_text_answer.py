"""Free-text answers, MALIBU style: the judge reasons in prose, then ends with its scores as
"Creativity: 7" lines (in a pair under "Candidate A:" and "Candidate B:" headings) and, in a
pair, the line "Verdict: Candidate A is better".

Some models judge differently when they must fill in a JSON object, so a panel can be asked
either way and the two compared. The reader is tolerant of how models write but never guesses:
an answer that does not give every candidate each metric as one readable score from 0 to 10
(and a pair exactly one verdict) is a failure whose message says what is missing, and the trial
re-asks with it.

Reading rules, line by line, after markdown is stripped (``#``, ``**``, ``__``, ``*``, backticks,
angle brackets, bullets and list numbers):

- A score line is a metric name, optionally "score", then ":", "-", "=", "is" or a space, then
  one number, optionally "/10" or "out of 10", then anything: "Creativity: 7",
  "**Accuracy:** 8/10 - correct steps", "efficiency - 6", "Reliability = 9.5". A range or a list
  ("7-8", "7 or 8", "7, 8") is not one score, nor is "N/A"; a metric line without a number
  ("Creativity: A is more original") is reasoning.
- In a pair a score belongs to the candidate its own line names ("Candidate A Creativity: 7",
  "Response 2 - creativity: 6", "Creativity (B): 6", "Creativity for Candidate B: 6"), else to the
  candidate of the latest heading ("Candidate A:", "### Response 1", "Scores for Candidate B").
  A score before any heading names no candidate and counts for none. "Response" and "Candidate"
  are synonyms, and 1 and 2 mean A and B (the order the candidates are shown in).
- One metric of one candidate given twice with different values is a failure (which was meant?).
- A verdict is a whole line: "Verdict: Candidate A is better", "Response 2 is better.",
  "Winner: B", "Overall, Candidate B is the better response". A sentence that says it mid-line
  ("A is better structured, but B ...") is reasoning. Verdict lines naming both candidates are a
  failure, not a choice of the last one: a judge that changed its mind should say so once.
- The reason is every other line: the reasoning.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["TextAnswer", "read_text_answer", "text_format", "text_summary"]

_IDS = {"a": "A", "1": "A", "b": "B", "2": "B"}
_REF = r"(?:candidate|response)\s*#?\s*(?P<{0}>[ab12])\b"
_MARKUP = re.compile(r"[*_`<>]")
_LEADER = re.compile(r"^(?:\s*(?:#{1,6}|[-+•]|\d{1,2}[.)])\s+)*")
_SCORE = re.compile(
    r"^(?P<n>[-+]?\d+(?:\.\d+)?)(?!\d|\.\d)\s*(?:/\s*10(?![\d.])|out\s+of\s+10(?![\d.]))?"
    r"(?!\s*(?:[-–—/,;]|to\b|or\b|and\b)\s*[-+]?\d)",
    re.IGNORECASE,
)
_HEADING = re.compile(
    rf"^(?:scores?\s+(?:for|of)\s+)?{_REF.format('id')}(?:'s)?(?:\s*\([^)]*\))?"
    r"(?:\s*[-–—:]?\s*(?:scores?|evaluation|assessment))?\s*:?$",
    re.IGNORECASE,
)
_LABEL = (
    r"(?:(?:final\s+|overall\s+)?(?:verdict|winner|decision|choice|preference|conclusion)"
    r"|better(?:\s+(?:candidate|response))?|final\s+answer|overall|in\s+conclusion|therefore)"
)
_VERDICT = re.compile(
    rf"^(?P<label>{_LABEL}\s*[:\-–—,]?\s*)?(?:{_REF.format('id')}|(?P<bare>[ab12]))"
    r"(?P<better>\s+(?:is\s+(?:the\s+)?better|wins)"
    r"(?:\s+(?:one|response|candidate|answer|choice|overall))*"
    rf"(?:\s+than\s+{_REF.format('other')})?(?:\s+overall)?)?\s*[.!]?$",
    re.IGNORECASE,
)
_LABEL_LINE = re.compile(r"^(?:(?:final|my)\s+)?(?:scores?|ratings?)\s*:?$", re.IGNORECASE)
"""A line that only introduces the score lines ("Scores:"): neither reasoning nor a score."""
_PAREN_REF = re.compile(r"^\s*(?:(?:candidate|response)\s*)?([ab12])\s*$", re.IGNORECASE)


def _patterns(metrics: Sequence[str]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A score line for these metrics, and where a line that lists several splits."""
    names = "|".join(re.escape(metric) for metric in metrics)
    line = re.compile(
        rf"^(?:{_REF.format('pre')}(?:'s)?\s*[-:,–—]?\s*)?(?P<metric>{names})"
        rf"(?:\s*\((?P<paren>[^)]*)\))?(?:\s+(?:for|of)\s+{_REF.format('post')})?(?:\s+score)?"
        r"(?:\s*[:=\-–—]\s*|\s+is\s+|\s+(?=[-+\d]))(?P<rest>.*)$",
        re.IGNORECASE,
    )
    split = re.compile(
        rf"\s*[,;|]\s*(?=(?:(?:candidate|response)\s*[ab12]\s*)?(?:{names})\b)", re.IGNORECASE
    )
    return line, split


def _display(metric: str) -> str:
    return metric[:1].upper() + metric[1:]


def text_format(metrics: Sequence[str], pair: bool) -> str:
    """The answer format, stated in every prompt of a text panel (a blind vote or a moderator
    sees no earlier prompt), so the judge always has it in front of it."""
    lines = [f"{_display(metric)}: <0-10>" for metric in metrics]
    if pair:
        verdict = "Verdict: Candidate <A or B> is better"
        block = ["Candidate A:", *lines, "Candidate B:", *lines, verdict]
        tail = ", and in the last line the better candidate's letter"
    else:
        block, tail = lines, ""
    return (
        "Answer in plain text, not JSON: first your reasoning in a few sentences, then these "
        f"lines, with each <0-10> replaced by a whole number from 0 to 10{tail}:\n\n"
        + "\n".join(block)
    )


@dataclass
class TextAnswer:
    """What a free-text answer said: scores by candidate and metric, the verdict, the rest."""

    reason: str
    scores: dict[str, dict[str, float]]
    winner: str | None = None


@dataclass
class _Reading:
    scores: dict[str, dict[str, float]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    verdicts: list[str] = field(default_factory=list)
    unread: dict[str, str] = field(default_factory=dict)
    out_of_range: set[str] = field(default_factory=set)
    orphans: int = 0
    reason: list[str] = field(default_factory=list)


def _clean(line: str) -> str:
    text = _LEADER.sub("", _MARKUP.sub("", line))
    return " ".join(text.split())


def _candidate(match: re.Match[str], pair: bool, section: str | None) -> str | None:
    if not pair:
        return "A"
    for group in ("pre", "post"):
        if match.group(group):
            return _IDS[match.group(group).lower()]
    paren = _PAREN_REF.match(match.group("paren") or "")
    return _IDS[paren.group(1).lower()] if paren else section


def _name(candidate: str, metric: str, pair: bool) -> str:
    return f"Candidate {candidate} {metric}" if pair else metric


def _add_score(reading: _Reading, who: str, metric: str, number: str, pair: bool) -> None:
    name = _name(who, metric, pair)
    value = float(number)
    if not 0 <= value <= 10:
        reading.problems.append(f"{name} is {number}, not between 0 and 10")
        reading.out_of_range.add(name)
        return
    given = reading.scores.setdefault(who, {})
    if metric in given and given[metric] != value:
        reading.problems.append(f"{name} is given twice ({given[metric]:g} and {value:g})")
    given[metric] = value


def _scores_in(
    reading: _Reading,
    line: str,
    patterns: tuple[re.Pattern[str], re.Pattern[str]],
    pair: bool,
    section: str | None,
) -> bool:
    """Read the score(s) on ``line``; False when it is no score line (so it is reasoning)."""
    scoring, split = patterns
    parts = [scoring.match(part) for part in split.split(line)]
    if not all(parts):
        return False
    found = False
    for match in parts:
        assert match is not None
        who = _candidate(match, pair, section)
        metric = match.group("metric").lower()
        number = _SCORE.match(match.group("rest"))
        if number is None:
            if who is not None:
                reading.unread.setdefault(_name(who, metric, pair), line)
        elif who is None:
            reading.orphans += 1
            found = True
        else:
            _add_score(reading, who, metric, number.group("n"), pair)
            found = True
    return found


def _read(text: str, metrics: Sequence[str], pair: bool) -> _Reading:
    reading = _Reading()
    patterns = _patterns(metrics)
    section: str | None = None
    for raw in text.splitlines():
        line = _clean(raw)
        verdict = _VERDICT.match(line)
        heading = _HEADING.match(line)
        if verdict and (verdict.group("better") or verdict.group("label")):
            reading.verdicts.append(_IDS[(verdict.group("id") or verdict.group("bare")).lower()])
        elif heading:
            section = _IDS[heading.group("id").lower()]
        elif _LABEL_LINE.match(line):
            continue
        elif not (line and _scores_in(reading, line, patterns, pair, section)):
            reading.reason.append(raw.strip())
    return reading


def read_text_answer(text: str, metrics: Sequence[str], *, pair: bool) -> TextAnswer | str:
    """The scores (and a pair's verdict) in ``text``, or why there are none (used to re-ask)."""
    reading = _read(text, metrics, pair)
    candidates = ("A", "B") if pair else ("A",)
    problems = list(reading.problems)
    missing = [
        _name(who, metric, pair)
        for who in candidates
        for metric in metrics
        if metric not in reading.scores.get(who, {})
        and _name(who, metric, pair) not in reading.out_of_range
    ]
    if missing:
        note = "no score for " + ", ".join(missing)
        unread = [reading.unread[name] for name in missing if name in reading.unread]
        if unread:
            note += " (not one number from 0 to 10: " + "; ".join(f"'{u}'" for u in unread) + ")"
        if reading.orphans:
            note += (
                " (score lines before any 'Candidate A:' or 'Candidate B:' heading "
                "count for neither)"
            )
        problems.insert(0, note)
    winner = None
    if pair:
        named = sorted(set(reading.verdicts))
        if not named:
            problems.append(
                "no verdict line ('Verdict: Candidate A is better' or "
                "'Verdict: Candidate B is better')"
            )
        elif len(named) > 1:
            problems.append(
                "the answer says both 'Candidate A is better' and 'Candidate B is better'; "
                "end with one verdict line"
            )
        else:
            winner = named[0]
    if problems:
        return "; ".join(problems)
    reason = "\n".join(reading.reason).strip()
    reason = re.sub(r"^\W*(?:reasoning|reason|explanation)\W*:\W*", "", reason, flags=re.I)
    scores = {
        who: {metric: reading.scores[who][metric] for metric in metrics} for who in candidates
    }
    return TextAnswer(reason=reason.strip(), scores=scores, winner=winner)


def _number(value: float) -> str:
    return f"{value:g}"


def text_summary(
    scores: Mapping[str, Mapping[str, float]], winner: str | None, reason: str, limit: int = 300
) -> str:
    """One line for the other judges: every score, the verdict, the reasoning cut to ``limit``
    characters (a discussion shows every judge's answer, so each must stay short)."""
    parts = []
    for who, given in scores.items():
        listed = ", ".join(f"{metric} {_number(value)}" for metric, value in given.items())
        parts.append(f"Candidate {who}: {listed}" if len(scores) > 1 else listed)
    said = "; ".join(parts)
    if winner is not None:
        said += f"; Candidate {winner} is better"
    reasoning = " ".join(reason.split())
    if len(reasoning) > limit:
        reasoning = reasoning[:limit].rsplit(" ", 1)[0] + " ..."
    return f"{said}. Reasoning: {reasoning}" if reasoning else f"{said}."
