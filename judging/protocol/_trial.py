"""One trial: the panel debates, every turn is parsed, the consensus is formed.

Consensus follows the trial's rule over the final round's valid answers: the mean, the
median, the majority (most common score, ties to their median) or a moderator agent's
reading. The pair winner is the majority of final verdicts (no winner on a tie), or the
moderator's. Turns that never validated are kept with their raw text and count toward nothing.

A panel answers in its ``answer_format``: JSON (sent with the output schema, so providers that
have structured output enforce it) or free text (no schema, so no provider is put in JSON mode),
each with its own prompts, reader and re-ask wording. The other judges' answers are shown to a
text panel as one-line summaries, not as JSON, so as not to pull it toward the other format.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import partial
from typing import Any

from fairpanel.agents import (
    AnswerRules,
    CachingCaller,
    DebateError,
    DebateRound,
    ModelCallError,
    ModelClient,
    Seat,
    TurnOutcome,
    run_debate,
    run_single_turn,
)
from fairpanel.judging.experiment._design import SeatSpec, TrialSpec
from fairpanel.judging.manipulation import ManipulationInput, apply_manipulation
from fairpanel.judging.protocol._consensus import consensus_of
from fairpanel.judging.protocol._fencing import defuse, quoted_turn, with_injection
from fairpanel.judging.protocol._judgment import (
    PairJudgment,
    SingleJudgment,
    output_schema,
    parse_judgment,
)
from fairpanel.judging.protocol._prompts import (
    blind_final_prompt,
    discussion_prompt,
    final_prompt,
    judge_ask,
    judge_context,
    moderator_prompt,
    reask_prompt,
)
from fairpanel.judging.protocol._records import TrialRecord, TurnRecord
from fairpanel.judging.protocol._text_answer import text_summary
from fairpanel.personas import JudgePersona

__all__ = ["consensus_of", "run_trial"]

Judgment = SingleJudgment | PairJudgment


def _parsed(outcome: TurnOutcome, spec: TrialSpec) -> Judgment | None:
    result = parse_judgment(outcome.text, spec.protocol, spec.answer_format)
    return None if isinstance(result, str) else result


def _summary(outcome: TurnOutcome, spec: TrialSpec) -> str:
    """A judge's answer as the other judges (or the moderator) see it, in the panel's format."""
    judgment = _parsed(outcome, spec)
    if judgment is None:
        return "(no valid answer)"
    if spec.answer_format == "text":
        winner = judgment.winner if isinstance(judgment, PairJudgment) else None
        return text_summary(judgment.scores(), winner, judgment.reason)
    return json.dumps(judgment.model_dump(), separators=(", ", ": "))


def _moderated(judgment: Judgment, finals: int, judges: int) -> dict[str, Any]:
    consensus: dict[str, Any] = {
        "method": "moderator",
        "scores": judgment.scores(),
        "valid_final": finals,
        "judges": judges,
        "reason": judgment.reason,
    }
    if isinstance(judgment, PairJudgment):
        consensus["winner"] = judgment.winner
    return consensus


def _record(outcome: TurnOutcome, spec: TrialSpec, models: Mapping[str, str]) -> TurnRecord:
    judgment = _parsed(outcome, spec)
    return TurnRecord(
        round=outcome.round,
        round_kind=outcome.round_kind,
        judge=outcome.judge,
        speaker_index=outcome.speaker_index,
        judge_model=models[outcome.judge],
        raw_text=outcome.text,
        parsed=None if judgment is None else judgment.model_dump(),
        parse_error=outcome.error if judgment is None else None,
        attempts=outcome.attempts,
        usage=outcome.usage,
        latency_s=outcome.latency_s,
        call_keys=outcome.call_keys,
    )


async def run_trial(
    spec: TrialSpec,
    *,
    task: str,
    responses: Mapping[int, str],
    personas: Mapping[str, JudgePersona],
    clients: Mapping[str, ModelClient],
    caller: CachingCaller,
) -> TrialRecord:
    """Run the debate for ``spec`` and return its record (failed trials included)."""
    protocol = spec.protocol
    shown = with_injection([responses[index] for index in spec.response_indices], spec.injection)
    note = None
    if spec.manipulation is not None and spec.manipulated_position is not None:
        changed = apply_manipulation(
            spec.manipulation,
            ManipulationInput(
                texts=tuple(shown),
                target=spec.manipulated_position,
                task=task,
                protocol=spec.protocol,
                params=spec.manipulation.params,
            ),
        )
        shown, note = list(changed.texts), changed.note
    candidates = list(zip(spec.authors, shown, strict=True))
    rounds = spec.discussion_rounds + 2
    instruction = f"\n\n{spec.judge_instruction}" if spec.judge_instruction else ""

    def seat(chair: SeatSpec) -> Seat:
        return Seat(
            name=chair.persona,
            system_message=personas[chair.persona].system_message + instruction,
            client=clients[chair.model],
            sampling=chair.sampling,
        )

    seats = [seat(chair) for chair in spec.seats]
    models = {chair.persona: chair.model_id for chair in spec.seats}
    if spec.moderator is not None:
        models[spec.moderator.persona] = spec.moderator.model_id
    context = judge_context(
        task, candidates, position=spec.label_position, wording=spec.label_wording, note=note
    )

    answer_format, count = spec.answer_format, len(candidates)
    free_text = answer_format == "text"

    def own_answers(name: str, so_far: list[TurnOutcome]) -> list[str]:
        """A blind voter's earlier answers: as written (JSON), or summarised (text)."""
        mine = [o for o in so_far if o.judge == name]
        return [_summary(o, spec) if free_text else o.text for o in mine]

    def later_round(round_index: int, so_far: list[TurnOutcome]) -> DebateRound:
        if round_index == rounds - 1:
            if spec.final_vote == "blind":
                own = {
                    name: blind_final_prompt(own_answers(name, so_far), answer_format, count)
                    for name in spec.judges
                }
                return DebateRound(kind="final", prompt="", per_judge=own)
            return DebateRound(kind="final", prompt=final_prompt(answer_format, count))
        latest = [o for o in so_far if o.round == round_index - 1]
        summaries = [(o.judge, _summary(o, spec)) for o in latest]
        prompt = discussion_prompt(round_index, summaries, answer_format, count)
        return DebateRound(kind="discussion", prompt=prompt)

    def validate(text: str) -> str | None:
        result = parse_judgment(text, protocol, spec.answer_format)
        return result if isinstance(result, str) else None

    rules = AnswerRules(
        schema=None if free_text else output_schema(protocol),
        validate=validate,
        reask=partial(reask_prompt, answer_format=answer_format, candidate_count=count),
        max_reasks=spec.max_reasks,
        replicate=spec.call_replicate,
        role_prefix=f"{spec.panel} judge" if spec.panel else "judge",
        route_key=spec.route_key(),
        quote=quoted_turn,
        own_turn=defuse,
    )
    status, error = "ok", None
    try:
        outcomes = await run_debate(
            seats,
            caller,
            context=context,
            first_prompt=judge_ask(count, answer_format),
            later_round=later_round,
            rounds=rounds,
            rules=rules,
        )
    except DebateError as exc:
        status, error, outcomes = "failed", str(exc), exc.outcomes
    finals = [
        judgment
        for outcome in outcomes
        if outcome.round_kind == "final" and (judgment := _parsed(outcome, spec))
    ]
    consensus = None
    if status == "ok" and not finals:
        status, error = "failed", "no judge gave a valid final answer"
    elif status == "ok" and spec.moderator is not None:
        finals_text = [(o.judge, _summary(o, spec)) for o in outcomes if o.round == rounds - 1]
        try:
            verdict = await run_single_turn(
                seat(spec.moderator),
                caller,
                context=context,
                prompt=moderator_prompt(finals_text, answer_format, count),
                round_index=rounds,
                kind="moderator",
                rules=rules,
            )
        except ModelCallError as exc:
            status, error = "failed", str(exc)
        else:
            outcomes.append(verdict)
            judgment = _parsed(verdict, spec)
            if judgment is None:
                status, error = "failed", "the moderator gave no valid answer"
            else:
                consensus = _moderated(judgment, len(finals), len(seats))
    elif status == "ok":
        consensus = consensus_of(finals, len(seats), spec.consensus)
    return TrialRecord(
        key=spec.key(),
        protocol=protocol,
        spec=spec.model_dump(mode="json"),
        status=status,
        error=error,
        consensus=consensus,
        turns=[_record(outcome, spec, models) for outcome in outcomes],
    )
