"""The design check on a scenario's two candidate responses: are they (nearly) the same text?

A label contrast compares one answer under two labels, and a pair compares two answers; when
the responder wrote the same answer twice, the pair's arrangements collapse onto one another
(byte-identical judge requests are answered once from the cache, and the frames count them
once), and when it wrote nearly the same answer, the pair contrasts compare answers a judge
can barely tell apart. Neither is wrong, but the user should know, so the run warns and the
warnings can be read back from the store at any time.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Collection
from dataclasses import dataclass

from fairpanel.judging.store._store import Store
from fairpanel.judging.store._turn_read import (
    KEYS_PER_QUERY,
    duplicate_trials_of,
    stored_call_keys,
)

__all__ = [
    "NEAR_IDENTICAL_RATIO",
    "SimilarResponses",
    "report_similar_responses",
    "response_similarity",
    "response_warnings",
    "similar_responses",
]

NEAR_IDENTICAL_RATIO = 0.95
"""``difflib.SequenceMatcher`` ratio at or above which two responses count as near-identical.

The second response is a rewrite of the first "with the same steps" (MALIBU 3.2), so the two
share their structure by design; what must not happen is that they share their wording. A
ratio of 0.95 means at most about one character in twenty differs (about 50 characters, a
handful of words, in a 1,000-character answer): a few substituted words in an otherwise
verbatim copy, which no judge can be expected to rank on quality. A genuine rewrite changes far
more than that, so the threshold flags copies without flagging honest paraphrases.
"""


def _normalised(text: str) -> str:
    return " ".join(text.split()).casefold()


def response_similarity(first: str, second: str) -> tuple[str, float]:
    """How alike two responses are: (kind, ratio), kind one of "identical" (byte for byte),
    "identical after whitespace and case normalisation", "near-identical" (ratio at or above
    ``NEAR_IDENTICAL_RATIO``) or "distinct"; ratio is the SequenceMatcher ratio of the
    normalised texts (1.0 for the first two kinds)."""
    if first == second:
        return "identical", 1.0
    a, b = _normalised(first), _normalised(second)
    if a == b:
        return "identical after whitespace and case normalisation", 1.0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    # The cheap upper bounds settle most distinct pairs without the quadratic comparison.
    if matcher.real_quick_ratio() < NEAR_IDENTICAL_RATIO:
        return "distinct", matcher.real_quick_ratio()
    if matcher.quick_ratio() < NEAR_IDENTICAL_RATIO:
        return "distinct", matcher.quick_ratio()
    ratio = matcher.ratio()
    return ("near-identical" if ratio >= NEAR_IDENTICAL_RATIO else "distinct"), ratio


@dataclass(frozen=True)
class SimilarResponses:
    """One scenario whose two responses (from one responder model) are (nearly) the same."""

    scenario_id: str
    model: str
    kind: str
    ratio: float
    duplicate_trials: int
    """Trials of this scenario dropped from the analysis as repeats of an earlier trial."""

    def warning(self) -> str:
        """The sentence the run prints and results carry: which scenario, how alike, what was
        done about it."""
        head = (
            f"scenario {self.scenario_id}: responses 1 and 2 from {self.model} are {self.kind}"
            f" (similarity {self.ratio:.3f})"
        )
        if self.kind != "identical":  # the texts differ, so no request repeats another
            return (
                f"{head}; kept, but label contrasts on this scenario compare near-identical answers"
            )
        return (
            f"{head}; byte-identical judge requests count once; {self.duplicate_trials} "
            f"trial{'' if self.duplicate_trials == 1 else 's'} were dropped as duplicates"
        )


def _requests_shared(store: Store) -> bool:
    """Whether any request key belongs to two trials (without that no trial repeats another);
    SQLite answers it from the keys alone, without a Python set per trial."""
    shared = store.read(
        "SELECT 1 FROM (SELECT j.value AS request, turns.trial_key AS trial FROM turns, "
        "json_each(turns.call_keys) AS j) GROUP BY request HAVING MIN(trial) != MAX(trial) "
        "LIMIT 1"
    ).fetchone()
    return shared is not None


def _trials_of_scenarios(store: Store, scenarios: list[str]) -> dict[str, str]:
    """Trial key -> scenario id of every trial on one of ``scenarios``."""
    found: dict[str, str] = {}
    for start in range(0, len(scenarios), KEYS_PER_QUERY):
        chunk = scenarios[start : start + KEYS_PER_QUERY]
        found.update(
            store.read(
                "SELECT key, json_extract(spec, '$.scenario_id') AS scenario FROM trials "
                f"WHERE scenario IN ({', '.join('?' * len(chunk))})",
                chunk,
            ).fetchall()
        )
    return found


def similar_responses(
    store: Store, duplicate_trials: Collection[str] | None = None
) -> list[SimilarResponses]:
    """Every scenario in ``store`` whose two responses are identical or near-identical, in
    scenario order, with the number of its trials dropped as duplicates: those in
    ``duplicate_trials`` when the caller has the frames' (``RunFrames.duplicate_trials``), or
    else found from the store's request keys."""
    texts: dict[tuple[str, str], dict[int, str]] = {}
    for scenario_id, index, model, text in store.responses():
        texts.setdefault((scenario_id, model), {})[index] = text
    found: list[tuple[str, str, str, float]] = []
    for (scenario_id, model), by_index in sorted(texts.items()):
        if 1 in by_index and 2 in by_index:
            kind, ratio = response_similarity(by_index[1], by_index[2])
            if kind != "distinct":
                found.append((scenario_id, model, kind, ratio))
    if not found:
        return []
    per_scenario: dict[str, int] = {}
    if duplicate_trials is not None:
        if duplicate_trials:
            scenario_of = _trials_of_scenarios(store, sorted({found_[0] for found_ in found}))
            for key in duplicate_trials:
                if key in scenario_of:
                    per_scenario[scenario_of[key]] = per_scenario.get(scenario_of[key], 0) + 1
    elif _requests_shared(store):
        scenario_of = _trials_of_scenarios(store, sorted({found_[0] for found_ in found}))
        for key in duplicate_trials_of(stored_call_keys(store, sorted(scenario_of))):
            per_scenario[scenario_of[key]] = per_scenario.get(scenario_of[key], 0) + 1
    return [
        SimilarResponses(scenario_id, model, kind, ratio, per_scenario.get(scenario_id, 0))
        for scenario_id, model, kind, ratio in found
    ]


def response_warnings(store: Store, duplicate_trials: Collection[str] | None = None) -> list[str]:
    """The design warnings about (nearly) identical responses, one sentence per scenario, as
    the run printed them; recomputed from the store, so they can be read back at any time
    (``duplicate_trials``: see ``similar_responses``)."""
    return [found.warning() for found in similar_responses(store, duplicate_trials)]


CONSOLE_LIMIT = 5
"""Scenarios named one by one on the console; the summary's warnings list every one."""


def report_similar_responses(
    store: Store, warnings: list[str], warn: Callable[[str], None] | None
) -> None:
    """Add the response warnings to the run's ``warnings`` (summary.json) and print them with
    ``warn``, the first ``CONSOLE_LIMIT`` by name and the rest as a count."""
    found = response_warnings(store)
    warnings.extend(found)
    if warn is None:
        return
    for warning in found[:CONSOLE_LIMIT]:
        warn(warning)
    if len(found) > CONSOLE_LIMIT:
        warn(
            f"{len(found) - CONSOLE_LIMIT} more scenarios have identical or near-identical "
            "responses (summary.json lists every one)"
        )
