"""The checks a base scenario passes before any model sees it, beyond its schema.

MALIBU's design rests on the task being the same whoever is said to have written the answer:
the identity enters only through the label the judges are shown. A template or variation that
names an identity itself ("a female client", "Mohammed's team") would put the treatment into the
task, so those words are refused outside the label. Two bases that are the same task in other
words would count one stimulus twice in a test whose unit is the base scenario, so near-duplicate
templates are refused too.

Near-duplicates are measured as ROUGE-L F1 over the templates' word tokens (the longest common
subsequence, from rapidfuzz), the measure bias benchmarks use to filter generated items; 0.70 is
the threshold (the 15 original bases' highest pair is about 0.5).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import LCSseq

from fairpanel.inputs import Problem
from fairpanel.personas import IdentitySet, load_identities

from ._model import ATTRIBUTE_NAMES, BaseScenario

__all__ = [
    "GENDERED_WORDS",
    "NEAR_DUPLICATE_THRESHOLD",
    "IdentityWords",
    "NearDuplicate",
    "builtin_identity_words",
    "identity_word_problems",
    "identity_words_from",
    "near_duplicates",
    "template_similarity",
]

NEAR_DUPLICATE_THRESHOLD = 0.70
"""ROUGE-L F1 between two templates' word tokens at or above which two bases are one task."""

GENDERED_WORDS: frozenset[str] = frozenset(
    {
        "he", "she", "him", "her", "his", "hers", "himself", "herself",
        "man", "men", "woman", "women", "boy", "boys", "girl", "girls",
        "mother", "father", "mum", "dad", "wife", "husband", "son", "daughter",
        "gentleman", "lady", "ladies", "mr", "mrs", "ms",
        "businessman", "businesswoman", "chairman", "chairwoman", "foreman", "manpower",
    }
)  # fmt: skip
"""Words that give a gender away without a label: a task written with them is not neutral."""

_TOKEN = re.compile(r"[a-z0-9{}]+")


class IdentityWords:
    """The words that name an identity: labels and their noun phrases match in any case (a
    sentence may start with one); first names only capitalised ("Frank", not "frank")."""

    def __init__(self, any_case: frozenset[str], names: frozenset[str]) -> None:
        self.any_case = any_case
        self.names = names
        self._any_case = _alternation(any_case, re.IGNORECASE)
        self._names = _alternation(names, 0)

    def found_in(self, text: str) -> list[str]:
        """The identity words in ``text``, as written in the vocabulary, sorted."""
        hits = {match.lower() for match in self._any_case.findall(text)}
        hits |= set(self._names.findall(text))
        return sorted(hits)


def _alternation(words: frozenset[str], flags: int) -> re.Pattern[str]:
    # A letter or hyphen on either side makes it part of another word ("non-disabled" is not
    # "disabled"; the longer label is in the vocabulary itself). Longest first, so "a Black
    # person" is not cut short at "Black".
    ordered = sorted(words, key=lambda word: (-len(word), word))
    body = "|".join(re.escape(word) for word in ordered) or r"(?!)"
    return re.compile(r"(?<![\w-])(" + body + r")(?![\w-])", flags)


def identity_words_from(identities: IdentitySet) -> IdentityWords:
    """Every identity's label, its noun phrase without the article, plurals of one-word labels,
    its first names, and the gendered words."""
    any_case: set[str] = set(GENDERED_WORDS)
    names: set[str] = set()
    for category in identities.categories:
        for identity in category.identities:
            label = identity.label.lower()
            any_case.add(label)
            if " " not in label:
                any_case.add(label + "s")
            any_case.add(re.sub(r"^(a|an) ", "", identity.explicit.lower()))
            names.update(identity.names)
    return IdentityWords(frozenset(any_case), frozenset(names))


@functools.cache
def builtin_identity_words() -> IdentityWords:
    """The vocabulary of the built-in identities (read once per process)."""
    return identity_words_from(load_identities())


def identity_word_problems(
    scenario: BaseScenario, words: IdentityWords | None = None
) -> list[Problem]:
    """Where the text a responder sees (the template and every variation's attributes) names
    an identity; the ``stereotype`` note may, since no model is shown it."""
    vocabulary = words or builtin_identity_words()
    texts: list[tuple[tuple[str | int, ...], str]] = [(("template",), scenario.template)]
    for index, variation in enumerate(scenario.variations):
        texts += [
            (("variations", index, name), variation.as_dict()[name]) for name in ATTRIBUTE_NAMES
        ]
    problems: list[Problem] = []
    for where, text in texts:
        found = vocabulary.found_in(text)
        if found:
            problems.append(
                (
                    where,
                    f"names an identity ({', '.join(repr(w) for w in found)}): the task must be "
                    "the same whoever is said to have written the answer; the identity enters "
                    "only through the label the judges see",
                )
            )
    return problems


def _tokens(template: str) -> list[str]:
    return _TOKEN.findall(template.lower())


def template_similarity(first: str, second: str) -> float:
    """ROUGE-L F1 of two templates' word tokens: 1 for the same words in the same order."""
    return _rouge_l(_tokens(first), _tokens(second))


def _rouge_l(a: list[str], b: list[str]) -> float:
    if not a and not b:
        return 1.0
    return 2 * LCSseq.similarity(a, b) / (len(a) + len(b))


@dataclass(frozen=True)
class NearDuplicate:
    """Two bases whose templates are one task (``earlier`` comes first in load order)."""

    earlier: BaseScenario
    later: BaseScenario
    similarity: float


def near_duplicates(
    scenarios: Sequence[BaseScenario],
    *,
    against: Sequence[BaseScenario] = (),
    threshold: float = NEAR_DUPLICATE_THRESHOLD,
) -> list[NearDuplicate]:
    """Pairs among ``scenarios`` (and between them and ``against``) at or above ``threshold``."""
    tokens = {id(s): _tokens(s.template) for s in [*scenarios, *against]}
    pairs = list(itertools.combinations(scenarios, 2))
    pairs += [(old, new) for new in scenarios for old in against]
    found = []
    for earlier, later in pairs:
        similarity = _rouge_l(tokens[id(earlier)], tokens[id(later)])
        if similarity >= threshold:
            found.append(NearDuplicate(earlier, later, similarity))
    return found
