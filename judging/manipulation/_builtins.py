"""fairpanel's own manipulation kinds, by name (templates in ``_templates``, the parts a model
writes in ``_rewrites``)."""

from __future__ import annotations

from fairpanel.judging.manipulation._model import CONTROL_KIND, ManipulationKind
from fairpanel.judging.manipulation._rewrites import (
    SelfPreferenceParams,
    register_ask,
    register_check,
    self_preference,
    self_preference_ask,
    self_preference_label,
    verbosity_ask,
    verbosity_check,
)
from fairpanel.judging.manipulation._templates import (
    AssertivenessParams,
    AuthorityParams,
    BandwagonParams,
    NoParams,
    SentimentParams,
    VerbosityParams,
    assertiveness,
    authority,
    bandwagon,
    sentiment,
    tone_label,
    unchanged,
    verbosity,
    verbosity_label,
)

__all__ = ["BUILT_IN_KINDS", "SELF_PREFERENCE"]

SELF_PREFERENCE = "self_preference"

BUILT_IN_KINDS: dict[str, ManipulationKind] = {
    kind.name: kind
    for kind in (
        ManipulationKind(
            name=CONTROL_KIND,
            params=NoParams,
            apply=unchanged,
            label=lambda _: "same-text-control",
            changes="nothing: the untouched trial judged again, afresh",
            keeps="everything",
        ),
        ManipulationKind(
            name="verbosity",
            params=VerbosityParams,
            apply=verbosity,
            label=verbosity_label,
            changes="length: the answer restated with filler to `ratio` x its words",
            keeps="every original word, in order (template); its content words (rewrite)",
            rewrite=verbosity_ask,
            check=verbosity_check,
        ),
        ManipulationKind(
            name="authority",
            params=AuthorityParams,
            apply=authority,
            label=lambda _: "authority",
            changes="a fabricated citation line after the answer",
            keeps="every original word, in order",
        ),
        ManipulationKind(
            name="bandwagon",
            params=BandwagonParams,
            apply=bandwagon,
            label=lambda p: f"bandwagon-{p.model_dump()['share']}",
            changes="a note to the judges that most earlier reviewers preferred the candidate",
            keeps="both candidates' texts",
        ),
        ManipulationKind(
            name="assertiveness",
            params=AssertivenessParams,
            apply=assertiveness,
            label=tone_label("assertiveness"),
            changes="register: confident or hedging",
            keeps="every original word, in order (template); its content words (rewrite)",
            rewrite=register_ask,
            check=register_check,
        ),
        ManipulationKind(
            name="sentiment",
            params=SentimentParams,
            apply=sentiment,
            label=tone_label("sentiment"),
            changes="register: upbeat or gloomy",
            keeps="every original word, in order (template); its content words (rewrite)",
            rewrite=register_ask,
            check=register_check,
        ),
        ManipulationKind(
            name=SELF_PREFERENCE,
            params=SelfPreferenceParams,
            apply=self_preference,
            label=self_preference_label,
            changes="who wrote response 1: another model's answer to the same task",
            keeps="the task, the label, the other candidate and the judges",
            rewrite=self_preference_ask,
        ),
    )
}
